package protocol

import (
	"bytes"
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// gotracy extension: server-side symbol resolution for gotracy's Go client.
//
// Tracy 0.14 has no way for a client to describe its loaded images, so the
// client must resolve its own call-stack frames. This extension lets a
// gotracy server resolve them instead, without ever sending anything a real
// Tracy client or server does not understand:
//
//  1. A client that can describe its images adds the line ExtImagesHostInfo
//     to the HostInfo text of its Welcome. HostInfo is free text to Tracy:
//     its server stores it and its GUI shows it; nothing parses it.
//  2. A gotracy server that wants the frames (capture --symbols=server or
//     none), and only when it saw that line, sends ServerQueryGotracyImages
//     (ptr ExtImagesKey, extra 0) before any other query. A Tracy client
//     never advertises the line, so never receives the query.
//  3. The client answers with one ordinary StringData item keyed
//     ExtImagesKey whose text is its image list (AppendExtImages), and from
//     then on answers ServerQueryCallstackFrame for addresses inside those
//     images in TRACY_SYMBOL_OFFLINE_RESOLVE form: image = the image path,
//     one frame named "[unresolved]", file "[unknown]", line 0, symAddr =
//     the address to resolve relative to the image (for the Go client,
//     which records return addresses, the call site: address − 1 − load
//     bias). The server only reads that StringData as an image list when it
//     asked; a Tracy GUI never asks, so it never sees one.
//
// No new queue item type is needed: the answer travels as StringData, so
// the item decoder, the spec table and every recording stay as they are.
const (
	// ServerQueryGotracyImages asks a client that advertised
	// ExtImagesHostInfo for its image list. Outside Tracy's query range
	// (NumServerQueries), so ServerQueryPacket.UnmarshalBinary reports it
	// as ErrUnknownItem while still decoding it.
	ServerQueryGotracyImages ServerQuery = 0x80
	// ExtImagesHostInfo is the HostInfo line advertising the extension.
	ExtImagesHostInfo = "gotracy-ext: images/1"
	// ExtKeepAliveHostInfo is the HostInfo line with which a gotracy client
	// says it sends Tracy's KeepAlive after 5 s without events, as Tracy's
	// own client does, so a server may treat its silence as a dead peer.
	// Clients that predate it sent none.
	ExtKeepAliveHostInfo = "gotracy-ext: keepalive/1"
	// ExtImagesKey is the query pointer and the StringData key of the
	// answer: "gotracy" in ASCII, above every user-space address, so it
	// cannot collide with a client's string key.
	ExtImagesKey uint64 = 0x79636172746f67
)

// ErrBadImageList: an image list that cannot be written or parsed.
var ErrBadImageList = errors.New("protocol: malformed gotracy image list")

// ExtImage is one loaded image in the extension's image list.
type ExtImage struct {
	// Base is what the client subtracts from an address to get the
	// symAddr it sends: the load bias, plus one when it reports call sites
	// for return addresses (see the extension's description).
	Base uint64
	Size uint64 // bytes of address space the image covers from its load address
	// ID is the build id as text: "go:" + Go build id, hex of a GNU build
	// id, or "none".
	ID string
	// Logical says the client's call stacks hold one entry per logical
	// frame, inlined calls included (Go's runtime.Callers does this), so
	// the server must keep only the innermost source level of each answer;
	// otherwise (native unwinding) an address expands to all its inline
	// levels, as Tracy's clients do.
	Logical bool
	Path    string // absolute path of the image file on the client's machine
}

// HasExtImages reports whether a HostInfo text advertises the extension.
func HasExtImages(hostInfo string) bool {
	for line := range strings.SplitSeq(hostInfo, "\n") {
		if strings.TrimSpace(line) == ExtImagesHostInfo {
			return true
		}
	}
	return false
}

// AppendExtImages appends the StringData answer to
// ServerQueryGotracyImages: one line per image, "BASE SIZE ID FRAMES PATH"
// with BASE and SIZE in hex, FRAMES "logical" or "native" (ExtImage.Logical),
// and the path last so that it may contain spaces.
func AppendExtImages(dst []byte, imgs []ExtImage) ([]byte, error) {
	var text []byte
	for _, im := range imgs {
		if im.ID == "" || strings.ContainsAny(im.ID, " \n") || im.Path == "" || strings.ContainsAny(im.Path, "\n\x00") {
			return dst, fmt.Errorf("protocol: image %q (id %q) cannot be listed: %w", im.Path, im.ID, ErrBadImageList)
		}
		frames := "native"
		if im.Logical {
			frames = "logical"
		}
		text = fmt.Appendf(text, "%x %x %s %s %s\n", im.Base, im.Size, im.ID, frames, im.Path)
	}
	return AppendStringData(dst, ExtImagesKey, text)
}

// ParseExtImages parses the text of an image-list answer.
func ParseExtImages(text []byte) ([]ExtImage, error) {
	var out []ExtImage
	for n, line := range bytes.Split(bytes.TrimRight(text, "\n"), []byte("\n")) {
		if len(line) == 0 {
			continue
		}
		f := strings.SplitN(string(line), " ", 5)
		if len(f) != 5 || f[4] == "" || (f[3] != "logical" && f[3] != "native") {
			return out, fmt.Errorf("protocol: image list line %d %q: want BASE SIZE ID FRAMES PATH: %w", n+1, line, ErrBadImageList)
		}
		base, err1 := strconv.ParseUint(f[0], 16, 64)
		size, err2 := strconv.ParseUint(f[1], 16, 64)
		if err1 != nil || err2 != nil {
			return out, fmt.Errorf("protocol: image list line %d %q: bad number: %w", n+1, line, ErrBadImageList)
		}
		out = append(out, ExtImage{Base: base, Size: size, ID: f[2], Logical: f[3] == "logical", Path: f[4]})
	}
	return out, nil
}
