package container

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/gotracy/gotracy/internal/fixtures"
	"github.com/gotracy/gotracy/internal/race"
	"github.com/klauspost/compress/zstd"
)

// payloadHeader is the first 8 payload bytes of a 0.14.0 file.
var payloadHeader = []byte{'t', 'r', 'a', 'c', 'y', 0, 14, 0}

// fixtureNames are the fixtures a test reads; the 260 MB payload of
// heavy10m is left out under -race, where it takes minutes.
func fixtureNames() []string {
	if race.Enabled {
		return []string{"demo", "demo-ondemand", "heavy1m"}
	}
	return fixtures.Recordings
}

// fixturePayloads caches decoded fixture payloads across tests.
var fixturePayloads sync.Map

func fixturePayload(t testing.TB, name string) []byte {
	t.Helper()
	if v, ok := fixturePayloads.Load(name); ok {
		return v.([]byte)
	}
	r, err := Open(fixtures.Path(t, name+".tracy"))
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	b, err := io.ReadAll(r)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	fixturePayloads.Store(name, b)
	return b
}

func TestFixtures(t *testing.T) {
	for _, name := range fixtureNames() {
		t.Run(name, func(t *testing.T) {
			path := fixtures.Path(t, name+".tracy")
			payload := fixturePayload(t, name)
			raw, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(raw[:4], []byte{'t', 'r', 0xFD, 'P'}) {
				t.Fatalf("fixture magic % x", raw[:4])
			}
			r, err := NewReaderBytes(raw)
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			h := r.Header()
			// tracy-capture writes Zstd with 4 streams (fixtures README).
			if h.Compression != Zstd || h.Streams != 4 || h.Legacy || h.Form != FormMultiStream || h.DataOffset != 6 {
				t.Errorf("header %+v, want Zstd, 4 streams, tr\\xFDP", h)
			}
			if !bytes.Equal(payload[:8], payloadHeader) {
				t.Errorf("payload starts % x, want % x", payload[:8], payloadHeader)
			}
			// Every block but the last is 64 KiB: the length fixes the
			// chunk count.
			if c := r.Chunks(); int64(len(payload)) <= int64(c-1)*BlockSize || int64(len(payload)) > int64(c)*BlockSize {
				t.Errorf("%d payload bytes do not fill %d chunks of 64 KiB", len(payload), c)
			}
			// The three ways in (mapped, ReadAt, in memory) agree.
			sum := sha256.Sum256(payload)
			r2, err := Open(path, WithoutMmap())
			if err != nil {
				t.Fatal(err)
			}
			defer r2.Close()
			for i, rd := range []*Reader{r, r2} {
				h := sha256.New()
				if _, err := io.Copy(h, rd); err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(h.Sum(nil), sum[:]) {
					t.Errorf("reader %d decodes different bytes from Open", i)
				}
			}
		})
	}
}

// genPayload makes n bytes that mix incompressible runs, repeats and text,
// so both the raw and the compressed code paths of each codec are taken.
func genPayload(seed uint64, n int) []byte {
	rng := rand.New(rand.NewPCG(seed, 7))
	b := make([]byte, 0, n)
	for len(b) < n {
		k := min(n-len(b), 1+rng.IntN(20000))
		switch rng.IntN(4) {
		case 0:
			for range k {
				b = append(b, byte(rng.Uint32()))
			}
		case 1:
			b = append(b, bytes.Repeat([]byte{byte(rng.Uint32())}, k)...)
		case 2:
			for len(b) < cap(b) && k > 0 {
				s := fmt.Sprintf("zone %d thread %d ", rng.IntN(100), rng.IntN(8))
				s = s[:min(len(s), k)]
				b = append(b, s...)
				k -= len(s)
			}
		default:
			if len(b) > 0 { // copy from earlier: long-distance matches
				off := rng.IntN(len(b))
				k = min(k, len(b)-off)
				b = append(b, b[off:off+k]...)
			}
		}
	}
	return b[:n]
}

type codec struct {
	name string
	opt  WriteOption
	comp Compression
}

var codecs = []codec{
	{"lz4", WithLZ4(), LZ4},
	{"lz4hc", WithLZ4HC(), LZ4},
	{"zstd1", WithZstd(1), Zstd},
	{"zstd3", WithZstd(3), Zstd},
	{"zstd19", WithZstd(19), Zstd},
	{"zstd3tracy", tracyZstd(3), Zstd},
}

