package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gotracy/gotracy/model"
	"github.com/gotracy/gotracy/tracefile"
)

func TestInfoVerify(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "good.tracy")
	bld := model.NewBuilder()
	for i := range 5000 { // 170 KB of payload: three chunks
		bld.Intern(fmt.Sprintf("string number %d", i))
	}
	tr := bld.Trace()
	if err := tracefile.WriteFile(good, tr); err != nil {
		t.Fatal(err)
	}
	runInfo := func(args ...string) (int, string, string) {
		var out, errb bytes.Buffer
		rc := run(append([]string{"info", "--verify"}, args...), &out, &errb)
		return rc, out.String(), errb.String()
	}
	rc, out, _ := runInfo(good)
	if rc != 0 || !strings.Contains(out, "Checksums:  3 chunks verified by their Zstd content checksum") || !strings.Contains(out, "Result:     OK\n") {
		t.Fatalf("intact file: rc %d\n%s", rc, out)
	}

	b, _ := os.ReadFile(good)
	b[len(b)-1] ^= 1 // the last chunk's checksum
	bad := filepath.Join(dir, "bad.tracy")
	os.WriteFile(bad, b, 0o644)
	rc, out, errs := runInfo(bad)
	if rc == 0 || !strings.Contains(out, "then chunk 2 FAILED its Zstd content checksum") || !strings.Contains(out, "Result:     CORRUPT: ") || !strings.Contains(errs, "damaged") {
		t.Fatalf("changed byte: rc %d\n%s\n%s", rc, out, errs)
	}
	rc, out, _ = runInfo("--json", bad)
	var r verifyReport
	if err := json.Unmarshal([]byte(out), &r); err != nil || rc == 0 || r.OK || r.BadChunk == nil || *r.BadChunk != 2 || r.ChecksummedChunks != 2 {
		t.Fatalf("json: rc %d, %v\n%s", rc, err, out)
	}

	cut := filepath.Join(dir, "cut.tracy")
	os.WriteFile(cut, b[:len(b)/2], 0o644)
	if rc, out, _ = runInfo(cut); rc == 0 || !strings.Contains(out, "Framing:    FAILED") || !strings.Contains(out, "truncated") {
		t.Fatalf("cut file: rc %d\n%s", rc, out)
	}
	if rc, out, _ = runInfo(filepath.Join(dir, "missing.tracy")); rc == 0 || out != "" {
		t.Fatalf("missing file: rc %d\n%s", rc, out)
	}
}
