package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/gotracy/gotracy/protocol"
)

func init() {
	register(&command{
		name:    "dump",
		summary: "decode a recorded Tracy client-to-server stream (handshake, welcome, frames, items)",
		usage:   "dump [--json] [--items] RAW   (RAW is a c2s recording, or - for standard input)",
		setup: func(fs *flag.FlagSet) func(*env, []string) error {
			asJSON := fs.Bool("json", false, `print {"program","bytes","frames","items":{type: count}} as JSON`)
			items := fs.Bool("items", false, "print every item, one line each, in the stable text form")
			return func(e *env, args []string) error {
				if len(args) != 1 {
					return usagef("dump takes exactly one RAW stream, got %d arguments", len(args))
				}
				if *asJSON && *items {
					return usagef("--json and --items are exclusive")
				}
				return runDump(e, args[0], *asJSON, *items)
			}
		},
	})
}

// countingReader counts the stream bytes consumed, for the "bytes" figure.
type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// dumpStats is what a dump counts.
type dumpStats struct {
	session *protocol.Session
	bytes   int64
	frames  int
	decoded int64
	items   [protocol.NumQueueTypes]int64
}

func runDump(e *env, path string, asJSON, items bool) error {
	in, err := openInput(path)
	if err != nil {
		return err
	}
	defer in.Close()
	var out *bufio.Writer
	if items {
		out = bufio.NewWriterSize(e.stdout, 1<<16)
	}
	st, err := dumpStream(path, in, out)
	if out != nil {
		if ferr := out.Flush(); err == nil {
			err = ferr
		}
	}
	if st == nil {
		return err
	}
	// A stream cut or damaged mid-way: what was decoded is still shown,
	// then the error says where it stopped.
	var perr error
	switch {
	case items:
	case asJSON:
		perr = writeDumpJSON(e.stdout, st)
	default:
		writeDumpSummary(e.stdout, st)
	}
	if err != nil {
		return &partialDumpError{frames: st.frames, err: err}
	}
	return perr
}

// partialDumpError is a stream that stopped decoding after some frames.
type partialDumpError struct {
	frames int
	err    error
}

func (e *partialDumpError) Error() string {
	return fmt.Sprintf("decoding stopped in frame %d (the output above covers what was decoded before): %v", e.frames, e.err)
}

func (e *partialDumpError) Unwrap() error { return e.err }

// dumpStream decodes the whole stream, writing each item's text form to
// items when it is not nil. Once the session is read it returns its counts
// also with an error, for what came before the bad spot.
func dumpStream(path string, in io.Reader, items *bufio.Writer) (*dumpStats, error) {
	cr := &countingReader{r: in}
	r := bufio.NewReaderSize(cr, 1<<20)
	st := &dumpStats{}
	if head, _ := r.Peek(4); sniffBytes(head) == kindTrace {
		return nil, &wrongKindError{path: path, is: "a .tracy trace file", want: "a recorded client stream",
			hint: "dump decodes recordings (NAME.c2s.bin, capture --record); use 'gotracy info " + path + "' for a trace"}
	}
	s, err := protocol.ReadSession(r)
	if err != nil {
		switch {
		case s != nil && s.Status != protocol.HandshakeWelcome:
			return nil, fmt.Errorf("%s starts with byte 0x%02x (%v), where a recorded Tracy client stream starts with status byte 1 (HandshakeWelcome): %w",
				path, byte(s.Status), s.Status, protocol.ErrBadHandshake)
		case errors.Is(err, protocol.ErrTruncated):
			return nil, fmt.Errorf("%s ends after %d bytes, inside the client's handshake (status byte and %d-byte welcome): %w",
				path, cr.n, protocol.WelcomeSize, protocol.ErrTruncated)
		}
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	st.session = s
	fr := protocol.NewFrameReader(r, s.Size)
	var d protocol.ItemDecoder
	var line []byte
	for {
		frame, err := fr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			st.bytes = cr.n - int64(r.Buffered())
			return st, err
		}
		st.frames++
		st.decoded += int64(len(frame))
		d.Reset(frame, fr.DecodedOffset())
		for it, ok := d.Next(); ok; it, ok = d.Next() {
			st.items[it.Type]++
			if items != nil {
				line = it.AppendText(line[:0])
				line = append(line, '\n')
				if _, err := items.Write(line); err != nil {
					return nil, err
				}
			}
		}
		if err := d.Err(); err != nil {
			st.bytes = cr.n - int64(r.Buffered())
			return st, fmt.Errorf("frame %d at stream offset %d: %w", st.frames, fr.FrameOffset(), err)
		}
	}
	st.bytes = cr.n - int64(r.Buffered())
	return st, nil
}

func writeDumpJSON(w io.Writer, st *dumpStats) error {
	counts := map[string]int64{}
	for t, n := range st.items {
		if n > 0 {
			counts[protocol.QueueType(t).String()] = n
		}
	}
	b, err := json.Marshal(struct {
		Program string           `json:"program"`
		Bytes   int64            `json:"bytes"`
		Frames  int              `json:"frames"`
		Items   map[string]int64 `json:"items"`
	}{st.session.Welcome.ProgramName, st.bytes, st.frames, counts})
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(w, "%s\n", b)
	return err
}

func writeDumpSummary(w io.Writer, st *dumpStats) {
	wl := &st.session.Welcome
	fmt.Fprintf(w, "program:       %s (pid %d)\n", wl.ProgramName, wl.PID)
	fmt.Fprintf(w, "protocol:      %d (Tracy %s)\n", protocol.ProtocolVersion, protocol.TracyVersion)
	var flags []string
	for _, f := range []struct {
		bit  protocol.WelcomeFlag
		name string
	}{{protocol.FlagOnDemand, "on-demand"}, {protocol.FlagIgnoreMemFaults, "ignore-mem-faults"},
		{protocol.FlagCodeTransfer, "code-transfer"}, {protocol.FlagCombineSamples, "combine-samples"},
		{protocol.FlagIdentifySamples, "identify-samples"}} {
		if wl.Flags&f.bit != 0 {
			flags = append(flags, f.name)
		}
	}
	if len(flags) == 0 {
		flags = append(flags, "none")
	}
	fmt.Fprintf(w, "flags:         %s; cpu %v; timer %g ns/tick\n", strings.Join(flags, ", "), wl.CPUArch, wl.TimerMul)
	if od := st.session.OnDemand; od != nil {
		fmt.Fprintf(w, "on-demand:     %d frames before connection, at tick %d\n", od.Frames, od.CurrentTime)
	}
	fmt.Fprintf(w, "frames:        %d\n", st.frames)
	ratio := 0.0
	if c := st.bytes - st.session.Size; c > 0 {
		ratio = float64(st.decoded) / float64(c)
	}
	fmt.Fprintf(w, "bytes:         %d in the stream, %d in frames decompress to %d (%.1fx)\n",
		st.bytes, st.bytes-st.session.Size, st.decoded, ratio)
	var total int64
	for _, n := range st.items {
		total += n
	}
	fmt.Fprintf(w, "items:         %d\n", total)
	for t, n := range st.items {
		if n > 0 {
			fmt.Fprintf(w, "  %-36s %d\n", protocol.QueueType(t), n)
		}
	}
}

func init() {
	errorDescribers = append(errorDescribers, func(err error) string {
		// Stream errors carry the offset and the cause; a partial dump
		// says it was partial.
		var pe *partialDumpError
		if errors.As(err, &pe) {
			return pe.Error()
		}
		return ""
	})
}
