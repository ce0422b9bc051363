package symbols

import (
	"encoding/hex"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// candidate is an opened file whose format and id are known but which is not
// yet accepted.
type candidate struct {
	path   string
	file   *os.File
	format string
	id     ID
	elf    *elfInfo
	err    error
}

func openCandidate(path string) (*candidate, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	st, err := f.Stat()
	if err != nil || !st.Mode().IsRegular() {
		f.Close()
		return nil, fmt.Errorf("%s: %w", path, errNotRegular)
	}
	var magic [4]byte
	if _, err := f.ReadAt(magic[:], 0); err != nil {
		f.Close()
		return nil, fmt.Errorf("%w: %s: too short", ErrUnsupportedFormat, path)
	}
	c := &candidate{path: path, file: f}
	switch {
	case string(magic[:]) == "\x7fELF":
		c.format = "elf"
		c.elf, err = readELFInfo(f)
		if err == nil {
			c.id = c.elf.id()
		}
	case magic[0] == 'M' && magic[1] == 'Z':
		c.format = "pe"
		_, c.id, _, err = readPE(f)
	case isMachOMagic(magic):
		c.format = "macho"
		_, c.id, err = readMachO(f)
	default:
		err = fmt.Errorf("%w: %s", ErrUnsupportedFormat, path)
	}
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return c, nil
}

// errNotRegular marks directories and devices met where a file was expected.
var errNotRegular = errors.New("not a regular file")

// isAbsent reports errors meaning "nothing there", which are not worth
// reporting as rejected candidates.
func isAbsent(err error) bool {
	return errors.Is(err, os.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) || errors.Is(err, errNotRegular)
}

func isMachOMagic(m [4]byte) bool {
	switch string(m[:]) {
	case "\xfe\xed\xfa\xce", "\xce\xfa\xed\xfe", "\xfe\xed\xfa\xcf", "\xcf\xfa\xed\xfe":
		return true
	}
	return false
}

// matches is the one place deciding whether a file is the wanted build.
func (c *candidate) matches(want ID) bool {
	if want.IsZero() {
		return true
	}
	if c.elf != nil {
		return c.elf.matches(want)
	}
	return want.Equal(c.id)
}

// locator finds files for images according to the Resolver's options.
type locator struct {
	o *options
}

// allowed enforces confinement: when the resolver serves untrusted
// requests, only files under the search directories may be opened.
func (l *locator) allowed(p string) bool {
	if !l.o.confine {
		return true
	}
	abs, err := filepath.Abs(p)
	if err != nil {
		return false
	}
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		abs = real
	}
	for _, d := range l.o.searchDirs {
		da, err := filepath.Abs(d)
		if err != nil {
			continue
		}
		if real, err := filepath.EvalSymlinks(da); err == nil {
			da = real
		}
		if rel, err := filepath.Rel(da, abs); err == nil && rel != ".." && !strings.HasPrefix(rel, "../") {
			return true
		}
	}
	return false
}

func buildIDPath(dir string, id []byte, suffix string) string {
	h := hex.EncodeToString(id)
	if len(h) < 3 {
		return ""
	}
	return filepath.Join(dir, ".build-id", h[:2], h[2:]+suffix)
}

