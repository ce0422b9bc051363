// Package objstore puts traces into S3-compatible object storage and reads
// them back, for `gotracy capture|daemon -o s3://bucket/prefix/`,
// `gotracy view s3://bucket/key.tracy` and `gotracy ls s3://bucket/prefix/`.
//
// Use:
//
//	st, err := objstore.FromEnv(objstore.Config{})     // AWS_* variables, endpoint from AWS_ENDPOINT_URL(_S3)
//	u, err := objstore.ParseURL("s3://traces/farm/")
//	err = st.Upload(ctx, "local.tracy", u.Bucket, u.Key+"local.tracy", meta) // multipart, resumed, confirmed
//	objs, err := st.List(ctx, u.Bucket, u.Key)
//
// Upload never deletes anything: the caller removes its local file only
// after Upload returned nil, which means the store answered a HEAD of the
// object with the local file's size. A failing part is retried with
// backoff, and parts already stored are not sent again (the multipart
// upload is resumed), until the policy's time runs out or ctx ends.
package objstore

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/minio/minio-go/v7"
	"github.com/minio/minio-go/v7/pkg/credentials"
)

// URL is a parsed s3://bucket/key (a key ending in '/' is a prefix).
type URL struct {
	Bucket, Key string
}

func (u URL) String() string { return "s3://" + u.Bucket + "/" + u.Key }

// IsURL tells whether s names object storage rather than a local path.
func IsURL(s string) bool { return strings.HasPrefix(s, "s3://") }

// URLError is an s3:// address that cannot be used.
type URLError struct {
	URL, Reason string
}

func (e *URLError) Error() string {
	return fmt.Sprintf("%q is not an object-storage address: want s3://BUCKET/KEY, %s", e.URL, e.Reason)
}

// ParseURL parses s3://bucket/key.
func ParseURL(s string) (URL, error) {
	if !IsURL(s) {
		return URL{}, &URLError{s, "it does not start with s3://"}
	}
	rest := strings.TrimPrefix(s, "s3://")
	bucket, key, _ := strings.Cut(rest, "/")
	if bucket == "" {
		return URL{}, &URLError{s, "the bucket is empty"}
	}
	if len(bucket) < 3 || len(bucket) > 63 || strings.ContainsAny(bucket, " _?#") {
		return URL{}, &URLError{s, fmt.Sprintf("bucket %q is not a valid bucket name (3 to 63 lower-case letters, digits, '.' or '-')", bucket)}
	}
	return URL{Bucket: bucket, Key: key}, nil
}

// Config says how to reach the store. Empty fields come from the
// environment (FromEnv).
type Config struct {
	// Endpoint is a URL (http://127.0.0.1:8333) or host:port (https). Empty:
	// AWS_ENDPOINT_URL_S3, then AWS_ENDPOINT_URL, then Amazon S3.
	Endpoint string
	// Region: AWS_REGION, AWS_DEFAULT_REGION, or none (the store's default).
	Region string
	// PartSize is the multipart part size (default 16 MiB; S3's minimum is
	// 5 MiB for every part but the last). Files up to one part are sent in
	// one PUT.
	PartSize int64
	// RetryFor bounds how long one Upload keeps retrying a failing store
	// (default 10 minutes; ctx may end it sooner).
	RetryFor time.Duration
	// Logf, when set, receives one line per retry.
	Logf func(format string, args ...any)
	// OnPart, when set, is called after each part of a multipart upload
	// is stored (progress; the tests stop the server mid-upload with it).
	OnPart func(part, parts int)
}

// Store is a connection to one S3-compatible endpoint.
type Store struct {
	core minio.Core
	cfg  Config
}

// ErrNoCredentials: none of the usual variables or files gave a key.
var ErrNoCredentials = errors.New("no object-storage credentials: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (or AWS_PROFILE with ~/.aws/credentials)")

// FromEnv connects as the AWS tools do: credentials from AWS_ACCESS_KEY_ID,
// AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN, or the shared credentials file
// (AWS_PROFILE); endpoint and region from cfg or the variables above.
func FromEnv(cfg Config) (*Store, error) {
	if cfg.Endpoint == "" {
		cfg.Endpoint = firstEnv("AWS_ENDPOINT_URL_S3", "AWS_ENDPOINT_URL")
	}
	if cfg.Region == "" {
		cfg.Region = firstEnv("AWS_REGION", "AWS_DEFAULT_REGION")
	}
	if cfg.PartSize <= 0 {
		cfg.PartSize = 16 << 20
	}
	if cfg.RetryFor <= 0 {
		cfg.RetryFor = 10 * time.Minute
	}
	if cfg.Logf == nil {
		cfg.Logf = func(string, ...any) {}
	}
	host, secure := "s3.amazonaws.com", true
	lookup := minio.BucketLookupAuto
	if cfg.Endpoint != "" {
		u, err := url.Parse(cfg.Endpoint)
		if err != nil || u.Host == "" {
			host = cfg.Endpoint // host:port
		} else {
			host, secure = u.Host, u.Scheme != "http"
		}
		// Self-hosted stores (SeaweedFS, MinIO, Ceph) rarely have the
		// wildcard DNS virtual-host buckets need.
		lookup = minio.BucketLookupPath
	}
	creds := credentials.NewChainCredentials([]credentials.Provider{
		&credentials.EnvAWS{},
		&credentials.FileAWSCredentials{},
	})
	if v, err := creds.GetWithContext(nil); err != nil || v.AccessKeyID == "" {
		return nil, ErrNoCredentials
	}
	c, err := minio.NewCore(host, &minio.Options{Creds: creds, Secure: secure, Region: cfg.Region,
		BucketLookup: lookup, MaxRetries: 2})
	if err != nil {
		return nil, fmt.Errorf("objstore: endpoint %q: %w", cfg.Endpoint, err)
	}
	return &Store{core: *c, cfg: cfg}, nil
}

