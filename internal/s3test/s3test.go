// Package s3test runs a real S3-compatible server for tests: SeaweedFS's
// `weed server -s3` on loopback with random ports and a temporary data
// directory, killable and restartable (the object-storage failure tests).
// The binary comes from GOTRACY_S3_WEED (CI builds it with
// .ci/seaweedfs.sh, from the Go module proxy); without it the tests skip,
// with one line on stderr.
package s3test

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/gotracy/gotracy/objstore"
	"github.com/minio/minio-go/v7"
)

var weedNotice sync.Once

// WeedPath returns the weed binary, or skips t.
func WeedPath(t testing.TB) string {
	t.Helper()
	p := os.Getenv("GOTRACY_S3_WEED")
	if p == "" {
		weedNotice.Do(func() {
			fmt.Fprintln(os.Stderr, "objstore: GOTRACY_S3_WEED is not set: the tests against a real S3 server (SeaweedFS) skip; build it with .ci/seaweedfs.sh")
		})
		t.Skip("GOTRACY_S3_WEED not set (a SeaweedFS weed binary; .ci/seaweedfs.sh builds one)")
	}
	if st, err := os.Stat(p); err != nil || st.IsDir() {
		t.Fatalf("GOTRACY_S3_WEED=%s: %v", p, err)
	}
	return p
}

// Weed is a running `weed server -s3` on loopback.
type Weed struct {
	t     testing.TB
	bin   string
	dir   string
	ports []int // master, volume, filer, s3, and their gRPC ports
	cmd   *exec.Cmd
	done  chan struct{}
	log   *os.File
}

const (
	testAccessKey = "gotracytest"
	testSecretKey = "gotracytestsecret1234"
)

func freePorts(t testing.TB, n int) []int {
	t.Helper()
	var ls []net.Listener
	var ps []int
	for range n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		ls = append(ls, l)
		ps = append(ps, l.Addr().(*net.TCPAddr).Port)
	}
	for _, l := range ls {
		l.Close()
	}
	return ps
}

// StartWeed starts a server with its data in a temporary directory and
// waits until its S3 port answers.
func StartWeed(t testing.TB) *Weed {
	t.Helper()
	w := &Weed{t: t, bin: WeedPath(t), dir: t.TempDir(), ports: freePorts(t, 8)}
	cfg := fmt.Sprintf(`{"identities":[{"name":"test","credentials":[{"accessKey":%q,"secretKey":%q}],"actions":["Admin","Read","Write","List","Tagging"]}]}`, testAccessKey, testSecretKey)
	if err := os.WriteFile(filepath.Join(w.dir, "s3.json"), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	w.start()
	t.Cleanup(w.Stop)
	return w
}

func (w *Weed) start() {
	t := w.t
	p := w.ports
	data := filepath.Join(w.dir, "data")
	os.MkdirAll(data, 0o755)
	log, err := os.OpenFile(filepath.Join(w.dir, "weed.log"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	w.log = log
	w.cmd = exec.Command(w.bin, "server", "-ip=127.0.0.1", "-ip.bind=127.0.0.1", "-dir="+data,
		"-master.port="+strconv.Itoa(p[0]), "-master.port.grpc="+strconv.Itoa(p[4]),
		"-volume.port="+strconv.Itoa(p[1]), "-volume.port.grpc="+strconv.Itoa(p[5]),
		"-filer.port="+strconv.Itoa(p[2]), "-filer.port.grpc="+strconv.Itoa(p[6]),
		"-s3", "-s3.port="+strconv.Itoa(p[3]), "-s3.port.grpc="+strconv.Itoa(p[7]),
		"-s3.config="+filepath.Join(w.dir, "s3.json"),
		"-volume.max=4", "-master.volumeSizeLimitMB=64")
	w.cmd.Stdout, w.cmd.Stderr = log, log
	if err := w.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	w.done = make(chan struct{})
	go func() { w.cmd.Wait(); close(w.done) }()
	// Ready when a signed request is answered: the S3 gateway answers
	// before the filer and volumes behind it are up.
	deadline := time.Now().Add(90 * time.Second)
	for {
		st, err := w.Store(objstore.Config{})
		if err == nil {
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
			_, err = st.Client().ListBuckets(ctx)
			cancel()
			if err == nil {
				return
			}
		}
		select {
		case <-w.done:
			b, _ := os.ReadFile(filepath.Join(w.dir, "weed.log"))
			t.Fatalf("weed server exited: %s", tail(b))
		default:
		}
		if time.Now().After(deadline) {
			b, _ := os.ReadFile(filepath.Join(w.dir, "weed.log"))
			t.Fatalf("weed server not ready after 90 s (%v): %s", err, tail(b))
		}
		time.Sleep(200 * time.Millisecond)
	}
}

func tail(b []byte) string {
	if len(b) > 3000 {
		b = b[len(b)-3000:]
	}
	return string(b)
}

// Kill ends the server at once (SIGKILL), as a crash would.
func (w *Weed) Kill() {
	if w.cmd != nil && w.cmd.Process != nil {
		w.cmd.Process.Kill()
		<-w.done
	}
	if w.log != nil {
		w.log.Close()
	}
}

// Restart starts the server again on the same ports and data.
func (w *Weed) Restart() { w.start() }

// Stop ends the server.
func (w *Weed) Stop() { w.Kill(); w.cmd = nil }

// Endpoint is the S3 endpoint URL.
func (w *Weed) Endpoint() string { return "http://127.0.0.1:" + strconv.Itoa(w.ports[3]) }

// Env is the environment a gotracy process needs to reach the server.
func (w *Weed) Env() []string {
	return []string{"AWS_ACCESS_KEY_ID=" + testAccessKey, "AWS_SECRET_ACCESS_KEY=" + testSecretKey,
		"AWS_ENDPOINT_URL=" + w.Endpoint(), "AWS_REGION=us-east-1"}
}

// Store connects to the server with the test credentials.
func (w *Weed) Store(cfg objstore.Config) (*objstore.Store, error) {
	for _, kv := range w.Env() {
		k, v, _ := cut(kv)
		w.t.Setenv(k, v)
	}
	return objstore.FromEnv(cfg)
}

func cut(kv string) (string, string, bool) {
	for i := range kv {
		if kv[i] == '=' {
			return kv[:i], kv[i+1:], true
		}
	}
	return kv, "", false
}

// MakeBucket creates a bucket.
func (w *Weed) MakeBucket(name string) {
	w.t.Helper()
	st, err := w.Store(objstore.Config{})
	if err != nil {
		w.t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var last error
	for range 20 {
		if last = st.Client().MakeBucket(ctx, name, minio.MakeBucketOptions{Region: "us-east-1"}); last == nil {
			return
		}
		time.Sleep(250 * time.Millisecond)
	}
	w.t.Fatalf("make bucket %s: %v", name, last)
}