// tracyZstd is Zstd at level in the layout the real tools write (one
// never-ended frame per stream, no checksum).
func tracyZstd(level int) WriteOption {
	return writeOptionFunc(func(c *writeConfig) error {
		if err := WithZstd(level).applyWrite(c); err != nil {
			return err
		}
		return withTracyZstdLayout().applyWrite(c)
	})
}

func write(t testing.TB, payload []byte, opts ...WriteOption) []byte {
	t.Helper()
	var out bytes.Buffer
	w, err := NewWriter(&out, opts...)
	if err != nil {
		t.Fatal(err)
	}
	// Uneven writes cross block boundaries in every way.
	for p, i := payload, 0; len(p) > 0; i++ {
		k := min(len(p), []int{1, 7, 65536, 100000, 3}[i%5])
		if n, err := w.Write(p[:k]); err != nil || n != k {
			t.Fatalf("Write: %d, %v", n, err)
		}
		p = p[k:]
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if pl, file := w.Stats(); pl != int64(len(payload)) || file != int64(out.Len()) {
		t.Errorf("Stats %d, %d; want %d, %d", pl, file, len(payload), out.Len())
	}
	return out.Bytes()
}

func readAll(t testing.TB, file []byte, opts ...ReadOption) []byte {
	t.Helper()
	r, err := NewReaderBytes(file, opts...)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	b, err := io.ReadAll(r)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestRoundTrip(t *testing.T) {
	big := 5 << 20
	if race.Enabled {
		big = 1 << 20
	}
	sizes := []int{0, 1, 65535, 65536, 65537, 4*65536 + 17, big}
	for _, c := range codecs {
		for _, streams := range []int{1, 4, 16, 64} {
			if race.Enabled && (streams == 4 || streams == 64) {
				continue
			}
			for _, n := range sizes {
				if c.name == "zstd19" && n == big && (streams > 4 || race.Enabled) {
					continue // slow and adds nothing over 4 streams
				}
				t.Run(fmt.Sprintf("%s/%d/%d", c.name, streams, n), func(t *testing.T) {
					payload := genPayload(uint64(n+streams), n)
					file := write(t, payload, c.opt, WithStreams(streams))
					if want := []byte{'t', 'r', 0xFD, 'P', byte(c.comp), byte(streams)}; !bytes.Equal(file[:6], want) {
						t.Fatalf("header % x, want % x", file[:6], want)
					}
					if got := readAll(t, file); !bytes.Equal(got, payload) {
						t.Fatalf("read back %d bytes, differ from the %d written", len(got), len(payload))
					}
				})
			}
		}
	}
}

// TestChunkLayout checks the framing against the format independently of the
// Reader: chunk i holds block i, every chunk but the last decodes to 64 KiB.
func TestChunkLayout(t *testing.T) {
	payload := genPayload(1, 10*65536+5)
	file := write(t, payload, WithLZ4(), WithStreams(3))
	var sizes []int
	for off := 6; off < len(file); {
		n := int(binary.LittleEndian.Uint32(file[off:]))
		if n == 0 || n > MaxChunkSize {
			t.Fatalf("chunk size %d", n)
		}
		sizes = append(sizes, n)
		off += 4 + n
	}
	if len(sizes) != 11 {
		t.Fatalf("%d chunks, want 11", len(sizes))
	}
}

func TestRewriteFixture(t *testing.T) {
	names := []string{"demo", "heavy1m"}
	if race.Enabled {
		names = names[:1]
	}
	for _, name := range names {
		payload := fixturePayload(t, name)
		if race.Enabled {
			payload = payload[:1<<20]
		}
		for _, cfg := range []struct {
			name string
			opts []WriteOption
		}{
			{"lz4x4", []WriteOption{WithLZ4(), WithStreams(4)}},
			{"lz4hcx1", []WriteOption{WithLZ4HC(), WithStreams(1)}},
			{"zstd1x16", []WriteOption{WithZstd(1), WithStreams(16)}},
			{"zstd19x2", []WriteOption{WithZstd(19), WithStreams(2)}},
			{"zstd3x64", []WriteOption{WithZstd(3), WithStreams(64)}},
		} {
			t.Run(name+"/"+cfg.name, func(t *testing.T) {
				file := write(t, payload, cfg.opts...)
				if got := readAll(t, file); !bytes.Equal(got, payload) {
					t.Fatalf("rewritten payload reads back different")
				}
			})
		}
	}
}

// legacy rewraps a one-stream container in a legacy magic.
func legacy(file []byte, magic string) []byte {
	return append([]byte(magic), file[6:]...)
}

func TestLegacyForms(t *testing.T) {
	payload := genPayload(3, 3*65536+100)
	for _, tc := range []struct {
		magic string
		opt   WriteOption
		form  Form
		comp  Compression
	}{
		{"tlZ\x04", WithLZ4(), FormLegacyLZ4, LZ4},
		{"tZst", WithZstd(3), FormLegacyZstd, Zstd},
	} {
		file := legacy(write(t, payload, tc.opt, WithStreams(1)), tc.magic)
		r, err := NewReaderBytes(file)
		if err != nil {
			t.Fatal(err)
		}
		if h := r.Header(); h.Form != tc.form || h.Compression != tc.comp || h.Streams != 1 || !h.Legacy || h.DataOffset != 4 {
			t.Errorf("%q: header %+v", tc.magic, h)
		}
		got, err := io.ReadAll(r)
		r.Close()
		if err != nil || !bytes.Equal(got, payload) {
			t.Errorf("%q: read %d bytes, %v", tc.magic, len(got), err)
		}
	}
}

// classify reads a whole file and returns the error, checking it is typed.
func readErr(t *testing.T, file []byte) (n int64, err error) {
	t.Helper()
	r, err := NewReaderBytes(file)
	if err == nil {
		n, err = io.Copy(io.Discard, r)
		r.Close()
	}
	if err != nil && !errors.Is(err, ErrNotTrace) && !errors.Is(err, ErrCorrupt) {
		t.Errorf("untyped error: %v", err)
	}
	if errors.Is(err, ErrTruncated) && !errors.Is(err, ErrCorrupt) {
		t.Errorf("ErrTruncated without ErrCorrupt: %v", err)
	}
	return n, err
}

func corruptAt(t *testing.T, err error, off int64) {
	t.Helper()
	var ce *CorruptError
	if !errors.As(err, &ce) {
		t.Fatalf("error %v is not a *CorruptError", err)
	}
	if ce.Offset != off {
		t.Errorf("error at offset %d, want %d: %v", ce.Offset, off, err)
	}
}

func TestHeaderErrors(t *testing.T) {
	one := write(t, []byte("tracy payload"), WithZstd(3), WithStreams(1))
	for _, tc := range []struct {
		name string
		file []byte
		want error
		off  int64 // for CorruptError; -1 otherwise
	}{
		{"empty", nil, ErrNotTrace, -1},
		{"3 bytes", []byte("tr\xFD"), ErrNotTrace, -1},
		{"bad magic", []byte("tracy\x00\x0e\x00 not a container"), ErrNotTrace, -1},
		{"zip", []byte("PK\x03\x04...."), ErrNotTrace, -1},
		{"type 2", append([]byte("tr\xFDP\x02\x01"), one[6:]...), ErrNotTrace, -1},
		{"no type", []byte("tr\xFDP"), ErrTruncated, 4},
		{"no streams", []byte("tr\xFDP\x01"), ErrTruncated, 5},
		{"0 streams", append([]byte("tr\xFDP\x01\x00"), one[6:]...), ErrCorrupt, 5},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := readErr(t, tc.file)
			if !errors.Is(err, tc.want) {
				t.Fatalf("got %v, want %v", err, tc.want)
			}
			if tc.off >= 0 {
				corruptAt(t, err, tc.off)
			}
		})
	}
}

