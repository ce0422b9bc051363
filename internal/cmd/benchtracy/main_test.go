//go:build linux

package main

import (
	"bytes"
	"io"
	"net"
	"testing"
	"time"
)

func TestMedian(t *testing.T) {
	if got := median([]float64{5, 1, 3}); got != 3 {
		t.Errorf("median of 5 1 3 = %v", got)
	}
	if got := median([]time.Duration{4, 1, 3, 2}); got != 2 {
		t.Errorf("median of 4 1 3 2 = %v (integer mean of the middle two)", got)
	}
}

// The fake client waits for the server's 12-byte hello, sends the whole
// recording, ends its side and drains the server until it closes.
func TestServeRecording(t *testing.T) {
	rec := bytes.Repeat([]byte("recorded client stream "), 50_000)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	served := make(chan error, 1)
	go func() { served <- serveRecording(ln, rec, 10*time.Second) }()
	c, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Write([]byte("TracyPrf\x52\x00\x00\x00")); err != nil {
		t.Fatal(err)
	}
	c.SetDeadline(time.Now().Add(10 * time.Second))
	got, err := io.ReadAll(c)
	if err != nil {
		t.Fatal(err)
	}
	c.Close()
	if !bytes.Equal(got, rec) {
		t.Fatalf("received %d bytes, want the %d of the recording", len(got), len(rec))
	}
	if err := <-served; err != nil {
		t.Fatal(err)
	}
}

func TestListening(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	if !listening(port) {
		t.Fatalf("port %d listens but /proc/net/tcp says not", port)
	}
	ln.Close()
	if listening(port) {
		t.Fatalf("port %d closed but still listed as listening", port)
	}
}
