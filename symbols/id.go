package symbols

import (
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"strings"
)

// IDKind says where an ID came from; ids of different kinds never match,
// which keeps a Go build id from being compared with a GNU one.
type IDKind uint8

const (
	IDNone     IDKind = iota
	IDGNU             // ELF NT_GNU_BUILD_ID note bytes
	IDGo              // Go build id string (ELF note "Go" or section .note.go.buildid)
	IDMachO           // LC_UUID, 16 bytes
	IDPE              // CodeView RSDS GUID (16 bytes, as stored) followed by a 4-byte little-endian age
	IDBreakpad        // a breakpad debug id as sent by the Firefox profiler (GUID+age, 33 hex digits)
)

// ID identifies one exact build of an image. The zero ID means "unknown":
// resolution then trusts the path, as Tracy's update tool does.
type ID struct {
	Kind  IDKind
	Bytes []byte
}

func (id ID) IsZero() bool { return id.Kind == IDNone || len(id.Bytes) == 0 }

func (id ID) String() string {
	if id.IsZero() {
		return "none"
	}
	switch id.Kind {
	case IDGo:
		return "go:" + string(id.Bytes)
	case IDPE:
		return "pe:" + id.Breakpad()
	case IDMachO:
		return "macho:" + id.Breakpad()
	case IDBreakpad:
		return "breakpad:" + string(id.Bytes)
	}
	return hex.EncodeToString(id.Bytes)
}

// Equal reports whether two ids denote the same build. A breakpad id matches
// any native id whose Breakpad form is the same, because the symbol server
// only ever receives breakpad ids.
func (id ID) Equal(o ID) bool {
	if id.IsZero() || o.IsZero() {
		return false
	}
	if id.Kind == IDBreakpad || o.Kind == IDBreakpad {
		return strings.EqualFold(id.Breakpad(), o.Breakpad())
	}
	return id.Kind == o.Kind && string(id.Bytes) == string(o.Bytes)
}

// Breakpad formats the id as a breakpad debug id (what samply and the Firefox
// profiler put in memoryMap): the first 16 bytes read as a little-endian GUID,
// upper-case hex, followed by the age in hex (0 for ELF and Mach-O).
func (id ID) Breakpad() string {
	switch id.Kind {
	case IDBreakpad:
		return strings.ToUpper(string(id.Bytes))
	case IDNone:
		return ""
	case IDGo:
		return ""
	}
	var g [16]byte
	copy(g[:], id.Bytes)
	age := uint32(0)
	if id.Kind == IDPE && len(id.Bytes) >= 20 {
		age = binary.LittleEndian.Uint32(id.Bytes[16:20])
	}
	if id.Kind == IDMachO {
		// Mach-O UUIDs are already in display order.
		return strings.ToUpper(hex.EncodeToString(g[:])) + "0"
	}
	// GUID {Data1 LE u32, Data2 LE u16, Data3 LE u16, Data4 [8]} in display order.
	d := []byte{g[3], g[2], g[1], g[0], g[5], g[4], g[7], g[6]}
	d = append(d, g[8:]...)
	return strings.ToUpper(hex.EncodeToString(d)) + strings.ToUpper(fmt.Sprintf("%x", age))
}

// ParseID parses a textual id: "go:..." for Go build ids, "breakpad:..." or a
// 33/34-digit breakpad id, otherwise hex bytes of a GNU build id.
func ParseID(s string) (ID, error) {
	switch {
	case s == "" || s == "none":
		return ID{}, nil
	case strings.HasPrefix(s, "go:"):
		return ID{Kind: IDGo, Bytes: []byte(s[3:])}, nil
	case strings.HasPrefix(s, "breakpad:"):
		return ID{Kind: IDBreakpad, Bytes: []byte(strings.ToUpper(s[9:]))}, nil
	}
	b, err := hex.DecodeString(s)
	if err != nil {
		if len(s) >= 33 {
			return ID{Kind: IDBreakpad, Bytes: []byte(strings.ToUpper(s))}, nil
		}
		return ID{}, fmt.Errorf("symbols: parse id %q: %w", s, err)
	}
	return ID{Kind: IDGNU, Bytes: b}, nil
}