// TestHeaderOnly: a writer given no payload writes only the header, as
// Tracy's FileWrite would; it reads back as an empty payload (the payload
// layer then reports the missing payload header).
func TestHeaderOnly(t *testing.T) {
	file := write(t, nil, WithLZ4(), WithStreams(2))
	if len(file) != 6 {
		t.Fatalf("%d bytes", len(file))
	}
	if n, err := readErr(t, file); n != 0 || err != nil {
		t.Fatalf("%d bytes, %v", n, err)
	}
}

func TestFramingErrors(t *testing.T) {
	payload := genPayload(9, 5*65536+333)
	for _, c := range []codec{codecs[0], codecs[3], codecs[5]} {
		file := write(t, payload, c.opt, WithStreams(2))
		// Chunk offsets.
		var offs []int
		for off := 6; off < len(file); off += 4 + int(binary.LittleEndian.Uint32(file[off:])) {
			offs = append(offs, off)
		}
		mut := func(f func(b []byte) []byte) []byte { return f(bytes.Clone(file)) }
		t.Run(c.name, func(t *testing.T) {
			cases := []struct {
				name string
				file []byte
				want error
				off  int
			}{
				{"size 0", mut(func(b []byte) []byte { binary.LittleEndian.PutUint32(b[offs[2]:], 0); return b }), ErrCorrupt, offs[2]},
				{"size too big", mut(func(b []byte) []byte { binary.LittleEndian.PutUint32(b[offs[3]:], MaxChunkSize+1); return b }), ErrCorrupt, offs[3]},
				{"size past end", mut(func(b []byte) []byte { binary.LittleEndian.PutUint32(b[offs[5]:], uint32(len(b)-offs[5])); return b }), ErrTruncated, offs[5]},
				{"1 trailing byte", append(bytes.Clone(file), 0), ErrTruncated, len(file)},
				{"3 trailing bytes", append(bytes.Clone(file), 1, 2, 3), ErrTruncated, len(file)},
				// The garbage parses as a chunk, so the real last chunk is no
				// longer last and is too short.
				{"trailing garbage chunk", append(bytes.Clone(file), 4, 0, 0, 0, 0xde, 0xad, 0xbe, 0xef), ErrCorrupt, offs[len(offs)-1]},
				{"chunk swapped", mut(func(b []byte) []byte {
					// swap chunks 1 and 2 (different streams): sizes stay
					// valid, the decoders see foreign data.
					c1 := bytes.Clone(b[offs[1]:offs[2]])
					c2 := bytes.Clone(b[offs[2]:offs[3]])
					return append(append(append(b[:offs[1]:offs[1]], c2...), c1...), file[offs[3]:]...)
				}), ErrCorrupt, offs[1]},
			}
			for _, tc := range cases {
				if c.name != "zstd3tracy" && tc.name == "chunk swapped" {
					// Our LZ4 blocks and Zstd frames are independent: a
					// swap decodes, to a permuted payload only the payload
					// parser can catch. Tracy's continuous Zstd streams
					// make the decoders see foreign data.
					continue
				}
				t.Run(tc.name, func(t *testing.T) {
					_, err := readErr(t, tc.file)
					if !errors.Is(err, tc.want) {
						t.Fatalf("got %v, want %v", err, tc.want)
					}
					corruptAt(t, err, int64(tc.off))
				})
			}
		})
	}
}

