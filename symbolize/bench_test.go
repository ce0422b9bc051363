package symbolize

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/gotracy/gotracy/internal/symtest"
	"github.com/gotracy/gotracy/symbols"
)

// goBinary builds a small Go program with DWARF (go test strips its own
// binary) and returns its path.
func goBinary(b *testing.B) string {
	if _, err := exec.LookPath("go"); err != nil {
		b.Skip("go command not found")
	}
	dir := b.TempDir()
	src := "package main\n\nimport (\n\t\"fmt\"\n\t\"net/http\"\n)\n\nfunc main() { fmt.Println(http.StatusText(200)) }\n"
	if err := os.WriteFile(filepath.Join(dir, "main.go"), []byte(src), 0o644); err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module bench\n\ngo 1.26\n"), 0o644); err != nil {
		b.Fatal(err)
	}
	cmd := exec.Command("go", "build", "-o", "prog", ".")
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		b.Fatalf("go build: %v\n%s", err, out)
	}
	return filepath.Join(dir, "prog")
}

// BenchmarkTrace: offline re-resolution of 20,000 offline-form frames in
// a Go binary with DWARF (net/http linked in: about 5 MB), with a fresh
// Resolver per run (cold: the
// binary is opened and indexed) and with one kept across runs (warm), and
// binutils addr2line -f -i -C on the same addresses in the same run, as the
// reference Tracy's update tool shells out to.
func BenchmarkTrace(b *testing.B) {
	bin := goBinary(b)
	addrs := symtest.LineAddrs(b, bin, 20000)
	b.Run("cold", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			b.StopTimer()
			tr := offlineTrace(bin, addrs)
			r, _ := symbols.New()
			b.StartTimer()
			if _, err := Trace(context.Background(), tr, r, Options{}); err != nil {
				b.Fatal(err)
			}
			r.Close()
		}
		b.ReportMetric(float64(len(addrs))*float64(b.N)/b.Elapsed().Seconds(), "frames/s")
	})
	b.Run("warm", func(b *testing.B) {
		r, _ := symbols.New()
		defer r.Close()
		Trace(context.Background(), offlineTrace(bin, addrs), r, Options{})
		b.ReportAllocs()
		for b.Loop() {
			b.StopTimer()
			tr := offlineTrace(bin, addrs)
			b.StartTimer()
			if _, err := Trace(context.Background(), tr, r, Options{}); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(len(addrs))*float64(b.N)/b.Elapsed().Seconds(), "frames/s")
	})
	b.Run("addr2line", func(b *testing.B) {
		if _, err := exec.LookPath("addr2line"); err != nil {
			b.Skip("addr2line not installed")
		}
		var in bytes.Buffer
		for _, a := range addrs {
			in.WriteString("0x" + strconv.FormatUint(a, 16) + "\n")
		}
		for b.Loop() {
			cmd := exec.Command("addr2line", "-f", "-i", "-C", "-e", bin)
			cmd.Stdin = bytes.NewReader(in.Bytes())
			if err := cmd.Run(); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(len(addrs))*float64(b.N)/b.Elapsed().Seconds(), "frames/s")
	})
}
