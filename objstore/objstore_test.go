package objstore_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"errors"
	"net"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gotracy/gotracy/internal/s3test"
	"github.com/gotracy/gotracy/objstore"
)

func TestParseURL(t *testing.T) {
	for _, tc := range []struct {
		in, bucket, key string
		ok              bool
	}{
		{"s3://traces/farm/", "traces", "farm/", true},
		{"s3://traces/a/b.tracy", "traces", "a/b.tracy", true},
		{"s3://traces", "traces", "", true},
		{"s3:///key", "", "", false},
		{"s3://ab/key", "", "", false},
		{"/tmp/x.tracy", "", "", false},
		{"s3://bad_bucket/x", "", "", false},
	} {
		u, err := objstore.ParseURL(tc.in)
		if (err == nil) != tc.ok {
			t.Errorf("%q: err %v, want ok=%v", tc.in, err, tc.ok)
			continue
		}
		var ue *objstore.URLError
		if err != nil && !errors.As(err, &ue) {
			t.Errorf("%q: error %T, want *URLError", tc.in, err)
		}
		if tc.ok && (u.Bucket != tc.bucket || u.Key != tc.key) {
			t.Errorf("%q: %+v", tc.in, u)
		}
	}
}

func TestNoCredentials(t *testing.T) {
	t.Setenv("AWS_ACCESS_KEY_ID", "")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "")
	t.Setenv("AWS_SHARED_CREDENTIALS_FILE", filepath.Join(t.TempDir(), "none"))
	t.Setenv("AWS_PROFILE", "")
	if _, err := objstore.FromEnv(objstore.Config{Endpoint: "http://127.0.0.1:1"}); !errors.Is(err, objstore.ErrNoCredentials) {
		t.Fatalf("err %v, want ErrNoCredentials", err)
	}
}

// An unreachable store: the upload gives up after its retry time with an
// UploadError, and the local file is untouched.
func TestUploadUnreachable(t *testing.T) {
	t.Setenv("AWS_ACCESS_KEY_ID", "k")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "s")
	ln := freeClosedPort(t)
	st, err := objstore.FromEnv(objstore.Config{Endpoint: "http://" + ln, RetryFor: 1500 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "x.tracy")
	os.WriteFile(path, []byte("trace"), 0o644)
	err = st.Upload(context.Background(), path, "bucket", "x.tracy", nil)
	var ue *objstore.UploadError
	if !errors.As(err, &ue) || ue.Tries < 2 {
		t.Fatalf("err %v, want an *UploadError after retries", err)
	}
	if b, err := os.ReadFile(path); err != nil || string(b) != "trace" {
		t.Fatalf("local file changed: %q, %v", b, err)
	}
}

// freeClosedPort is a loopback address nothing listens on.
func freeClosedPort(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	return addr
}

func randomFile(t *testing.T, size int) (string, []byte) {
	t.Helper()
	b := make([]byte, size)
	rand.Read(b)
	path := filepath.Join(t.TempDir(), "trace.tracy")
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return path, b
}

func download(t *testing.T, st *objstore.Store, bucket, key string) []byte {
	t.Helper()
	var buf bytes.Buffer
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if _, err := st.Download(ctx, bucket, key, &buf); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// Upload (one PUT and multipart), list with metadata, download.
func TestWeedUploadListDownload(t *testing.T) {
	w := s3test.StartWeed(t)
	w.MakeBucket("traces")
	st, err := w.Store(objstore.Config{PartSize: 5 << 20})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	small, sb := randomFile(t, 100_000)
	big, bb := randomFile(t, 12<<20+12345)
	meta := map[string]string{objstore.MetaProgram: "demo", objstore.MetaHost: "build1",
		objstore.MetaStart: "2026-12-02T05:00:00Z", objstore.MetaDuration: "1500000000"}
	if err := st.Upload(ctx, small, "traces", "farm/small.tracy", meta); err != nil {
		t.Fatal(err)
	}
	if err := st.Upload(ctx, big, "traces", "farm/big.tracy", meta); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(download(t, st, "traces", "farm/small.tracy"), sb) || !bytes.Equal(download(t, st, "traces", "farm/big.tracy"), bb) {
		t.Fatal("downloaded content differs from the upload")
	}
	objs, err := st.List(ctx, "traces", "farm/")
	if err != nil {
		t.Fatal(err)
	}
	if len(objs) != 2 {
		t.Fatalf("listed %d objects, want 2: %+v", len(objs), objs)
	}
	for _, o := range objs {
		if o.Program != "demo" || o.Host != "build1" || o.Duration != 1500*time.Millisecond || o.Start.Year() != 2026 {
			t.Errorf("%s: metadata %+v", o.Key, o)
		}
	}
	if objs[0].Size+objs[1].Size != int64(len(sb)+len(bb)) {
		t.Errorf("sizes %d + %d", objs[0].Size, objs[1].Size)
	}
	if ok, err := st.Exists(ctx, "traces", "farm/none.tracy"); ok || err != nil {
		t.Errorf("Exists of a missing key: %v, %v", ok, err)
	}
}

// The server is killed in the middle of a multipart upload and comes back
// a few seconds later: the upload retries and completes, the object is
// the file, and the local file is still there.
func TestWeedKilledMidUpload(t *testing.T) {
	w := s3test.StartWeed(t)
	w.MakeBucket("traces")
	var parts atomic.Int32
	killed := make(chan struct{})
	var retries atomic.Int32
	st, err := w.Store(objstore.Config{PartSize: 5 << 20, RetryFor: 3 * time.Minute,
		Logf: func(string, ...any) { retries.Add(1) },
		OnPart: func(part, n int) {
			if parts.Add(1) == 2 {
				close(killed)
			}
		}})
	if err != nil {
		t.Fatal(err)
	}
	path, want := randomFile(t, 40<<20)
	done := make(chan error, 1)
	go func() { done <- st.Upload(context.Background(), path, "traces", "crash/big.tracy", nil) }()
	<-killed
	w.Kill()
	time.Sleep(2 * time.Second)
	w.Restart()
	if err := <-done; err != nil {
		t.Fatalf("upload after the restart: %v", err)
	}
	if retries.Load() == 0 {
		t.Error("no retry was logged: the server was not down during the upload")
	}
	if !bytes.Equal(download(t, st, "traces", "crash/big.tracy"), want) {
		t.Fatal("the stored object differs from the file")
	}
	if _, err := os.Stat(path); err != nil {
		t.Fatalf("local file: %v (Upload must never remove it)", err)
	}
}
