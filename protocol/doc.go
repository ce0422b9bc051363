// Package protocol is Tracy 0.14.0's wire protocol, version 82: the bytes an
// instrumented program (the client) and the Tracy GUI or a capture tool (the
// server) exchange. Use it to decode a recorded or live client stream item by
// item, or to produce one. Both gotracy's client (package tracy) and its
// capture server (package capture) are built on it, so the two agree on every
// byte layout; it imports only the standard library.
//
// A client-to-server stream is the client's handshake reply, then LZ4 frames
// of queue items. Reading one, for example a recording made with
// `gotracy capture --record`:
//
//	r := bufio.NewReader(f)
//	sess, err := protocol.ReadSession(r) // status, Welcome, on-demand payload
//	...
//	fr := protocol.NewFrameReader(r, sess.Size)
//	var d protocol.ItemDecoder
//	var refs protocol.TimeRefs // absolute times from the compact deltas
//	for {
//		frame, err := fr.Next()
//		if err == io.EOF {
//			break
//		} else if err != nil {
//			return err
//		}
//		d.Reset(frame, fr.DecodedOffset())
//		for it, ok := d.Next(); ok; it, ok = d.Next() {
//			t, timed := refs.Time(it) // for every item, in stream order
//			use(it.Type, t, timed)    // it.Type says which accessor applies
//		}
//		if err := d.Err(); err != nil {
//			return err
//		}
//	}
//
// On a live connection ServerHandshake replaces ReadSession. Producing a
// stream is the mirror image: ClientHandshake or AppendWelcomeReply, then
// Append<Type> encoders (or the TimeRefs methods for zone times) into a
// buffer handed to a FrameWriter.
//
// # Pieces
//
//   - Specs describes all 132 queue types: size, fields, time reference and
//     thread binding. Item has a typed accessor per type (it.ZoneBegin()
//     returns time and source location) and generic ones driven by the
//     table (Field, Payload, Ptr, Thread, AppendText).
//   - ItemDecoder hands out items as views into the frame, without copying
//     or allocating. Items never span frames; state that crosses items (time
//     references, the current thread, pending strings and payloads) is the
//     caller's.
//   - Encoders append to a caller's buffer (AppendZoneBegin(dst, ...)) and
//     refuse lengths the 0.14.0 server cannot take with ErrTooLong rather
//     than truncating. Composite answers (a call-stack frame, a symbol, a
//     frame image with its data) have helpers that emit the whole item
//     sequence in the order the server expects.
//   - TimeRefs holds the four per-connection time references; client and
//     server must apply the same sequence of updates, so both use it.
//   - FrameReader and FrameWriter do the framing and LZ4 with the 64 KiB
//     cross-frame history Tracy uses. FrameReader reads exactly what it
//     needs from its reader (wrap a network connection in a bufio.Reader),
//     and the handshake helpers read exactly the handshake bytes, so the
//     same reader continues with the frames.
//
// # Errors
//
// Malformed input never panics. Errors wrap sentinels (ErrUnknownItem,
// ErrTruncated, ErrFrameSize, ErrCorruptLZ4, ErrBadHandshake,
// ErrProtocolMismatch, ...) in a *StreamError that names the byte offset and
// the item type: a stream with an unknown item cannot be resynchronised, and
// the offset is what a user needs to look at the bytes (`gotracy dump
// --items` prints them).
//
// Why the package is built around one table and its own LZ4 codec is in
// docs/DESIGN.md in the repository.
package protocol

//go:generate go run ./internal/genappend
