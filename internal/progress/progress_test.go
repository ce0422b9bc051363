package progress

import (
	"bytes"
	"strings"
	"testing"
	"time"
)

type clock struct{ t time.Time }

func (c *clock) now() time.Time { return c.t }

func TestLine(t *testing.T) {
	var buf bytes.Buffer
	c := &clock{t: time.Unix(0, 0)}
	l := newLine(&buf, "loading", true, c.now)

	c.t = c.t.Add(500 * time.Millisecond)
	l.Update(10e6, 100e6)
	if buf.Len() != 0 {
		t.Fatalf("drew before a second: %q", buf.String())
	}
	c.t = c.t.Add(time.Second) // 1.5 s
	l.Update(30e6, 100e6)
	if want := "\r\x1b[Kloading:  30% 30.0/100.0 MB, 20.0 MB/s"; buf.String() != want {
		t.Fatalf("got %q, want %q", buf.String(), want)
	}
	c.t = c.t.Add(10 * time.Millisecond)
	l.Update(31e6, 100e6)
	if strings.Count(buf.String(), "\r") != 1 {
		t.Fatalf("redrew within 100 ms: %q", buf.String())
	}
	c.t = c.t.Add(990 * time.Millisecond) // 2.5 s
	l.Update(50e6, -1)
	if !strings.HasSuffix(buf.String(), "loading: 50.0 MB, 20.0 MB/s") {
		t.Fatalf("unknown total: %q", buf.String())
	}
	l.Done()
	if !strings.HasSuffix(buf.String(), "\r\x1b[K") {
		t.Fatalf("Done did not clear: %q", buf.String())
	}
}

func TestQuietOperations(t *testing.T) {
	var buf bytes.Buffer
	c := &clock{t: time.Unix(0, 0)}
	l := newLine(&buf, "saving", true, c.now)
	l.Update(1, 2)
	l.Done()
	if buf.Len() != 0 {
		t.Fatalf("a fast operation drew %q", buf.String())
	}
	// Not a terminal: never draws.
	l = New(&buf, "x")
	c.t = c.t.Add(time.Hour)
	l.Update(1, 2)
	l.Done()
	if buf.Len() != 0 || IsTerminal(&buf) {
		t.Fatalf("drew on a non-terminal: %q", buf.String())
	}
	var nilLine *Line
	nilLine.Update(1, 2) // a nil Line is a no-op
	nilLine.Done()
}