// TestShortBlocks: a file whose non-final blocks are shorter than 64 KiB
// loads silently wrong in real Tracy (trap 1); here it is an error.
func TestShortBlocks(t *testing.T) {
	payload := genPayload(4, 100000)
	for _, c := range []codec{codecs[0], codecs[3]} {
		var out bytes.Buffer
		out.Write([]byte{'t', 'r', 0xFD, 'P', byte(c.comp), 1})
		var comp blockCompressor
		if c.comp == LZ4 {
			comp = &lz4FastComp{}
		} else {
			comp = newZstdStreamCompressor(3, 1<<21)
		}
		for p := payload; len(p) > 0; {
			k := min(len(p), 32768)
			chunk, err := comp.compress(make([]byte, 0, MaxChunkSize), p[:k])
			if err != nil {
				t.Fatal(err)
			}
			binary.Write(&out, binary.LittleEndian, uint32(len(chunk)))
			out.Write(chunk)
			p = p[k:]
		}
		_, err := readErr(t, out.Bytes())
		if !errors.Is(err, ErrCorrupt) {
			t.Fatalf("%s: got %v, want ErrCorrupt", c.name, err)
		}
		corruptAt(t, err, 6)
	}
}

func TestTruncatedEverywhere(t *testing.T) {
	payload := genPayload(5, 3*65536+4000)
	for _, c := range []codec{codecs[0], codecs[3]} {
		file := write(t, payload, c.opt, WithStreams(2))
		bounds := map[int]bool{}
		for off := 6; off <= len(file); off += 4 + int(binary.LittleEndian.Uint32(file[min(off, len(file)-4):])) {
			bounds[off] = true
			if off == len(file) {
				break
			}
		}
		// Every cut near the header and the chunk boundaries, and a sample
		// of the rest.
		cuts := map[int]bool{}
		for i := range 64 {
			cuts[i] = true
		}
		for b := range bounds {
			for d := -6; d <= 6; d++ {
				if b+d >= 0 && b+d < len(file) {
					cuts[b+d] = true
				}
			}
		}
		rng := rand.New(rand.NewPCG(5, 5))
		for range 300 {
			cuts[rng.IntN(len(file))] = true
		}
		for cut := range cuts {
			n, err := readErr(t, file[:cut])
			switch {
			case cut < 4:
				if !errors.Is(err, ErrNotTrace) {
					t.Fatalf("%s cut %d: %v", c.name, cut, err)
				}
			case bounds[cut]:
				// A cut between chunks leaves a valid, shorter container;
				// only the payload parser can tell.
				if err != nil || !bytes.Equal(payload[:n], readAll(t, file[:cut])) {
					t.Fatalf("%s cut at chunk boundary %d: %d, %v", c.name, cut, n, err)
				}
			default:
				if !errors.Is(err, ErrTruncated) {
					t.Fatalf("%s cut %d: %v, want ErrTruncated", c.name, cut, err)
				}
			}
		}
	}
}

