package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/gotracy/gotracy/capture"
	"github.com/gotracy/gotracy/daemon"
	"github.com/gotracy/gotracy/internal/fileio"
	"github.com/gotracy/gotracy/model"
	"github.com/gotracy/gotracy/objstore"
)

// Object-storage outputs (capture and daemon -o s3://BUCKET/PREFIX/): the
// trace is saved into a local spool directory first, then uploaded; the
// spooled file (and its .upload.json note of where it goes) is removed only
// once the store confirmed the object. A run that could not upload leaves
// both, and the next `gotracy daemon` with an s3:// output uploads them.

func init() {
	register(&command{
		name:    "ls",
		summary: "list the traces stored under an s3:// prefix: program, host, start, duration, size",
		usage:   "ls [--s3-endpoint URL] [--json] s3://BUCKET/PREFIX/",
		setup: func(fs *flag.FlagSet) func(*env, []string) error {
			s3 := addS3Flags(fs)
			asJSON := fs.Bool("json", false, "print one JSON object per trace")
			return func(e *env, args []string) error {
				if len(args) != 1 {
					return usagef("ls needs one s3://BUCKET/PREFIX/ address")
				}
				u, err := objstore.ParseURL(args[0])
				if err != nil {
					return usagef("%v", err)
				}
				st, err := s3.store(e)
				if err != nil {
					return err
				}
				ctx, cancel := context.WithTimeout(e.context(), 2*time.Minute)
				defer cancel()
				objs, err := st.List(ctx, u.Bucket, u.Key)
				if err != nil {
					return err
				}
				if *asJSON {
					enc := json.NewEncoder(e.stdout)
					for _, o := range objs {
						enc.Encode(map[string]any{"key": o.Key, "size": o.Size, "program": o.Program, "host": o.Host,
							"start": o.Start.Format(time.RFC3339), "duration_ns": o.Duration.Nanoseconds()})
					}
					return nil
				}
				tw := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
				fmt.Fprintln(tw, "KEY\tPROGRAM\tHOST\tSTART\tDURATION\tSIZE")
				for _, o := range objs {
					start, dur := "-", "-"
					if !o.Start.IsZero() {
						start = o.Start.UTC().Format("2006-01-02 15:04:05")
					}
					if o.Duration > 0 {
						dur = o.Duration.Round(time.Millisecond).String()
					}
					fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", o.Key, orDash(o.Program), orDash(o.Host), start, dur, memSize(o.Size))
				}
				return tw.Flush()
			}
		},
	})
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// s3Flags are the object-storage flags of capture, daemon, view and ls.
type s3Flags struct {
	endpoint *string
	spool    *string
}

func addS3Flags(fs *flag.FlagSet) *s3Flags {
	return &s3Flags{
		endpoint: fs.String("s3-endpoint", "", "S3-compatible endpoint `URL` (default $AWS_ENDPOINT_URL_S3, $AWS_ENDPOINT_URL, or Amazon S3); credentials from AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY"),
	}
}

func (f *s3Flags) addSpool(fs *flag.FlagSet) {
	f.spool = fs.String("spool", "", "with -o s3://: local `directory` traces wait in until their upload is confirmed (default: the user cache directory's gotracy/spool)")
}

func (f *s3Flags) store(e *env) (*objstore.Store, error) {
	return objstore.FromEnv(objstore.Config{Endpoint: *f.endpoint, Logf: func(format string, args ...any) {
		fmt.Fprintf(e.stderr, "gotracy: "+format+"\n", args...)
	}})
}

func (f *s3Flags) spoolDir() (string, error) {
	dir := ""
	if f.spool != nil {
		dir = *f.spool
	}
	if dir == "" {
		c, err := os.UserCacheDir()
		if err != nil {
			return "", fmt.Errorf("no spool directory for the uploads: %w (name one with --spool DIR)", err)
		}
		dir = filepath.Join(c, "gotracy", "spool")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("spool directory: %w", err)
	}
	return dir, nil
}

// pendingUpload is the note beside a spooled trace: where it goes.
type pendingUpload struct {
	URL  string            `json:"url"`
	Meta map[string]string `json:"meta"`
}

func notePath(local string) string { return local + ".upload.json" }

// traceMeta is the object metadata stored with an uploaded trace, what
// `gotracy ls` shows without downloading anything.
func traceMeta(t *model.Trace, host string) map[string]string {
	m := map[string]string{objstore.MetaProgram: t.Metadata.CaptureProgram,
		objstore.MetaDuration: strconv.FormatInt(t.Metadata.LastTime, 10)}
	if t.Metadata.CaptureTime != 0 {
		m[objstore.MetaStart] = time.Unix(int64(t.Metadata.CaptureTime), 0).UTC().Format(time.RFC3339)
	}
	for _, line := range strings.Split(t.Metadata.HostInfo, "\n") {
		if v, ok := strings.CutPrefix(line, "User: "); ok {
			if _, h, ok := strings.Cut(v, "@"); ok {
				h, _, _ = strings.Cut(h, " ")
				host = h
			}
		}
	}
	if host != "" {
		m[objstore.MetaHost] = host
	}
	return m
}

// spoolAndUpload writes the trace's note, uploads local to u and removes
// both once the store confirmed it. On failure both stay and the error
// names the local file.
func spoolAndUpload(ctx context.Context, e *env, st *objstore.Store, local string, u objstore.URL, meta map[string]string) error {
	if err := writeNote(ctx, local, u, meta); err != nil {
		return err
	}
	return uploadSpooled(ctx, e, st, local, u, meta)
}

// writeNote writes (or replaces) the note beside a spooled trace.
func writeNote(ctx context.Context, local string, u objstore.URL, meta map[string]string) error {
	note, _ := json.Marshal(pendingUpload{URL: u.String(), Meta: meta})
	if err := fileio.WriteFile(ctx, notePath(local), true, func(w io.Writer) error { _, err := w.Write(note); return err }); err != nil {
		return fmt.Errorf("spool note for %s: %w", local, err)
	}
	return nil
}

func uploadSpooled(ctx context.Context, e *env, st *objstore.Store, local string, u objstore.URL, meta map[string]string) error {
	if err := st.Upload(ctx, local, u.Bucket, u.Key, meta); err != nil {
		return err
	}
	os.Remove(local)
	os.Remove(notePath(local))
	fmt.Fprintf(e.stdout, "uploaded %s\n", u)
	return nil
}

// resumeSpool uploads what an earlier run left in dir.
func resumeSpool(ctx context.Context, e *env, st *objstore.Store, dir string) {
	notes, _ := filepath.Glob(filepath.Join(dir, "*.tracy.upload.json"))
	for _, n := range notes {
		b, err := os.ReadFile(n)
		var p pendingUpload
		if err == nil {
			err = json.Unmarshal(b, &p)
		}
		if err != nil {
			fmt.Fprintf(e.stderr, "gotracy: %s: %v (left as it is)\n", n, err)
			continue
		}
		u, err := objstore.ParseURL(p.URL)
		if err != nil {
			fmt.Fprintf(e.stderr, "gotracy: %s: %v (left as it is)\n", n, err)
			continue
		}
		local := strings.TrimSuffix(n, ".upload.json")
		if err := uploadSpooled(ctx, e, st, local, u, p.Meta); err != nil {
			fmt.Fprintf(e.stderr, "gotracy: %v\n", err)
		}
	}
}

// fetchS3 downloads an s3:// trace into a temporary file for `view`, and
// returns its path and the function removing it.
func fetchS3(e *env, s3 *s3Flags, addr string) (string, func(), error) {
	u, err := objstore.ParseURL(addr)
	if err != nil {
		return "", nil, usagef("%v", err)
	}
	if u.Key == "" || strings.HasSuffix(u.Key, "/") {
		return "", nil, usagef("view %s: want the address of one trace, s3://BUCKET/KEY.tracy (gotracy ls lists them)", addr)
	}
	st, err := s3.store(e)
	if err != nil {
		return "", nil, err
	}
	f, err := os.CreateTemp("", "gotracy-view-*.tracy")
	if err != nil {
		return "", nil, err
	}
	done := func() { os.Remove(f.Name()) }
	ctx, cancel := context.WithTimeout(e.context(), 30*time.Minute)
	defer cancel()
	_, err = st.Download(ctx, u.Bucket, u.Key, f)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		done()
		return "", nil, err
	}
	return f.Name(), done, nil
}