func firstEnv(names ...string) string {
	for _, n := range names {
		if v := os.Getenv(n); v != "" {
			return v
		}
	}
	return ""
}

// Client is the underlying minio client (tests create buckets with it).
func (s *Store) Client() *minio.Client { return s.core.Client }

// Metadata keys stored with every uploaded trace, read back by List.
const (
	MetaProgram  = "Gotracy-Program"
	MetaHost     = "Gotracy-Host"
	MetaStart    = "Gotracy-Start"    // RFC 3339, the client's capture time
	MetaDuration = "Gotracy-Duration" // nanoseconds of trace
)

// UploadError is an upload that did not complete within the retry policy
// or before ctx ended. The local file is untouched.
type UploadError struct {
	Path, URL string
	Tries     int
	Err       error
}

func (e *UploadError) Error() string {
	return fmt.Sprintf("uploading %s to %s: gave up after %d attempts: %v (the local file was kept)", e.Path, e.URL, e.Tries, e.Err)
}
func (e *UploadError) Unwrap() error { return e.Err }

// Upload stores the file at path as bucket/key with the given user
// metadata, and returns nil only once the store reports the object with
// the file's size.
func (s *Store) Upload(ctx context.Context, path, bucket, key string, meta map[string]string) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("objstore: %w", err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return fmt.Errorf("objstore: %w", err)
	}
	size := st.Size()
	u := &uploader{s: s, f: f, size: size, bucket: bucket, key: key,
		opts:     minio.PutObjectOptions{UserMetadata: meta, ContentType: "application/octet-stream"},
		deadline: time.Now().Add(s.cfg.RetryFor)}
	if size <= s.cfg.PartSize {
		err = u.retry(ctx, "upload", func() error {
			_, err := s.core.PutObject(ctx, bucket, key, io.NewSectionReader(f, 0, size), size, "", "", u.opts)
			return err
		})
	} else {
		err = u.multipart(ctx)
	}
	if err == nil {
		err = u.retry(ctx, "confirm", func() error {
			info, err := s.core.StatObject(ctx, bucket, key, minio.StatObjectOptions{})
			if err != nil {
				return err
			}
			if info.Size != size {
				return fmt.Errorf("the store holds %d bytes, the file has %d", info.Size, size)
			}
			return nil
		})
	}
	if err != nil {
		return &UploadError{Path: path, URL: URL{bucket, key}.String(), Tries: u.tries, Err: err}
	}
	return nil
}

type uploader struct {
	s           *Store
	f           *os.File
	size        int64
	bucket, key string
	opts        minio.PutObjectOptions
	deadline    time.Time
	tries       int
}

// errRestart: the store forgot the multipart upload (NoSuchUpload, as
// after losing its state); start a new one.
var errRestart = errors.New("multipart upload unknown to the store")

// retry runs op until it succeeds, ctx ends or the policy's time is up,
// waiting 0.25 s, 0.5 s, ... up to 5 s between attempts.
func (u *uploader) retry(ctx context.Context, what string, op func() error) error {
	wait := 250 * time.Millisecond
	for {
		u.tries++
		err := op()
		if err == nil || errors.Is(err, errRestart) {
			return err
		}
		if ctx.Err() != nil {
			return fmt.Errorf("%w (last error: %v)", ctx.Err(), err)
		}
		if time.Now().Add(wait).After(u.deadline) {
			return err
		}
		if r := minio.ToErrorResponse(err); r.Code == "NoSuchBucket" || r.Code == "AccessDenied" || r.Code == "InvalidAccessKeyId" || r.Code == "SignatureDoesNotMatch" {
			return err // retrying cannot help
		}
		u.s.cfg.Logf("%s s3://%s/%s: %v; retrying in %v", what, u.bucket, u.key, err, wait)
		select {
		case <-ctx.Done():
			return fmt.Errorf("%w (last error: %v)", ctx.Err(), err)
		case <-time.After(wait):
		}
		wait = min(wait*2, 5*time.Second)
	}
}