// imageCandidates lists where an image may be, in search order.
func (l *locator) imageCandidates(img Image) []string {
	var out []string
	seen := map[string]bool{}
	add := func(p string) {
		if p != "" && !seen[p] {
			seen[p] = true
			out = append(out, p)
		}
	}
	if !l.o.confine {
		add(img.Path)
	}
	for _, s := range l.o.subst {
		if s.re.MatchString(img.Path) {
			add(s.re.ReplaceAllString(img.Path, s.repl))
		}
	}
	base := filepath.Base(img.Path)
	if strings.ContainsAny(img.Path, `\`) {
		base = img.Path[strings.LastIndexByte(img.Path, '\\')+1:]
	}
	for _, d := range l.o.searchDirs {
		if base != "" && base != "." && base != ".." && base != "/" {
			add(filepath.Join(d, base))
			if img.ID.Kind == IDBreakpad {
				// The symbol-server layout: DIR/NAME/BREAKPADID/NAME.
				add(filepath.Join(d, base, string(img.ID.Bytes), base))
			}
		}
		if !l.o.confine && filepath.IsAbs(img.Path) {
			add(filepath.Join(d, img.Path))
		}
	}
	if img.ID.Kind == IDGNU {
		for _, d := range l.debugRoots() {
			add(buildIDPath(d, img.ID.Bytes, ""))
		}
	}
	return out
}

func (l *locator) debugRoots() []string {
	return append(append([]string(nil), l.o.searchDirs...), l.o.debugDirs...)
}

// find opens the first candidate that matches the image id; every rejected
// one is reported so "not found" can say "found, but a different build".
func (l *locator) find(img Image) (*candidate, error) {
	nf := &NotFoundError{Image: img.Path}
	for _, p := range l.imageCandidates(img) {
		nf.Searched = append(nf.Searched, p)
		if !l.allowed(p) {
			continue
		}
		c, err := openCandidate(p)
		if err != nil {
			if !isAbsent(err) {
				nf.Rejected = append(nf.Rejected, err)
			}
			continue
		}
		if !c.matches(img.ID) {
			nf.Rejected = append(nf.Rejected, &MismatchError{Path: p, Want: img.ID, Got: c.id})
			c.file.Close()
			continue
		}
		return c, nil
	}
	// Only a debug file is around (a build-id tree, or debuginfod): it
	// carries the symbol table and DWARF, which is all we need.
	if img.ID.Kind == IDGNU {
		for _, p := range l.buildIDDebugPaths(img.ID.Bytes) {
			nf.Searched = append(nf.Searched, p)
			if c := l.tryDebug(p, img.ID.Bytes, "", 0, nf); c != nil {
				return c, nil
			}
		}
		if p, err := l.debuginfod(img.ID.Bytes, "debuginfo"); err == nil {
			if c := l.tryDebug(p, img.ID.Bytes, "", 0, nf); c != nil {
				return c, nil
			}
		} else if l.o.debuginfodURL != "" {
			nf.Rejected = append(nf.Rejected, err)
		}
	}
	return nil, nf
}

func (l *locator) buildIDDebugPaths(id []byte) []string {
	var out []string
	for _, d := range l.debugRoots() {
		out = append(out, buildIDPath(d, id, ".debug"))
	}
	return out
}

// tryDebug opens a split debug file and accepts it only if it belongs to the
// image: same GNU build id or, for images without one, the debuglink CRC.
func (l *locator) tryDebug(p string, gnuID []byte, link string, crc uint32, nf *NotFoundError) *candidate {
	if !l.allowed(p) {
		return nil
	}
	c, err := openCandidate(p)
	if err != nil {
		if !isAbsent(err) {
			nf.Rejected = append(nf.Rejected, err)
		}
		return nil
	}
	if c.elf == nil || !c.elf.hasDWARF && !c.elf.hasSymtab {
		nf.Rejected = append(nf.Rejected, fmt.Errorf("%s: %w", p, ErrNoDebugInfo))
		c.file.Close()
		return nil
	}
	if len(gnuID) > 0 {
		if string(c.elf.gnuID) != string(gnuID) {
			nf.Rejected = append(nf.Rejected, &MismatchError{Path: p, Want: ID{Kind: IDGNU, Bytes: gnuID}, Got: c.id})
			c.file.Close()
			return nil
		}
		return c
	}
	// No build id: the debuglink CRC32 of the whole debug file decides.
	h := crc32.NewIEEE()
	if _, err := io.Copy(h, io.NewSectionReader(c.file, 0, 1<<62)); err != nil || h.Sum32() != crc {
		nf.Rejected = append(nf.Rejected, fmt.Errorf("%s: debuglink CRC %08x does not match %08x: %w", p, h.Sum32(), crc, ErrBuildIDMismatch))
		c.file.Close()
		return nil
	}
	return c
}

// findDebug locates the split debug file of an ELF image that lacks DWARF.
func (l *locator) findDebug(img *candidate) (*candidate, error) {
	info := img.elf
	nf := &NotFoundError{Image: img.path + " (debug file)"}
	var paths []string
	if len(info.gnuID) > 0 {
		paths = append(paths, l.buildIDDebugPaths(info.gnuID)...)
	}
	if link := filepath.Base(info.debuglink); info.debuglink != "" && link != "." && link != ".." && link != "/" {
		dir := filepath.Dir(img.path)
		if abs, err := filepath.Abs(dir); err == nil {
			dir = abs
		}
		paths = append(paths, filepath.Join(dir, link), filepath.Join(dir, ".debug", link))
		for _, d := range l.o.debugDirs {
			paths = append(paths, filepath.Join(d, dir, link))
		}
		for _, d := range l.o.searchDirs {
			paths = append(paths, filepath.Join(d, link))
		}
	}
	seen := map[string]bool{img.path: true}
	for _, p := range paths {
		if seen[p] {
			continue
		}
		seen[p] = true
		nf.Searched = append(nf.Searched, p)
		if c := l.tryDebug(p, info.gnuID, info.debuglink, info.crc, nf); c != nil {
			return c, nil
		}
	}
	if len(info.gnuID) > 0 && l.o.debuginfodURL != "" {
		p, err := l.debuginfod(info.gnuID, "debuginfo")
		if err == nil {
			if c := l.tryDebug(p, info.gnuID, "", 0, nf); c != nil {
				return c, nil
			}
		} else {
			nf.Rejected = append(nf.Rejected, err)
		}
	}
	return nil, nf
}

// load turns a located candidate into a usable object, pulling in a split
// debug file or dSYM when the image itself has no DWARF.
func (l *locator) load(img Image) (*object, error) {
	c, err := l.find(img)
	if err != nil {
		return nil, err
	}
	o := &object{path: c.path, id: c.id, format: c.format, closers: []io.Closer{c.file}}
	switch c.format {
	case "elf":
		err = l.loadELF(o, c)
	case "macho":
		err = l.loadMachO(o, c)
	case "pe":
		err = l.loadPE(o, c)
	}
	if err != nil {
		o.close()
		return nil, err
	}
	if l.o.a2l && c.format == "elf" {
		o.a2lSyms = newA2lSymtab(c.elf.f)
		if o.dw != nil {
			o.dw.a2l = true
		}
		if lazy := o.dwLazy; lazy != nil {
			o.dwLazy = func() (*dwarfIndex, error) {
				x, err := lazy()
				if x != nil {
					x.a2l = true
				}
				return x, err
			}
		}
	}
	if o.dw == nil && o.dwLazy == nil && len(o.syms) == 0 && o.gotab == nil && o.goinl == nil {
		o.close()
		if o.debugErr != nil {
			return nil, fmt.Errorf("%s: %w (%w)", c.path, ErrNoDebugInfo, o.debugErr)
		}
		return nil, fmt.Errorf("%s: %w", c.path, ErrNoDebugInfo)
	}
	return o, nil
}

func (l *locator) loadELF(o *object, c *candidate) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("%w: %s: %v", ErrMalformed, c.path, p)
		}
	}()
	f := c.elf.f
	o.serverBase = elfServerBase(f)
	// The symbol table is read and sorted on a goroutine of its own while
	// this one reads the DWARF sections or the pclntab: opening is the
	// part of a cold batch no other worker can help with. A panic there
	// is raised again here, where the recover above reports it.
	var syms []sym
	var symsPanic any
	symsDone := make(chan struct{})
	go func() {
		defer close(symsDone)
		defer func() { symsPanic = recover() }()
		syms = elfSymbols(f)
	}()
	waitSyms := func() {
		<-symsDone
		if symsPanic != nil {
			panic(symsPanic)
		}
	}
	defer func() {
		if err == nil {
			waitSyms()
			o.syms = newSymtab(syms)
		}
	}()
	o.elfGoTable(f)
	dbg, dbgFile := f, io.ReaderAt(c.file)
	if !c.elf.hasDWARF {
		dc, derr := l.findDebug(c)
		if derr != nil {
			o.debugErr = derr
		} else {
			o.closers = append(o.closers, dc.file)
			dbg, dbgFile = dc.elf.f, dc.file
			waitSyms()
			if len(syms) == 0 || !c.elf.hasSymtab {
				syms = append(syms, elfSymbols(dbg)...)
			}
			o.debugPath = dc.path
		}
	}
	if dbg == f && !c.elf.hasDWARF {
		return nil
	}
	from := c.path
	if dbg != f {
		from = o.debugPath
	}
	if o.goinl != nil {
		o.debugPath = from
		o.dwLazy = func() (*dwarfIndex, error) {
			d, err := elfDWARFSectionsMapped(dbg, dbgFile, l.o.mapped)
			if err != nil {
				return nil, err
			}
			return newDwarfIndex(d)
		}
		return nil
	}
	d, derr := elfDWARFSectionsMapped(dbg, dbgFile, l.o.mapped)
	if derr != nil {
		if o.debugPath == "" {
			o.debugErr = fmt.Errorf("%s: %w", c.path, derr)
			return nil
		}
		o.debugErr = fmt.Errorf("%s: %w", o.debugPath, derr)
		return nil
	}
	if err := o.setDWARF(d, from); err != nil {
		o.debugErr = err
	}
	return nil
}
