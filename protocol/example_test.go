package protocol_test

import (
	"bufio"
	"bytes"
	"fmt"
	"io"

	"github.com/gotracy/gotracy/protocol"
)

// A client's side of a session is its handshake reply and LZ4 frames of
// queue items; decoding walks frames and items and keeps the time
// references up to date.
func Example() {
	// What a client sends: the welcome, then two zones on thread 7. Zone
	// times go through TimeRefs, which picks the compact 16-bit delta form.
	w := protocol.Welcome{TimerMul: 1, InitBegin: 1000, InitEnd: 2000, ProgramName: "example"}
	stream, err := protocol.AppendWelcomeReply(nil, &w, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	var enc protocol.TimeRefs
	items := enc.AppendThreadContext(nil, 7)
	items = enc.AppendZoneBegin(items, 2100, 0x1000)
	items = enc.AppendZoneEnd(items, 2600)
	items = enc.AppendZoneBegin(items, 3000, 0x1000)
	items = enc.AppendZoneEnd(items, 3900)
	var wire bytes.Buffer
	fw := protocol.NewFrameWriter(&wire)
	if err := fw.WriteItems(items); err != nil {
		fmt.Println(err)
		return
	}
	if err := fw.Flush(); err != nil {
		fmt.Println(err)
		return
	}
	stream = append(stream, wire.Bytes()...)

	// What a server reads.
	r := bufio.NewReader(bytes.NewReader(stream))
	sess, err := protocol.ReadSession(r)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("program:", sess.Welcome.ProgramName)
	fr := protocol.NewFrameReader(r, sess.Size)
	var d protocol.ItemDecoder
	var refs protocol.TimeRefs
	for {
		frame, err := fr.Next()
		if err == io.EOF {
			break
		} else if err != nil {
			fmt.Println(err)
			return
		}
		d.Reset(frame, fr.DecodedOffset())
		for it, ok := d.Next(); ok; it, ok = d.Next() {
			t, timed := refs.Time(it)
			if timed {
				fmt.Println(it.Type, t)
			} else {
				fmt.Println(it.Type)
			}
		}
		if err := d.Err(); err != nil {
			fmt.Println(err)
			return
		}
	}
	// Output:
	// program: example
	// ThreadContext
	// ZoneBegin16 2100
	// ZoneEnd16 2600
	// ZoneBegin16 3000
	// ZoneEnd16 3900
}
