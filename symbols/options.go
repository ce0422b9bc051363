package symbols

import (
	"fmt"
	"net/http"
	"regexp"
	"runtime"
	"strings"
)

type substitution struct {
	re   *regexp.Regexp
	repl string
}

type options struct {
	searchDirs    []string
	debugDirs     []string
	subst         []substitution
	debuginfodURL string
	httpClient    *http.Client
	cacheDir      string
	demangle      bool
	inlines       bool
	workers       int
	confine       bool
	a2l           bool
	mapped        bool
}

// Option configures a Resolver.
type Option func(*options) error

// WithSearchPath adds directories searched for images by base name (and by
// their full recorded path below the directory), and as build-id roots.
func WithSearchPath(dirs ...string) Option {
	return func(o *options) error {
		for _, d := range dirs {
			if d != "" {
				o.searchDirs = append(o.searchDirs, d)
			}
		}
		return nil
	}
}

// WithDebugDirs replaces the global debug directories (default
// /usr/lib/debug), searched with the .build-id layout and for debuglinks.
func WithDebugDirs(dirs ...string) Option {
	return func(o *options) error { o.debugDirs = append([]string(nil), dirs...); return nil }
}

// WithSubstitution rewrites recorded paths, like Tracy's `update -p`:
// every match of the regular expression is replaced (Go's $1 syntax).
func WithSubstitution(re, repl string) Option {
	return func(o *options) error {
		r, err := regexp.Compile(re)
		if err != nil {
			return fmt.Errorf("symbols: substitution %q: %w", re, err)
		}
		o.subst = append(o.subst, substitution{r, repl})
		return nil
	}
}

// ParseSubstitution splits the command-line form "REGEX;REPLACEMENT".
func ParseSubstitution(s string) (Option, error) {
	i := strings.LastIndexByte(s, ';')
	if i < 0 {
		return nil, fmt.Errorf("symbols: substitution %q: want REGEX;REPLACEMENT", s)
	}
	if _, err := regexp.Compile(s[:i]); err != nil {
		return nil, fmt.Errorf("symbols: substitution %q: %w", s, err)
	}
	return WithSubstitution(s[:i], s[i+1:]), nil
}

// WithDebuginfod enables fetching debug files by build id from a debuginfod
// server (e.g. https://debuginfod.elfutils.org). Files are cached in
// cacheDir ("" = the user cache directory); client nil = http.DefaultClient.
func WithDebuginfod(url string, client *http.Client, cacheDir string) Option {
	return func(o *options) error {
		o.debuginfodURL = strings.TrimRight(url, "/")
		o.httpClient = client
		o.cacheDir = cacheDir
		return nil
	}
}

// WithDemangle turns C++/Rust demangling on or off (default on).
func WithDemangle(on bool) Option { return func(o *options) error { o.demangle = on; return nil } }

// WithInlines selects whether inlined frames are returned (default on).
func WithInlines(on bool) Option { return func(o *options) error { o.inlines = on; return nil } }

// WithAddr2line selects binutils addr2line's answers instead of the
// frames a Tracy client would send (the default): file names as DWARF
// composes them (".../client/../libbacktrace/dwarf.cpp", where a client
// sends the path normalised), binutils' rule for the innermost function
// (the smallest range containing the address) and, through an Addr2line
// session, its names for functions without a linkage name. `gotracy
// symbols resolve` uses it.
func WithAddr2line(on bool) Option { return func(o *options) error { o.a2l = on; return nil } }

// WithMappedFiles maps the DWARF sections of uncompressed ELF files
// instead of reading them (Linux; elsewhere a no-op). The mappings are
// never released, not even by Close, because the names in returned Frames
// point into them: for short-lived processes such as `gotracy symbols
// resolve`, where it saves the page faults of copying every section.
func WithMappedFiles(on bool) Option { return func(o *options) error { o.mapped = on; return nil } }

// WithWorkers bounds the goroutines resolving batches (default GOMAXPROCS).
func WithWorkers(n int) Option {
	return func(o *options) error {
		if n < 1 {
			return fmt.Errorf("symbols: %d workers", n)
		}
		o.workers = n
		return nil
	}
}

// WithConfinement restricts every opened file to the search directories and
// ignores recorded paths and global debug directories: what a server that
// answers untrusted requests needs.
func WithConfinement() Option {
	return func(o *options) error { o.confine = true; o.debugDirs = nil; return nil }
}

func defaultOptions() options {
	return options{debugDirs: []string{"/usr/lib/debug"}, demangle: true, inlines: true, workers: runtime.GOMAXPROCS(0)}
}