// TestZstdWindowLimit: a window above 2^27 aborts the real tools; it is
// rejected before the decoder allocates it.
func TestZstdWindowLimit(t *testing.T) {
	file := write(t, genPayload(6, 200000), tracyZstd(3), WithStreams(1))
	// Frame header of chunk 0: magic at 10, FHD at 14, window at 15.
	if binary.LittleEndian.Uint32(file[10:]) != zstdMagic || file[14]&0x20 != 0 {
		t.Fatalf("unexpected frame header % x", file[10:16])
	}
	file[15] = (28 - 10) << 3
	_, err := readErr(t, file)
	if !errors.Is(err, ErrCorrupt) {
		t.Fatalf("got %v", err)
	}
	corruptAt(t, err, 6)
}

// hostileWindows builds a tiny file: streams streams, each one chunk of a
// Zstd frame declaring a 2^27 window and one RLE block of 64 KiB.
func hostileWindows(streams int) []byte {
	b := []byte{'t', 'r', 0xFD, 'P', 1, byte(streams)}
	for i := range streams {
		size := BlockSize
		if i == streams-1 {
			size = 100
		}
		chunk := binary.LittleEndian.AppendUint32(nil, zstdMagic)
		chunk = append(chunk, 0x00, (27-10)<<3) // FHD: nothing; window 2^27
		bh := uint32(size)<<3 | 1<<1 | 1        // RLE, last block
		chunk = append(chunk, byte(bh), byte(bh>>8), byte(bh>>16), 'a'+byte(i%26))
		b = binary.LittleEndian.AppendUint32(b, uint32(len(chunk)))
		b = append(b, chunk...)
	}
	return b
}

// TestHostileWindowsMemory: 255 streams declaring 128 MiB windows would make
// the decoders allocate 32 GiB; lowering the windows to what each stream
// can hold keeps it small.
func TestHostileWindowsMemory(t *testing.T) {
	file := hostileWindows(255)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	n, err := readErr(t, file)
	runtime.ReadMemStats(&after)
	if err != nil || n != 254*BlockSize+100 {
		t.Fatalf("%d bytes, %v", n, err)
	}
	if a := after.TotalAlloc - before.TotalAlloc; a > 512<<20 {
		t.Errorf("allocated %d MiB for a %d-byte file", a>>20, len(file))
	}
}

// TestMutations flips bytes all over small files: every outcome is a clean
// read or a typed error, never a panic or a hang.
func TestMutations(t *testing.T) {
	payload := genPayload(8, 2*65536+999)
	rng := rand.New(rand.NewPCG(1, 2))
	for _, c := range []codec{codecs[0], codecs[3]} {
		file := write(t, payload, c.opt, WithStreams(3))
		rounds := 2000
		if race.Enabled {
			rounds = 300
		}
		for range rounds {
			m := bytes.Clone(file)
			for range 1 + rng.IntN(3) {
				m[rng.IntN(len(m))] ^= byte(1 + rng.IntN(255))
			}
			readErr(t, m)
		}
	}
}

func TestProgress(t *testing.T) {
	payload := genPayload(10, 20*65536+5)
	var wdone, wtotal []int64
	var out bytes.Buffer
	w, err := NewWriter(&out, WithZstd(1), WithStreams(3), WithSizeHint(int64(len(payload))),
		WithProgress(func(d, tot int64) { wdone, wtotal = append(wdone, d), append(wtotal, tot) }))
	if err != nil {
		t.Fatal(err)
	}
	w.Write(payload)
	w.Close()
	checkProgress(t, "write", wdone, wtotal, int64(len(payload)))

	var rdone, rtotal []int64
	r, err := NewReaderBytes(out.Bytes(), WithProgress(func(d, tot int64) { rdone, rtotal = append(rdone, d), append(rtotal, tot) }))
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, r)
	r.Close()
	checkProgress(t, "read", rdone, rtotal, int64(out.Len()))
}

