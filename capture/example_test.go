package capture_test

import (
	"bytes"
	"context"
	"fmt"

	"github.com/gotracy/gotracy/capture"
	"github.com/gotracy/gotracy/protocol"
	"github.com/gotracy/gotracy/tracefile"
)

// Replay runs the capture pipeline over a recorded client stream (what
// `gotracy capture --record` or WithRecord writes); Connect runs the same
// pipeline on a live client. Here the recording is generated in-process: a
// client's handshake reply, then LZ4 frames of queue items, including the
// answers to the queries a server sends (source location, strings, thread
// name). The result is saved as a .tracy file.
func ExampleReplay() {
	rec := clientRecording()

	res, err := capture.Replay(context.Background(), bytes.NewReader(rec))
	if err != nil {
		fmt.Println("capture:", err)
		return
	}
	tr := res.Trace
	fmt.Println("program:", res.Welcome.ProgramName)
	fmt.Println("zones:", tr.ZoneCount(), "threads:", len(tr.Threads))
	fmt.Println("frames:", len(tr.FrameSets[0].Frames)) // 3 marks + Tracy's 2 synthetic frames
	th := tr.Threads[0]
	z := th.Zones.At(0)
	fmt.Printf("first zone: %s on %q, %d ns\n", tr.ZoneName(z), tr.ThreadName(th.ID), z.Duration())

	var file bytes.Buffer // tracefile.WriteFile(path, tr) saves atomically to disk
	if err := tracefile.Write(&file, tr); err != nil {
		fmt.Println("save:", err)
		return
	}
	back, err := tracefile.Read(bytes.NewReader(file.Bytes()), int64(file.Len()))
	if err != nil {
		fmt.Println("load:", err)
		return
	}
	fmt.Println("saved zones:", back.ZoneCount())
	// Output:
	// program: example
	// zones: 3 threads: 1
	// frames: 5
	// first zone: update on "main", 4000 ns
	// saved zones: 3
}

// clientRecording builds what a Tracy 0.14 client sends after the server's
// hello: the welcome, then frames of items. Times are in client ticks;
// TimerMul 1 makes a tick one nanosecond.
func clientRecording() []byte {
	const (
		tid                         = 1
		loc, name, function, file   = 0x1000, 0x2000, 0x2010, 0x2020
		initBegin, initEnd, frameNs = 1_000, 2_000, 16_000
	)
	w := protocol.Welcome{TimerMul: 1, InitBegin: initBegin, InitEnd: initEnd, ProgramName: "example"}
	out, err := protocol.AppendWelcomeReply(nil, &w, nil)
	if err != nil {
		panic(err)
	}
	var wire bytes.Buffer
	fw := protocol.NewFrameWriter(&wire)

	var refs protocol.TimeRefs // compact zone times are deltas: encode in stream order
	items := refs.AppendThreadContext(nil, tid)
	for i := range int64(3) {
		t := initEnd + i*frameNs
		items = refs.AppendZoneBegin(items, t+100, loc)
		items = refs.AppendZoneEnd(items, t+4_100)
		items = protocol.AppendFrameMarkMsg(items, t+frameNs, 0)
	}
	// Answers to the server's queries, in the order it asks them.
	items = protocol.AppendSourceLocation(items, name, function, file, 12, 0, 0, 0)
	items, _ = protocol.AppendThreadName(items, tid, "main")
	items, _ = protocol.AppendStringData(items, name, "update")
	items, _ = protocol.AppendStringData(items, function, "main.update")
	items, _ = protocol.AppendStringData(items, file, "main.go")
	items = protocol.AppendTerminate(items)
	if err := fw.WriteItems(items); err != nil {
		panic(err)
	}
	if err := fw.Flush(); err != nil {
		panic(err)
	}
	return append(out, wire.Bytes()...)
}
