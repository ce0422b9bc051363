package main

import (
	"bytes"
	"strings"
	"testing"
)

func runCLI(t *testing.T, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	var o, e bytes.Buffer
	code = run(args, &o, &e)
	return o.String(), e.String(), code
}

func TestVersion(t *testing.T) {
	out, _, code := runCLI(t, "version")
	if code != 0 || !strings.Contains(out, "Tracy 0.14.0, protocol 82") {
		t.Fatalf("version: code %d, output %q", code, out)
	}
}

func TestHelpListsEveryCommand(t *testing.T) {
	out, _, code := runCLI(t, "help")
	if code != 0 {
		t.Fatalf("help exited %d", code)
	}
	for name, c := range commands {
		if !strings.Contains(out, name+" ") || !strings.Contains(out, c.summary) {
			t.Errorf("help does not list %q with its summary", name)
		}
		hout, _, hcode := runCLI(t, "help", name)
		if hcode != 0 || !strings.Contains(hout, "Usage: gotracy "+c.usage) {
			t.Errorf("help %s: code %d, output %q", name, hcode, hout)
		}
	}
}

func TestUnknownCommandAndBadFlagExit2(t *testing.T) {
	if _, e, code := runCLI(t, "no-such-command"); code != 2 || !strings.Contains(e, "unknown command") {
		t.Errorf("unknown command: code %d, stderr %q", code, e)
	}
	if _, e, code := runCLI(t, "version", "--no-such-flag"); code != 2 || !strings.Contains(e, "Usage:") {
		t.Errorf("bad flag: code %d, stderr %q", code, e)
	}
	if _, _, code := runCLI(t); code != 2 {
		t.Errorf("no command: code %d", code)
	}
}
