//go:build !notracy

package tracy

import (
	"strings"
	"sync"

	"github.com/gotracy/gotracy/protocol"
)

// exeImage is the running executable as the gotracy image-list extension
// describes it (protocol.ServerQueryGotracyImages). Go programs are one
// static image (cgo libraries aside, whose frames the client keeps
// resolving itself), so the list has one entry.
type exeImage struct {
	start, end uint64 // runtime address range of its PT_LOAD segments
	bias       uint64 // load bias: runtime address - link-time address
	id         string // "go:<build id>", hex GNU build id, or "none"
	path       string
	ok         bool
}

var exeImg = sync.OnceValue(loadExeImage)

// ext is the image-list entry. Logical: runtime.Callers already lists
// inlined calls as entries of their own. Base is bias+1 because the frames this
// client records are return addresses and it sends the call site
// (address − 1) for the server to resolve, which is what
// runtime.CallersFrames resolves on the client side, so both modes name
// the same line.
func (im exeImage) ext() protocol.ExtImage {
	return protocol.ExtImage{Base: im.bias + 1, Size: im.end - im.start, ID: im.id, Logical: true, Path: im.path}
}

// advertise adds the extension's line to the welcome's HostInfo when the
// executable can be described.
func advertise(hostInfo string) string {
	if !exeImg().ok || protocol.HasExtImages(hostInfo) {
		return hostInfo
	}
	if hostInfo != "" && !strings.HasSuffix(hostInfo, "\n") {
		hostInfo += "\n"
	}
	return hostInfo + protocol.ExtImagesHostInfo + "\n"
}

// appendImagesAnswer answers ServerQueryGotracyImages and reports whether
// frames may from now on be left to the server.
func appendImagesAnswer(b []byte) ([]byte, bool) {
	im := exeImg()
	if !im.ok {
		b, _ = protocol.AppendExtImages(b, nil)
		return b, false
	}
	nb, err := protocol.AppendExtImages(b, []protocol.ExtImage{im.ext()})
	if err != nil {
		b, _ = protocol.AppendExtImages(b, nil)
		return b, false
	}
	return nb, true
}

// appendOfflineFrameAnswer answers a frame query without resolving: the
// TRACY_SYMBOL_OFFLINE_RESOLVE form, one "[unresolved]" frame whose symAddr
// is the image-relative call site. Addresses outside the executable are
// resolved here as usual.
func appendOfflineFrameAnswer(b []byte, addr uint64) []byte {
	im := exeImg()
	if !im.ok || addr <= im.start || addr > im.end {
		return appendFrameAnswer(b, addr)
	}
	b = appendSingle(b, im.path)
	b = protocol.AppendCallstackFrameSize(b, addr, 1)
	b = appendSingle(b, "[unresolved]")
	b = appendSecond(b, "[unknown]")
	return protocol.AppendCallstackFrame(b, 0, addr-im.ext().Base, 0)
}
