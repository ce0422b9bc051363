package protocol

import (
	"bytes"
	"encoding/hex"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/gotracy/gotracy/internal/fixtures"
)

func unhex(t *testing.T, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(strings.Join(strings.Fields(s), ""))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestWelcomeWorkedExample encodes the welcome of a worked example session.
func TestWelcomeWorkedExample(t *testing.T) {
	w := Welcome{TimerMul: 1, InitBegin: 1000000000, InitEnd: 1000500000, Resolution: 10, Epoch: 1750000000,
		PID: 4242, CPUArch: CPUArchX64, ProgramName: "demo", HostInfo: "OS: Linux"}
	copy(w.CPUManufacturer[:], "GenuineIntel")
	b, err := w.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	if len(b) != WelcomeSize {
		t.Fatalf("welcome is %d bytes", len(b))
	}
	want := unhex(t, `000000000000f03f 00ca9a3b00000000 206ba23b00000000 0a00000000000000
		80e14e6800000000 0000000000000000 9210000000000000 0000000000000000 00 02
		47656e75696e65496e74656c 00000000 64656d6f00`)
	if !bytes.Equal(b[:len(want)], want) {
		t.Errorf("welcome head\n got %x\nwant %x", b[:len(want)], want)
	}
	if !bytes.HasPrefix(b[146:], []byte("OS: Linux\x00")) {
		t.Errorf("hostInfo at 146: %q", b[146:160])
	}
	var back Welcome
	if err := back.UnmarshalBinary(b); err != nil || back != w {
		t.Errorf("round trip: %+v, %v", back, err)
	}
	if err := back.UnmarshalBinary(b[:100]); !errors.Is(err, ErrTruncated) {
		t.Errorf("short welcome: %v", err)
	}
	// Over-long strings are cut to fit their NUL-terminated arrays.
	w.ProgramName = strings.Repeat("p", 100)
	w.HostInfo = strings.Repeat("h", 2000)
	b, _ = w.MarshalBinary()
	if len(b) != WelcomeSize || b[82+63] != 0 || b[1169] != 0 {
		t.Errorf("long strings: len %d", len(b))
	}
	_ = back.UnmarshalBinary(b)
	if len(back.ProgramName) != 63 || len(back.HostInfo) != 1023 {
		t.Errorf("long strings decode to %d/%d bytes", len(back.ProgramName), len(back.HostInfo))
	}
}

// TestWelcomeFixtures decodes the welcome of every recording.
func TestWelcomeFixtures(t *testing.T) {
	for _, name := range fixtures.Recordings {
		b, err := os.ReadFile(fixtures.Path(t, name+".c2s.bin"))
		if err != nil {
			t.Fatal(err)
		}
		var w Welcome
		if b[0] != byte(HandshakeWelcome) {
			t.Fatalf("%s: status %d", name, b[0])
		}
		if err := w.UnmarshalBinary(b[1 : 1+WelcomeSize]); err != nil {
			t.Fatal(err)
		}
		if w.TimerMul <= 0 || w.ProgramName == "" || w.InitEnd < w.InitBegin {
			t.Errorf("%s: implausible welcome %+v", name, w)
		}
		if od := w.Flags&FlagOnDemand != 0; od != (name == "demo-ondemand") {
			t.Errorf("%s: on-demand flag %v", name, od)
		}
		again, _ := w.MarshalBinary()
		if !bytes.Equal(again, b[1:1+WelcomeSize]) {
			t.Errorf("%s: welcome does not re-encode byte for byte", name)
		}
	}
}

func TestOnDemandPayload(t *testing.T) {
	p := OnDemandPayload{Frames: 7, CurrentTime: -3}
	b, _ := p.MarshalBinary()
	if len(b) != OnDemandSize || b[0] != 7 || b[8] != 0xfd {
		t.Fatalf("% x", b)
	}
	var q OnDemandPayload
	if err := q.UnmarshalBinary(b); err != nil || q != p {
		t.Fatalf("%+v %v", q, err)
	}
	if err := q.UnmarshalBinary(b[:15]); !errors.Is(err, ErrTruncated) {
		t.Fatal(err)
	}
}

// TestServerQueryPacket checks a worked example's bytes and every type's name.
func TestServerQueryPacket(t *testing.T) {
	p := ServerQueryPacket{Type: ServerQuerySourceLocation, Ptr: 0x0000555500001000}
	b, _ := p.MarshalBinary()
	if want := unhex(t, "03 0010000055550000 00000000"); !bytes.Equal(b, want) {
		t.Fatalf("got % x", b)
	}
	var q ServerQueryPacket
	for typ := range ServerQuery(NumServerQueries) {
		p := ServerQueryPacket{Type: typ, Ptr: 0x0102030405060708, Extra: 0xa0b0c0d}
		if err := q.UnmarshalBinary(p.Append(nil)); err != nil || q != p {
			t.Errorf("%v: %+v %v", typ, q, err)
		}
		if !strings.HasPrefix(typ.String(), "ServerQuery") || typ.Priority() != (typ <= 8) {
			t.Errorf("%d: %v", typ, typ)
		}
	}
	if err := q.UnmarshalBinary(make([]byte, 12)); !errors.Is(err, ErrTruncated) {
		t.Error(err)
	}
	bad := make([]byte, 13)
	bad[0] = 16
	if err := q.UnmarshalBinary(bad); !errors.Is(err, ErrUnknownItem) {
		t.Error(err)
	}
	// The real server's first queries.
	s2c, err := os.ReadFile(fixtures.Path(t, "demo.s2c.bin"))
	if err != nil {
		t.Fatal(err)
	}
	if string(s2c[:8]) != Shibboleth || s2c[8] != ProtocolVersion {
		t.Fatalf("s2c opening % x", s2c[:12])
	}
	rest := s2c[HandshakeSize:]
	if len(rest)%ServerQueryPacketSize != 0 {
		t.Fatalf("s2c has %d query bytes", len(rest))
	}
	for len(rest) > 0 {
		if err := q.UnmarshalBinary(rest[:13]); err != nil {
			t.Fatal(err)
		}
		rest = rest[13:]
	}
}

func TestBroadcast(t *testing.T) {
	for v := uint16(0); v <= BroadcastVersion; v++ {
		b := Broadcast{Version: v, ListenPort: 8087, ProtocolVersion: ProtocolVersion, ActiveTime: -1, ProgramName: "app_od"}
		if v == 3 {
			b.PID = 1234
		}
		if v == 0 {
			b.ListenPort = 8086
		}
		p, err := b.MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		if v == 3 && len(p) != 27 {
			t.Errorf("v3 datagram for app_od is %d bytes, want 27", len(p))
		}
		var back Broadcast
		if err := back.UnmarshalBinary(p); err != nil || back != b {
			t.Errorf("v%d: %+v %v", v, back, err)
		}
	}
	var b Broadcast
	if err := b.UnmarshalBinary([]byte{4, 0, 0, 0}); !errors.Is(err, ErrBadBroadcast) {
		t.Error(err)
	}
	if err := b.UnmarshalBinary(append([]byte{3, 0}, make([]byte, 90)...)); !errors.Is(err, ErrBadBroadcast) {
		t.Error(err)
	}
	if err := b.UnmarshalBinary([]byte{3}); !errors.Is(err, ErrBadBroadcast) {
		t.Error(err)
	}
}

func TestConstants(t *testing.T) {
	if LZ4Size != 263188 || TargetFrameSize != 262144 || ProtocolVersion != 82 || BroadcastVersion != 3 ||
		HandshakeSize != 12 || WelcomeSize != 1170 || OnDemandSize != 16 || ServerQueryPacketSize != 13 {
		t.Error("a protocol constant differs from the spec")
	}
	if NumQueueTypes != 132 || NumServerQueries != 16 {
		t.Error("enum sizes differ from the spec")
	}
}
