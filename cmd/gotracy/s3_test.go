//go:build unix

package main

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gotracy/gotracy/internal/s3test"
	"github.com/gotracy/gotracy/objstore"
)

// TestS3DaemonCaptureLsView: against a real S3 server (SeaweedFS), the
// daemon uploads each finished trace (and first what an earlier run left in
// its spool), capture -o s3:// uploads its one trace, ls lists them with
// their program, host, start and duration, and view serves one of them.
func TestS3DaemonCaptureLsView(t *testing.T) {
	w := s3test.StartWeed(t)
	w.MakeBucket("traces")
	env := w.Env()
	spool := t.TempDir()

	// Left by an earlier run whose upload failed.
	leftover := filepath.Join(spool, "old_127.0.0.1_1.tracy")
	if _, stderr, code := runCLI(t, "demo", "--frames", "3", "-o", leftover); code != 0 {
		t.Fatal(stderr)
	}
	note, _ := json.Marshal(pendingUpload{URL: "s3://traces/farm/old_127.0.0.1_1.tracy", Meta: map[string]string{objstore.MetaProgram: "old"}})
	os.WriteFile(notePath(leftover), note, 0o644)

	udp := freeUDPPort(t)
	d := gotracy(t, env, "daemon", "-o", "s3://traces/farm/", "-p", strconv.Itoa(udp), "--spool", spool, "--filter-name", "gotracy-demo")
	d.waitFor(t, "uploaded s3://traces/farm/old_127.0.0.1_1.tracy", d.stdout.String)
	d.waitFor(t, "listening for Tracy clients", d.stdout.String)
	port := freeTCPPort(t)
	rep := demoJSON(t, gotracy(t, nil, "demo", "-p", strconv.Itoa(port), "--broadcast-port", strconv.Itoa(udp), "--frames", "12", "--json"))
	name := "gotracy-demo_127.0.0.1_" + strconv.Itoa(port) + ".tracy"
	d.waitFor(t, "uploaded s3://traces/farm/"+name, d.stdout.String)
	d.signal(t, syscall.SIGINT)
	if code := d.exit(t); code != 0 {
		t.Fatalf("daemon exited %d: %s", code, d.stderr.String())
	}
	if left, _ := filepath.Glob(filepath.Join(spool, "*")); len(left) != 0 {
		t.Errorf("spool still holds %q after confirmed uploads", left)
	}

	// capture -o s3://BUCKET/KEY.tracy.
	cport := freeTCPPort(t)
	demo := gotracy(t, nil, "demo", "-p", strconv.Itoa(cport), "--broadcast-port", strconv.Itoa(freeUDPPort(t)), "--frames", "7", "--json")
	c := gotracy(t, env, "capture", "-a", "127.0.0.1", "-p", strconv.Itoa(cport), "-o", "s3://traces/cap/one.tracy", "--spool", spool)
	crep := demoJSON(t, demo)
	if code := c.exit(t); code != 0 {
		t.Fatalf("capture exited %d: %s %s", code, c.stdout.String(), c.stderr.String())
	}
	if !strings.Contains(c.stdout.String(), "uploaded s3://traces/cap/one.tracy") {
		t.Errorf("capture said %q", c.stdout.String())
	}

	// Read both back.
	st, err := w.Store(objstore.Config{})
	if err != nil {
		t.Fatal(err)
	}
	for key, r := range map[string]demoReport{"farm/" + name: rep, "cap/one.tracy": crep} {
		local := filepath.Join(t.TempDir(), "back.tracy")
		f, _ := os.Create(local)
		if _, err := st.Download(context.Background(), "traces", key, f); err != nil {
			t.Fatal(err)
		}
		f.Close()
		checkAgainstReport(t, local, contentOf(t, local), r)
	}

	ls := gotracy(t, env, "ls", "s3://traces/")
	if code := ls.exit(t); code != 0 {
		t.Fatalf("ls exited %d: %s", code, ls.stderr.String())
	}
	out := ls.stdout.String()
	host, _ := os.Hostname()
	for _, want := range []*regexp.Regexp{
		regexp.MustCompile(`(?m)^farm/` + regexp.QuoteMeta(name) + `\s+gotracy-demo\s+` + regexp.QuoteMeta(host) + `\s+20\d\d-\d\d-\d\d \d\d:\d\d:\d\d\s+[0-9.]+m?s\s+[0-9.]+ KB$`),
		regexp.MustCompile(`(?m)^cap/one\.tracy\s+gotracy-demo\s+`),
		regexp.MustCompile(`(?m)^farm/old_127\.0\.0\.1_1\.tracy\s+old\s+`),
	} {
		if !want.MatchString(out) {
			t.Errorf("ls output lacks %v:\n%s", want, out)
		}
	}

	v := gotracy(t, env, "view", "s3://traces/farm/"+name)
	v.waitFor(t, "serving", v.stdout.String)
	url := regexp.MustCompile(`http://\S+`).FindString(v.stdout.String())
	cl := &http.Client{Timeout: 10 * time.Second}
	resp, err := cl.Get(strings.TrimSuffix(url, "/") + "/api/v1/trace")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !strings.Contains(string(body), "gotracy-demo") {
		t.Errorf("view of s3:// answered %d: %.300s", resp.StatusCode, body)
	}
	v.signal(t, syscall.SIGINT)
	v.exit(t)
}

// TestS3DaemonServerDown: the store is down when a capture ends; the trace
// waits in the spool (file and note) while the daemon retries, and is
// uploaded, then removed from the spool, once the store is back.
func TestS3DaemonServerDown(t *testing.T) {
	w := s3test.StartWeed(t)
	w.MakeBucket("traces")
	spool := t.TempDir()
	udp := freeUDPPort(t)
	d := gotracy(t, w.Env(), "daemon", "-o", "s3://traces/down/", "-p", strconv.Itoa(udp), "--spool", spool, "--filter-name", "gotracy-demo")
	d.waitFor(t, "listening for Tracy clients", d.stdout.String)
	w.Kill()
	port := freeTCPPort(t)
	rep := demoJSON(t, gotracy(t, nil, "demo", "-p", strconv.Itoa(port), "--broadcast-port", strconv.Itoa(udp), "--frames", "9", "--json"))
	name := "gotracy-demo_127.0.0.1_" + strconv.Itoa(port) + ".tracy"
	d.waitFor(t, "retrying", d.stderr.String)
	local := filepath.Join(spool, name)
	if _, err := os.Stat(local); err != nil {
		t.Fatalf("while the store is down the trace must wait in the spool: %v", err)
	}
	if _, err := os.Stat(notePath(local)); err != nil {
		t.Fatalf("spool note: %v", err)
	}
	checkAgainstReport(t, local, contentOf(t, local), rep)
	w.Restart()
	d.waitFor(t, "uploaded s3://traces/down/"+name, d.stdout.String)
	if _, err := os.Stat(local); !os.IsNotExist(err) {
		t.Errorf("spooled file still there after the confirmed upload: %v", err)
	}
	d.signal(t, syscall.SIGINT)
	if code := d.exit(t); code != 0 {
		t.Fatalf("daemon exited %d: %s", code, d.stderr.String())
	}
	st, err := w.Store(objstore.Config{})
	if err != nil {
		t.Fatal(err)
	}
	back := filepath.Join(t.TempDir(), "back.tracy")
	f, _ := os.Create(back)
	if _, err := st.Download(context.Background(), "traces", "down/"+name, f); err != nil {
		t.Fatal(err)
	}
	f.Close()
	checkAgainstReport(t, back, contentOf(t, back), rep)
}
