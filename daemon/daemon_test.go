package daemon

import (
	"context"
	"errors"
	"net"
	"testing"
	"time"

	"github.com/gotracy/gotracy/capture"
	"github.com/gotracy/gotracy/protocol"
)

func TestFileName(t *testing.T) {
	c := Client{Program: "my/game:1", IP: net.IPv4(127, 0, 0, 1), Port: 8087}
	if got := FileName(c, 0); got != "my_game_1_127.0.0.1_8087.tracy" {
		t.Errorf("FileName = %q", got)
	}
	if got := FileName(c, 2); got != "my_game_1_127.0.0.1_8087_2.tracy" {
		t.Errorf("FileName seq 2 = %q", got)
	}
	if got := FileName(Client{Program: "..", IP: net.IPv4(10, 0, 0, 1), Port: 1}, 0); got != "__10.0.0.1_1.tracy" {
		t.Errorf("FileName of .. = %q", got)
	}
}

func TestListenError(t *testing.T) {
	pc, err := net.ListenPacket("udp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer pc.Close()
	d := New(Config{ListenAddr: "127.0.0.1", Port: pc.LocalAddr().(*net.UDPAddr).Port})
	err = d.Run(context.Background(), context.Background())
	var le *ListenError
	if !errors.As(err, &le) {
		t.Fatalf("Run on a taken port: %v, want *ListenError", err)
	}
}

// Broadcast versions 1-3 reach the daemon, which connects to the port they
// name; busy clients, other programs and garbage are left alone.
func TestAnnouncements(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	accepted := make(chan struct{}, 16)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			accepted <- struct{}{}
			c.Close() // a refused handshake: no capture, no file
		}
	}()
	port := ln.Addr().(*net.TCPAddr).Port
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	d := New(Config{ListenAddr: "127.0.0.1", Port: freeUDP(t), FilterName: "game", FilterPort: port, ConnectTimeout: 300 * time.Millisecond,
		Options: func(*Session) []capture.Option { return []capture.Option{capture.WithHandshakeTimeout(time.Second)} }})
	done := make(chan error, 1)
	go func() { done <- d.Run(ctx, context.Background()) }()
	for d.Addr() == nil {
		time.Sleep(time.Millisecond)
	}
	conn, err := net.Dial("udp4", d.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	send := func(b protocol.Broadcast) {
		msg, err := b.MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		conn.Write(msg)
	}
	expect := func(what string, want bool) {
		t.Helper()
		select {
		case <-accepted:
			if !want {
				t.Errorf("%s: the daemon connected", what)
			}
		case <-time.After(700 * time.Millisecond):
			if want {
				t.Errorf("%s: the daemon did not connect", what)
			}
		}
	}
	for v := uint16(1); v <= 3; v++ {
		send(protocol.Broadcast{Version: v, ListenPort: uint16(port), ProtocolVersion: protocol.ProtocolVersion, ActiveTime: 5, ProgramName: "game"})
		expect("version "+string(rune('0'+v)), true)
		time.Sleep(100 * time.Millisecond) // the refused session ends
	}
	send(protocol.Broadcast{Version: 3, ListenPort: uint16(port), ActiveTime: -1, ProgramName: "game"})
	expect("busy client", false)
	send(protocol.Broadcast{Version: 3, ListenPort: uint16(port), ActiveTime: 1, ProgramName: "editor"})
	expect("filtered-out program", false)
	send(protocol.Broadcast{Version: 3, ListenPort: uint16(port + 1), ActiveTime: 1, ProgramName: "game"})
	expect("filtered-out port", false)
	conn.Write([]byte{9, 0, 1}) // garbage: ignored, the daemon goes on
	send(protocol.Broadcast{Version: 2, ListenPort: uint16(port), ActiveTime: 1, ProgramName: "game"})
	expect("after garbage", true)
	// Version 0 names no port (8086 implied, as protocol's tests check);
	// it is not sent here, where 8086 may be another program's.
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if s := d.Sessions(); len(s) != 0 {
		t.Errorf("sessions %+v, want none (no client completed a handshake)", s)
	}
}

func freeUDP(t *testing.T) int {
	pc, err := net.ListenPacket("udp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer pc.Close()
	return pc.LocalAddr().(*net.UDPAddr).Port
}