// captureUpload is capture's -o s3:// output.
type captureUpload struct {
	st    *objstore.Store
	u     objstore.URL
	spool string
	force bool
	k     *daemonSink
	sess  *daemon.Session // for a prefix: the name's parts
	name  string          // for a prefix: the spool file's name
}

// newCaptureUpload returns nil for a local output.
func newCaptureUpload(e *env, out string, force bool, f *s3Flags) (*captureUpload, error) {
	if !objstore.IsURL(out) {
		return nil, nil
	}
	u, err := objstore.ParseURL(out)
	if err != nil {
		return nil, usagef("%v", err)
	}
	st, err := f.store(e)
	if err != nil {
		return nil, err
	}
	spool, err := f.spoolDir()
	if err != nil {
		return nil, err
	}
	c := &captureUpload{st: st, u: u, spool: spool, force: force}
	if u.Key != "" && !strings.HasSuffix(u.Key, "/") && !force {
		ctx, cancel := context.WithTimeout(e.context(), 30*time.Second)
		defer cancel()
		ok, err := st.Exists(ctx, u.Bucket, u.Key)
		if err != nil {
			return nil, err
		}
		if ok {
			return nil, fmt.Errorf("%s already exists (-f replaces it)", u)
		}
	}
	c.k = &daemonSink{dir: spool, s3: st, s3URL: objstore.URL{Bucket: u.Bucket, Key: prefixOf(u.Key)}, taken: map[string]bool{}}
	return c, nil
}

