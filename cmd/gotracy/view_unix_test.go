//go:build unix

package main

import (
	"os"
	"syscall"
	"testing"
	"time"
)

// TestViewStopsOnSIGTERM: the real signal path, not the test hook: a
// SIGTERM to the process ends the server and the command exits 0.
func TestViewStopsOnSIGTERM(t *testing.T) {
	f := writeSmallTrace(t)
	var stdout, stderr syncBuffer
	done := make(chan int, 1)
	go func() { done <- run([]string{"view", f}, &stdout, &stderr) }()
	deadline := time.Now().Add(30 * time.Second)
	for servingURL.FindString(stdout.String()) == "" {
		if time.Now().After(deadline) {
			t.Fatalf("no URL printed; stderr %q", stderr.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
	url := servingURL.FindStringSubmatch(stdout.String())[1]
	if code, _ := httpGet(t, url+"api/v1/trace"); code != 200 {
		t.Fatalf("trace: %d", code)
	}
	if err := syscall.Kill(os.Getpid(), syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case code := <-done:
		if code != 0 {
			t.Errorf("exit %d after SIGTERM; stderr %q", code, stderr.String())
		}
	case <-time.After(20 * time.Second):
		t.Fatal("view still running 20 s after SIGTERM")
	}
}