func checkProgress(t *testing.T, what string, done, total []int64, want int64) {
	t.Helper()
	if len(done) < 10 {
		t.Fatalf("%s: %d progress calls", what, len(done))
	}
	for i := range done {
		if total[i] != want || done[i] < 0 || done[i] > want || (i > 0 && done[i] < done[i-1]) {
			t.Fatalf("%s: call %d: %d/%d (want total %d, non-decreasing)", what, i, done[i], total[i], want)
		}
	}
	if done[len(done)-1] != want {
		t.Errorf("%s: last call %d, want %d", what, done[len(done)-1], want)
	}
}

// TestCloseEarly: closing mid-read stops every stream goroutine.
func TestCloseEarly(t *testing.T) {
	file := write(t, genPayload(11, 40*65536), WithLZ4(), WithStreams(16))
	before := runtime.NumGoroutine()
	for range 20 {
		r, err := NewReaderBytes(file, WithReadAhead(1))
		if err != nil {
			t.Fatal(err)
		}
		var b [100]byte
		r.Read(b[:])
		if err := r.Close(); err != nil {
			t.Fatal(err)
		}
		if _, err := r.Read(b[:]); !errors.Is(err, ErrClosed) {
			t.Fatalf("Read after Close: %v", err)
		}
	}
	deadline := time.Now().Add(5 * time.Second)
	for runtime.NumGoroutine() > before && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if g := runtime.NumGoroutine(); g > before {
		t.Errorf("%d goroutines after Close, %d before", g, before)
	}
}