func (u *uploader) multipart(ctx context.Context) error {
	for {
		err := u.multipartOnce(ctx)
		if !errors.Is(err, errRestart) {
			return err
		}
		u.s.cfg.Logf("upload s3://%s/%s: the store lost the multipart upload; starting again", u.bucket, u.key)
	}
}

func (u *uploader) multipartOnce(ctx context.Context) error {
	core := u.s.core
	var id string
	if err := u.retry(ctx, "start upload", func() error {
		var err error
		id, err = core.NewMultipartUpload(ctx, u.bucket, u.key, u.opts)
		return err
	}); err != nil {
		return err
	}
	ps := u.s.cfg.PartSize
	n := int((u.size + ps - 1) / ps)
	parts := make([]minio.CompletePart, n)
	for i := range n {
		off := int64(i) * ps
		sz := min(ps, u.size-off)
		err := u.retry(ctx, fmt.Sprintf("part %d/%d", i+1, n), func() error {
			p, err := core.PutObjectPart(ctx, u.bucket, u.key, id, i+1, io.NewSectionReader(u.f, off, sz), sz, minio.PutObjectPartOptions{})
			if err != nil {
				if minio.ToErrorResponse(err).Code == "NoSuchUpload" {
					return errRestart
				}
				return err
			}
			parts[i] = minio.CompletePart{PartNumber: i + 1, ETag: p.ETag}
			if u.s.cfg.OnPart != nil {
				u.s.cfg.OnPart(i+1, n)
			}
			return nil
		})
		if err != nil {
			if !errors.Is(err, errRestart) {
				// Leave nothing half-uploaded behind when giving up for good.
				actx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
				core.AbortMultipartUpload(actx, u.bucket, u.key, id)
				cancel()
			}
			return err
		}
	}
	return u.retry(ctx, "complete upload", func() error {
		_, err := core.CompleteMultipartUpload(ctx, u.bucket, u.key, id, parts, u.opts)
		if err != nil && minio.ToErrorResponse(err).Code == "NoSuchUpload" {
			// Either completed by an attempt whose answer was lost, or
			// forgotten by the store: the object's size decides.
			if info, serr := core.StatObject(ctx, u.bucket, u.key, minio.StatObjectOptions{}); serr == nil && info.Size == u.size {
				return nil
			}
			return errRestart
		}
		return err
	})
}

// Object is one stored trace as List sees it.
type Object struct {
	Key      string
	Size     int64
	Modified time.Time
	// From the metadata Upload stored; empty for objects stored otherwise.
	Program, Host string
	Start         time.Time
	Duration      time.Duration
}

// List returns the objects under prefix (recursively), with the metadata
// Upload stored (one HEAD per object).
func (s *Store) List(ctx context.Context, bucket, prefix string) ([]Object, error) {
	var out []Object
	for o := range s.core.Client.ListObjects(ctx, bucket, minio.ListObjectsOptions{Prefix: prefix, Recursive: true}) {
		if o.Err != nil {
			return out, fmt.Errorf("objstore: listing s3://%s/%s: %w", bucket, prefix, o.Err)
		}
		obj := Object{Key: o.Key, Size: o.Size, Modified: o.LastModified}
		info, err := s.core.StatObject(ctx, bucket, o.Key, minio.StatObjectOptions{})
		if err != nil {
			return out, fmt.Errorf("objstore: reading the metadata of s3://%s/%s: %w", bucket, o.Key, err)
		}
		obj.Program = info.UserMetadata[MetaProgram]
		obj.Host = info.UserMetadata[MetaHost]
		if t, err := time.Parse(time.RFC3339, info.UserMetadata[MetaStart]); err == nil {
			obj.Start = t
		}
		if d, err := time.ParseDuration(info.UserMetadata[MetaDuration] + "ns"); err == nil {
			obj.Duration = d
		}
		out = append(out, obj)
	}
	return out, nil
}

// Exists tells whether bucket/key holds an object.
func (s *Store) Exists(ctx context.Context, bucket, key string) (bool, error) {
	_, err := s.core.StatObject(ctx, bucket, key, minio.StatObjectOptions{})
	if err == nil {
		return true, nil
	}
	if c := minio.ToErrorResponse(err).Code; c == "NoSuchKey" || c == "NotFound" {
		return false, nil
	}
	return false, fmt.Errorf("objstore: s3://%s/%s: %w", bucket, key, err)
}

// Download writes bucket/key to w.
func (s *Store) Download(ctx context.Context, bucket, key string, w io.Writer) (int64, error) {
	r, _, _, err := s.core.GetObject(ctx, bucket, key, minio.GetObjectOptions{})
	if err != nil {
		return 0, fmt.Errorf("objstore: s3://%s/%s: %w", bucket, key, err)
	}
	defer r.Close()
	n, err := io.Copy(w, r)
	if err != nil {
		return n, fmt.Errorf("objstore: downloading s3://%s/%s: %w", bucket, key, err)
	}
	return n, nil
}