func prefixOf(key string) string {
	if i := strings.LastIndexByte(key, '/'); i >= 0 {
		return key[:i+1]
	}
	return ""
}

// sink is where snapshots go (nil for a local capture).
func (c *captureUpload) sink() *daemonSink {
	if c == nil {
		return nil
	}
	return c.k
}

// local picks the spool file (and the object's key for a prefix).
func (c *captureUpload) local(res *capture.Result, addr string) string {
	if c.u.Key == "" || strings.HasSuffix(c.u.Key, "/") {
		host, port, _ := net.SplitHostPort(addr)
		p, _ := strconv.Atoi(port)
		ip := net.ParseIP(host)
		if ip == nil {
			ip = net.IPv4(127, 0, 0, 1)
		}
		c.sess = &daemon.Session{Client: daemon.Client{Program: res.Welcome.ProgramName, IP: ip, Port: p}}
		c.name = c.k.name(context.Background(), c.sess)
		return filepath.Join(c.spool, c.name)
	}
	f, _ := os.CreateTemp(c.spool, strings.TrimSuffix(filepath.Base(c.u.Key), ".tracy")+"_*.tracy")
	name := f.Name()
	f.Close()
	os.Remove(name)
	return name
}

func (c *captureUpload) upload(e *env, res *capture.Result, local string) error {
	// Only a second signal abandons the upload; the file stays either way.
	ctx := e.abortContext()
	meta := traceMeta(res.Trace, "")
	u := c.u
	var err error
	if c.sess != nil {
		// A prefix: the first name the store does not hold yet.
		if err = writeNote(ctx, local, c.k.objectURL(c.name), meta); err == nil {
			u, err = c.k.freeObject(ctx, e, c.sess, c.name)
		}
	}
	if err == nil {
		err = spoolAndUpload(ctx, e, c.st, local, u, meta)
	}
	if err != nil {
		return fmt.Errorf("%w; it will be uploaded by the next gotracy daemon with an s3:// output, or upload %s yourself", err, local)
	}
	return nil
}
