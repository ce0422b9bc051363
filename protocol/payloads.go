package protocol

import (
	"bytes"
	"encoding/binary"
	"fmt"
)

// AppendSingleString appends the SingleString item for s, choosing the
// 8-bit form for up to 255 bytes and the 16-bit (len-256) form above, as the
// C++ client does. Strings over MaxStringLen are ErrTooLong.
func AppendSingleString[S ~string | ~[]byte](dst []byte, s S) ([]byte, error) {
	if len(s) <= 255 {
		return AppendSingleStringData8(dst, s)
	}
	return AppendSingleStringData(dst, s)
}

// AppendSecondString is AppendSingleString for the second-string slot
// (the file name of a CallstackFrame).
func AppendSecondString[S ~string | ~[]byte](dst []byte, s S) ([]byte, error) {
	if len(s) <= 255 {
		return AppendSecondStringData8(dst, s)
	}
	return AppendSecondStringData(dst, s)
}

// MaxCallstackDepth is the deepest stack a CallstackPayload can carry
// (u16 length / 8 bytes per frame).
const MaxCallstackDepth = MaxStringLen / 8

// AppendCallstackPayloadFrames appends a CallstackPayload with the return
// addresses innermost first; id is the client's (ignored) key.
func AppendCallstackPayloadFrames(dst []byte, id uint64, frames []uint64) ([]byte, error) {
	if len(frames) > MaxCallstackDepth {
		return dst, fmt.Errorf("protocol: callstack of %d frames: %w", len(frames), ErrTooLong)
	}
	dst = append(dst, byte(CallstackPayload))
	dst = le.AppendUint64(dst, id)
	dst = le.AppendUint16(dst, uint16(8*len(frames)))
	for _, f := range frames {
		dst = le.AppendUint64(dst, f)
	}
	return dst, nil
}

// CallstackFrames returns the depth of a CallstackPayload item and its
// frame at index i via fn, without allocating.
func CallstackFrames(it Item, fn func(i int, addr uint64)) int {
	p := it.Payload()
	n := len(p) / 8
	if fn != nil {
		for i := 0; i < n; i++ {
			fn(i, binary.LittleEndian.Uint64(p[8*i:]))
		}
	}
	return n
}

// SourceLocationData is the content of a SourceLocationPayload (an
// allocated, transient source location).
type SourceLocationData struct {
	Color    uint32 // 0xRRGGBB, 0 = default
	Line     uint32
	Function string
	File     string
	Name     string // empty: the GUI shows the function name
}

// AppendAllocSourceLocation appends SourceLocationPayload(id, loc):
// color, line, function NUL, file NUL, name (no terminator).
func AppendAllocSourceLocation(dst []byte, id uint64, loc *SourceLocationData) ([]byte, error) {
	n := 8 + len(loc.Function) + 1 + len(loc.File) + 1 + len(loc.Name)
	if n > 65533 {
		return dst, fmt.Errorf("protocol: source location payload of %d bytes: %w", n, ErrTooLong)
	}
	if bytes.IndexByte([]byte(loc.Function), 0) >= 0 || bytes.IndexByte([]byte(loc.File), 0) >= 0 {
		return dst, fmt.Errorf("protocol: NUL inside a source location function or file: %w", ErrTooLong)
	}
	dst = append(dst, byte(SourceLocationPayload))
	dst = le.AppendUint64(dst, id)
	dst = le.AppendUint16(dst, uint16(n))
	dst = le.AppendUint32(dst, loc.Color)
	dst = le.AppendUint32(dst, loc.Line)
	dst = append(dst, loc.Function...)
	dst = append(dst, 0)
	dst = append(dst, loc.File...)
	dst = append(dst, 0)
	return append(dst, loc.Name...), nil
}

// ParseSourceLocationPayload splits the data of a SourceLocationPayload
// item. The strings alias nothing: they are copies (this is not a hot path:
// the server deduplicates payloads by content first).
func ParseSourceLocationPayload(p []byte) (SourceLocationData, error) {
	var loc SourceLocationData
	if len(p) < 10 {
		return loc, fmt.Errorf("protocol: source location payload of %d bytes: %w", len(p), ErrTruncated)
	}
	loc.Color = binary.LittleEndian.Uint32(p)
	loc.Line = binary.LittleEndian.Uint32(p[4:])
	rest := p[8:]
	i := bytes.IndexByte(rest, 0)
	if i < 0 {
		return loc, fmt.Errorf("protocol: source location function not terminated: %w", ErrTruncated)
	}
	loc.Function = string(rest[:i])
	rest = rest[i+1:]
	j := bytes.IndexByte(rest, 0)
	if j < 0 {
		return loc, fmt.Errorf("protocol: source location file not terminated: %w", ErrTruncated)
	}
	loc.File = string(rest[:j])
	loc.Name = string(rest[j+1:])
	return loc, nil
}

// CallstackFrameInfo is one resolved frame of a ServerQueryCallstackFrame
// answer.
type CallstackFrameInfo struct {
	Name    string // function name ("[unknown]" if unresolved)
	File    string // source file ("[unknown]", "<kernel>")
	Line    uint32
	SymAddr uint64 // symbol start, 0 if unknown (0 also avoids a Symbol query)
	SymLen  uint32 // symbol size, 0 if unknown
}

