//go:build linux && !notracy

package tracy

import (
	"bufio"
	"encoding/binary"
	"encoding/hex"
	"io"
	"os"
	"strconv"
	"strings"
)

// loadExeImage describes the running executable for the gotracy image-list
// extension (protocol.ServerQueryGotracyImages): its address range, load
// bias and build id, read from the ELF headers of /proc/self/exe and from
// /proc/self/maps. Only the program headers and the PT_NOTE segments are
// read (a few KiB), with a hand-written parser rather than debug/elf, which
// would add far more to every instrumented binary than this needs.
func loadExeImage() (img exeImage) {
	f, err := os.Open("/proc/self/exe")
	if err != nil {
		return img
	}
	defer f.Close()
	var eh [64]byte
	if _, err := f.ReadAt(eh[:], 0); err != nil || string(eh[:4]) != "\x7fELF" || eh[4] != 2 || eh[5] != 1 {
		return img // not a 64-bit little-endian ELF: nothing we can describe
	}
	le := binary.LittleEndian
	phoff, phentsize, phnum := le.Uint64(eh[0x20:]), int(le.Uint16(eh[0x36:])), int(le.Uint16(eh[0x38:]))
	if phentsize < 56 || phnum == 0 || phnum > 256 {
		return img
	}
	ph := make([]byte, phentsize*phnum)
	if _, err := f.ReadAt(ph, int64(phoff)); err != nil {
		return img
	}
	var gnuID []byte
	var goID string
	lo, hi := ^uint64(0), uint64(0)
	firstLoad := ^uint64(0) // vaddr of the PT_LOAD mapping file offset 0
	for i := range phnum {
		p := ph[i*phentsize:]
		typ, off, vaddr, filesz, memsz := le.Uint32(p), le.Uint64(p[8:]), le.Uint64(p[16:]), le.Uint64(p[32:]), le.Uint64(p[40:])
		switch typ {
		case 1: // PT_LOAD
			lo, hi = min(lo, vaddr), max(hi, vaddr+memsz)
			if off == 0 {
				firstLoad = vaddr
			}
		case 4: // PT_NOTE
			if filesz > 1<<16 {
				continue
			}
			d := make([]byte, filesz)
			if _, err := f.ReadAt(d, int64(off)); err == nil {
				parseNotes(d, &gnuID, &goID)
			}
		}
	}
	if lo >= hi || firstLoad == ^uint64(0) {
		return img
	}
	start, ok := mappedAt(exePath)
	if !ok {
		return img
	}
	bias := start - firstLoad&^0xfff
	img.start, img.end, img.bias, img.path = lo+bias, hi+bias, bias, exePath
	switch {
	case len(gnuID) > 0:
		img.id = hex.EncodeToString(gnuID)
	case goID != "":
		img.id = "go:" + goID
	default:
		img.id = "none"
	}
	img.ok = true
	return img
}

// parseNotes reads ELF notes: the GNU build id (type 3) and the Go build id
// (name "Go", type 4).
func parseNotes(d []byte, gnuID *[]byte, goID *string) {
	le := binary.LittleEndian
	for len(d) >= 12 {
		namesz, descsz, typ := uint64(le.Uint32(d)), uint64(le.Uint32(d[4:])), le.Uint32(d[8:])
		d = d[12:]
		na, da := (namesz+3)&^3, (descsz+3)&^3
		if na+descsz > uint64(len(d)) {
			return
		}
		name, desc := strings.TrimRight(string(d[:namesz]), "\x00"), d[na:na+descsz]
		switch {
		case name == "GNU" && typ == 3:
			*gnuID = append([]byte(nil), desc...)
		case name == "Go" && typ == 4:
			*goID = string(desc)
		}
		if na+da > uint64(len(d)) {
			return
		}
		d = d[na+da:]
	}
}

// mappedAt finds where the file at path is mapped from offset 0.
func mappedAt(path string) (uint64, bool) {
	f, err := os.Open("/proc/self/maps")
	if err != nil {
		return 0, false
	}
	defer f.Close()
	return scanMaps(f, path)
}

func scanMaps(r io.Reader, path string) (uint64, bool) {
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		// start-end perms offset dev inode path
		fields := strings.Fields(sc.Text())
		if len(fields) < 6 || strings.Join(fields[5:], " ") != path || fields[2] != "00000000" {
			continue
		}
		rng, _, _ := strings.Cut(fields[0], "-")
		if v, err := strconv.ParseUint(rng, 16, 64); err == nil {
			return v, true
		}
	}
	return 0, false
}