func TestOpenPaths(t *testing.T) {
	payload := genPayload(12, 3*65536+1)
	dir := t.TempDir()
	p := filepath.Join(dir, "a.tracy")
	if err := os.WriteFile(p, write(t, payload, WithZstd(3)), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, opts := range [][]ReadOption{nil, {WithoutMmap()}} {
		r, err := Open(p, opts...)
		if err != nil {
			t.Fatal(err)
		}
		got, err := io.ReadAll(r)
		if err != nil || !bytes.Equal(got, payload) {
			t.Fatalf("%d bytes, %v", len(got), err)
		}
		if err := r.Close(); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := Open(filepath.Join(dir, "missing.tracy")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: %v", err)
	}
	empty := filepath.Join(dir, "empty.tracy")
	os.WriteFile(empty, nil, 0o644)
	if _, err := Open(empty); !errors.Is(err, ErrNotTrace) {
		t.Errorf("empty file: %v", err)
	}
}

func TestWriterOptions(t *testing.T) {
	for _, o := range []WriteOption{WithZstd(0), WithZstd(23), WithStreams(0), WithStreams(256)} {
		if _, err := NewWriter(io.Discard, o); !errors.Is(err, ErrInvalidOption) {
			t.Errorf("got %v, want ErrInvalidOption", err)
		}
	}
	if _, err := NewReaderBytes(nil, WithReadAhead(0)); !errors.Is(err, ErrInvalidOption) {
		t.Errorf("got %v", err)
	}
	// Default: Zstd, 4 streams, as tracy-capture.
	var out bytes.Buffer
	w, _ := NewWriter(&out)
	w.Close()
	if !bytes.Equal(out.Bytes(), []byte{'t', 'r', 0xFD, 'P', 1, 4}) {
		t.Errorf("default header % x", out.Bytes())
	}
	if _, err := w.Write([]byte{1}); !errors.Is(err, ErrClosed) {
		t.Errorf("Write after Close: %v", err)
	}
}

type failWriter struct{ n int }

func (f *failWriter) Write(p []byte) (int, error) {
	if f.n -= len(p); f.n < 0 {
		return 0, errors.New("disk full")
	}
	return len(p), nil
}

func TestWriterError(t *testing.T) {
	w, err := NewWriter(&failWriter{n: 50000}, WithLZ4(), WithStreams(4))
	if err != nil {
		t.Fatal(err)
	}
	payload := genPayload(13, 40*65536)
	_, werr := w.Write(payload)
	cerr := w.Close()
	if werr == nil && cerr == nil {
		t.Fatal("no error from a failing writer")
	}
}

// TestNextBlock checks the zero-copy block API and mixing it with Read.
func TestNextBlock(t *testing.T) {
	payload := genPayload(14, 5*65536+7)
	r, err := NewReaderBytes(write(t, payload, WithLZ4(), WithStreams(2)))
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var got []byte
	var small [10]byte
	n, _ := r.Read(small[:])
	got = append(got, small[:n]...)
	for {
		b, err := r.NextBlock()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, b...)
	}
	if !bytes.Equal(got, payload) {
		t.Fatal("NextBlock bytes differ")
	}
}

// TestZstdFramePerChunk: a writer may put one complete Zstd frame in each
// chunk (accepted by real Tracy); with and without the
// frame checksum.
func TestZstdFramePerChunk(t *testing.T) {
	payload := genPayload(15, 7*65536+1234)
	for _, crc := range []bool{false, true} {
		enc, err := zstd.NewWriter(nil, zstd.WithEncoderCRC(crc), zstd.WithEncoderConcurrency(1))
		if err != nil {
			t.Fatal(err)
		}
		file := []byte{'t', 'r', 0xFD, 'P', 1, 3}
		for p := payload; len(p) > 0; {
			k := min(len(p), BlockSize)
			chunk := enc.EncodeAll(p[:k], nil)
			file = binary.LittleEndian.AppendUint32(file, uint32(len(chunk)))
			file = append(file, chunk...)
			p = p[k:]
		}
		if got := readAll(t, file); !bytes.Equal(got, payload) {
			t.Fatalf("crc %v: read back differs", crc)
		}
	}
}

// dictBlock hand-encodes an LZ4 block that is dict[1:65532] (one match
// reaching 65535 bytes back, into the dictionary) followed by 5 literals.
func dictBlock(tail [5]byte) []byte {
	b := []byte{0x0F, 0xFF, 0xFF} // no literals, match length 15+; offset 65535
	ext := 65531 - 4 - 15         // match length extension: 255s, then the rest
	b = append(b, bytes.Repeat([]byte{0xFF}, ext/255)...)
	b = append(b, byte(ext%255), 5<<4) // last sequence: 5 literals
	return append(b, tail[:]...)
}

// TestLZ4Dictionary: the dictionary of a block is the previous block of the
// same stream (chunk i-N), not the previous chunk (trap 4).
func TestLZ4Dictionary(t *testing.T) {
	const streams = 2
	rng := rand.New(rand.NewPCG(16, 16))
	var blocks [][]byte
	file := []byte{'t', 'r', 0xFD, 'P', 0, streams}
	var c lz4FastComp
	for i := range 6 {
		var blk, chunk []byte
		if i < streams {
			blk = make([]byte, BlockSize)
			for j := range blk {
				blk[j] = byte(rng.Uint32())
			}
			chunk, _ = c.compress(make([]byte, 0, MaxChunkSize), blk)
		} else {
			prev := blocks[i-streams]
			tail := [5]byte{byte(i), 1, 2, 3, 4}
			blk = append(bytes.Clone(prev[1:65532]), tail[:]...)
			chunk = dictBlock(tail)
		}
		blocks = append(blocks, blk)
		file = binary.LittleEndian.AppendUint32(file, uint32(len(chunk)))
		file = append(file, chunk...)
	}
	if got := readAll(t, file); !bytes.Equal(got, bytes.Join(blocks, nil)) {
		t.Fatal("dictionary blocks decode wrong")
	}
	// With one stream the same chunks refer to the wrong history: the
	// bytes differ (the real reader would load them silently wrong).
	file[5] = 1
	if got := readAll(t, file); bytes.Equal(got, bytes.Join(blocks, nil)) {
		t.Fatal("stream assignment made no difference")
	}
}

// TestFixtureDamage cuts and mutates a real capture file: every cut that
// is not between chunks is ErrTruncated; every mutation reads cleanly or
// fails typed (readErr checks), never panics or hangs.
func TestFixtureDamage(t *testing.T) {
	file, err := os.ReadFile(fixtures.Path(t, "demo.tracy"))
	if err != nil {
		t.Fatal(err)
	}
	bounds := map[int]bool{}
	for off := 6; off < len(file); off += 4 + int(binary.LittleEndian.Uint32(file[off:])) {
		bounds[off] = true
	}
	rounds := 60
	if race.Enabled {
		rounds = 15
	}
	rng := rand.New(rand.NewPCG(17, 17))
	for range rounds {
		cut := 6 + rng.IntN(len(file)-6)
		if _, err := readErr(t, file[:cut]); !bounds[cut] && !errors.Is(err, ErrTruncated) {
			t.Fatalf("cut at %d: %v, want ErrTruncated", cut, err)
		}
		m := bytes.Clone(file)
		for range 1 + rng.IntN(4) {
			m[rng.IntN(len(m))] = byte(rng.Uint32())
		}
		readErr(t, m)
	}
}

// TestMappedFileShrinks: a file truncated on disk after Open makes the
// mapped pages fault (SIGBUS); the stream goroutines turn that into
// ErrTruncated instead of crashing.
func TestMappedFileShrinks(t *testing.T) {
	payload := make([]byte, 40*65536)
	rand.NewChaCha8([32]byte{18}).Read(payload)
	p := filepath.Join(t.TempDir(), "shrink.tracy")
	if err := os.WriteFile(p, write(t, payload, WithLZ4(), WithStreams(2)), 0o644); err != nil {
		t.Fatal(err)
	}
	r, err := Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if r.data == nil {
		t.Skip("file not memory-mapped on this OS")
	}
	if err := os.Truncate(p, 1000); err != nil {
		t.Fatal(err)
	}
	_, err = io.Copy(io.Discard, r)
	if !errors.Is(err, ErrTruncated) {
		t.Fatalf("got %v, want ErrTruncated", err)
	}
}

// TestNoPerBlockAllocs: after a Reader's setup, decoding allocates nothing
// per block, whatever the codec (decoders and block buffers are reused).
func TestNoPerBlockAllocs(t *testing.T) {
	if race.Enabled {
		t.Skip("allocation counts differ under -race")
	}
	for _, c := range []codec{codecs[0], codecs[3]} {
		// Both are long enough for every stream to fill its buffer pool.
		small := write(t, genPayload(19, 100*65536), c.opt, WithStreams(4))
		large := write(t, genPayload(19, 400*65536), c.opt, WithStreams(4))
		allocs := func(file []byte) float64 {
			return testing.AllocsPerRun(5, func() {
				r, err := NewReaderBytes(file)
				if err != nil {
					t.Fatal(err)
				}
				if _, err := io.Copy(io.Discard, r); err != nil {
					t.Fatal(err)
				}
				r.Close()
			})
		}
		a, b := allocs(small), allocs(large)
		if b-a > 10 { // 300 more blocks; slack for a pool emptied by a GC
			t.Errorf("%s: %.0f allocations for 100 blocks, %.0f for 400", c.name, a, b)
		}
	}
}

// TestWriterNoPerBlockAllocs: the Writer reuses its jobs, buffers and
// encoders, so a longer payload costs no more allocations.
func TestWriterNoPerBlockAllocs(t *testing.T) {
	if race.Enabled {
		t.Skip("allocation counts differ under -race")
	}
	small, large := genPayload(20, 100*65536), genPayload(20, 400*65536)
	for _, c := range []codec{codecs[0], codecs[3]} {
		allocs := func(p []byte) float64 {
			return testing.AllocsPerRun(3, func() {
				w, err := NewWriter(io.Discard, c.opt, WithStreams(4))
				if err != nil {
					t.Fatal(err)
				}
				w.Write(p)
				if err := w.Close(); err != nil {
					t.Fatal(err)
				}
			})
		}
		if a, b := allocs(small), allocs(large); b-a > 10 {
			t.Errorf("%s: %.0f allocations for 100 blocks, %.0f for 400", c.name, a, b)
		}
	}
}

type writeCounter struct {
	bytes.Buffer
	writes int
}

func (c *writeCounter) Write(p []byte) (int, error) {
	c.writes++
	return c.Buffer.Write(p)
}

// TestWriterGathersChunks: finished chunks reach the underlying writer in
// writes of up to outBufSize, not one write (one system call, for a file)
// per chunk, and the bytes are those a write per chunk gave.
func TestWriterGathersChunks(t *testing.T) {
	payload := genPayload(21, 300*65536+123)
	for _, c := range codecs {
		var cw writeCounter
		w, err := NewWriter(&cw, c.opt, WithStreams(4))
		if err != nil {
			t.Fatal(err)
		}
		w.Write(payload)
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		if _, file := w.Stats(); file != int64(cw.Len()) {
			t.Errorf("%s: Stats says %d bytes written, the writer got %d", c.name, file, cw.Len())
		}
		// The header, then one write per buffer (flushed when the next
		// chunk would not fit) and one for the rest.
		if limit := 2 + cw.Len()/(outBufSize-MaxChunkSize-4); cw.writes > limit {
			t.Errorf("%s: %d writes for %d bytes in 301 chunks, want at most %d", c.name, cw.writes, cw.Len(), limit)
		}
		r, err := NewReader(bytes.NewReader(cw.Bytes()), int64(cw.Len()))
		if err != nil {
			t.Fatal(err)
		}
		got, err := io.ReadAll(r)
		r.Close()
		if err != nil || !bytes.Equal(got, payload) {
			t.Errorf("%s: payload read back differs (%v)", c.name, err)
		}
	}
}