// AppendCallstackFrameAnswer appends the whole answer to
// ServerQueryCallstackFrame(addr): SingleString(image), CallstackFrameSize
// (addr echoed, N), then per frame SingleString(name), SecondString(file),
// CallstackFrame. Frames are inline frames first, the real function last;
// N must be 1..255 (0 leaves the server with a half-built entry).
func AppendCallstackFrameAnswer(dst []byte, addr uint64, image string, frames []CallstackFrameInfo) ([]byte, error) {
	if len(frames) == 0 || len(frames) > 255 {
		return dst, fmt.Errorf("protocol: callstack frame answer with %d frames (want 1..255): %w", len(frames), ErrTooLong)
	}
	orig := dst
	var err error
	if dst, err = AppendSingleString(dst, image); err != nil {
		return orig, err
	}
	dst = AppendCallstackFrameSize(dst, addr, uint8(len(frames)))
	for i := range frames {
		f := &frames[i]
		if dst, err = AppendSingleString(dst, f.Name); err != nil {
			return orig, err
		}
		if dst, err = AppendSecondString(dst, f.File); err != nil {
			return orig, err
		}
		dst = AppendCallstackFrame(dst, f.Line, f.SymAddr, f.SymLen)
	}
	return dst, nil
}

// AppendSymbolAnswer appends the answer to ServerQuerySymbol(symAddr):
// SingleString(file) then SymbolInformation with the address echoed.
func AppendSymbolAnswer(dst []byte, symAddr uint64, file string, line uint32) ([]byte, error) {
	orig := dst
	dst, err := AppendSingleString(dst, file)
	if err != nil {
		return orig, err
	}
	return AppendSymbolInformation(dst, line, symAddr), nil
}

// AllocFrame is one Lua-style frame of a CallstackAllocPayload.
type AllocFrame struct {
	Line uint32
	Name string
	File string
}

// AppendCallstackAllocPayloadFrames appends a CallstackAllocPayload: u8
// count (at most 64), then per frame u32 line, u16 name length, name, u16
// file length, file.
func AppendCallstackAllocPayloadFrames(dst []byte, id uint64, frames []AllocFrame) ([]byte, error) {
	n := 1
	for _, f := range frames {
		n += 4 + 2 + len(f.Name) + 2 + len(f.File)
	}
	if len(frames) > 64 || n > MaxStringLen {
		return dst, fmt.Errorf("protocol: alloc callstack of %d frames, %d bytes: %w", len(frames), n, ErrTooLong)
	}
	dst = append(dst, byte(CallstackAllocPayload))
	dst = le.AppendUint64(dst, id)
	dst = le.AppendUint16(dst, uint16(n))
	dst = append(dst, byte(len(frames)))
	for _, f := range frames {
		dst = le.AppendUint32(dst, f.Line)
		dst = le.AppendUint16(dst, uint16(len(f.Name)))
		dst = append(dst, f.Name...)
		dst = le.AppendUint16(dst, uint16(len(f.File)))
		dst = append(dst, f.File...)
	}
	return dst, nil
}

// ParseCallstackAllocPayload decodes the data of a CallstackAllocPayload.
func ParseCallstackAllocPayload(p []byte) ([]AllocFrame, error) {
	if len(p) < 1 {
		return nil, fmt.Errorf("protocol: empty alloc callstack payload: %w", ErrTruncated)
	}
	n := int(p[0])
	p = p[1:]
	frames := make([]AllocFrame, 0, n)
	for i := 0; i < n; i++ {
		if len(p) < 6 {
			return nil, fmt.Errorf("protocol: alloc callstack frame %d: %w", i, ErrTruncated)
		}
		var f AllocFrame
		f.Line = binary.LittleEndian.Uint32(p)
		l := int(binary.LittleEndian.Uint16(p[4:]))
		p = p[6:]
		if len(p) < l+2 {
			return nil, fmt.Errorf("protocol: alloc callstack frame %d: %w", i, ErrTruncated)
		}
		f.Name = string(p[:l])
		p = p[l:]
		l = int(binary.LittleEndian.Uint16(p))
		p = p[2:]
		if len(p) < l {
			return nil, fmt.Errorf("protocol: alloc callstack frame %d: %w", i, ErrTruncated)
		}
		f.File = string(p[:l])
		p = p[l:]
		frames = append(frames, f)
	}
	return frames, nil
}

// AppendFrameImageWithData appends FrameImageData (the DXT1 blocks, w*h/2 bytes)
// followed by FrameImage; w and h must be multiples of 4. Both go in the
// same frame when written in one FrameWriter.WriteItems call.
func AppendFrameImageWithData(dst []byte, frame uint32, w, h uint16, flip bool, dxt1 []byte) ([]byte, error) {
	if w%4 != 0 || h%4 != 0 || len(dxt1) != int(w)*int(h)/2 {
		return dst, fmt.Errorf("protocol: frame image %dx%d with %d bytes of DXT1: %w", w, h, len(dxt1), ErrTooLong)
	}
	orig := dst
	dst, err := AppendFrameImageData(dst, 0, dxt1)
	if err != nil {
		return orig, err
	}
	f := uint8(0)
	if flip {
		f = 1
	}
	return AppendFrameImage(dst, frame, w, h, f), nil
}
