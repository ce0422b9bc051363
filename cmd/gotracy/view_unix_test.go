//go:build unix

package main

import (
	"os"
	"syscall"
	"testing"
)

// TestViewStopsOnSignal: the real signal path, in a real gotracy process:
// SIGINT, SIGTERM or SIGHUP ends the server, which lets requests finish,
// and the command exits 0 (view is a graceful command).
func TestViewStopsOnSignal(t *testing.T) {
	f := writeSmallTrace(t)
	for _, sig := range []os.Signal{syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP} {
		t.Run(sig.String(), func(t *testing.T) {
			p := gotracy(t, nil, "view", f)
			p.waitFor(t, "gotracy-test: signals ready", p.stderr.String)
			p.waitFor(t, "(Ctrl-C to stop)", p.stdout.String)
			url := servingURL.FindStringSubmatch(p.stdout.String())[1]
			if code, _ := httpGet(t, url+"api/v1/trace"); code != 200 {
				t.Fatalf("trace: %d", code)
			}
			p.signal(t, sig)
			if code := p.exit(t); code != 0 {
				t.Errorf("exit %d after %v; stderr %q", code, sig, p.stderr.String())
			}
		})
	}
}
