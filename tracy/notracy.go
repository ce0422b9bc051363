//go:build notracy

package tracy

import (
	"context"
	"sync"
)

// Built with the notracy tag, every function of the package is an empty
// function the compiler inlines away: instrumented code stays in place and
// costs nothing, and the binary contains no profiler.

// Loc is a source location (notracy: empty).
type Loc struct{ name string }

func (l *Loc) Name() string     { return l.name }
func (l *Loc) Function() string { return "" }
func (l *Loc) File() string     { return "" }
func (l *Loc) Line() int        { return 0 }

func NewLoc(name string) *Loc                                        { return &Loc{name: name} }
func NewColorLoc(name string, color uint32) *Loc                     { return &Loc{name: name} }
func LocAt(name, function, file string, line int, color uint32) *Loc { return &Loc{name: name} }

// Zone is an open zone (notracy: empty).
type Zone struct{}

func Begin(loc *Loc) Zone                     { return Zone{} }
func BeginCallstack(loc *Loc, depth int) Zone { return Zone{} }
func BeginHere() Zone                         { return Zone{} }
func BeginNamed(name string) Zone             { return Zone{} }
func (z Zone) End()                           {}
func (z Zone) Active() bool                   { return false }
func (z Zone) Text(text string)               {}
func (z Zone) Name(name string)               {}
func (z Zone) Color(rgb uint32)               {}
func (z Zone) Value(v uint64)                 {}
func SetThreadName(name string)               {}
func FiberEnter(name string)                  {}
func FiberLeave()                             {}

func Message(text string)                                                    {}
func MessageColor(text string, rgb uint32)                                   {}
func MessageCallstack(text string, depth int)                                {}
func MessageL(text string)                                                   {}
func MessageLColor(text string, rgb uint32)                                  {}
func AppInfo(text string)                                                    {}
func Plot(name string, v float64)                                            {}
func PlotInt(name string, v int64)                                           {}
func PlotFloat(name string, v float32)                                       {}
func PlotConfig(name string, format PlotFormat, step, fill bool, rgb uint32) {}
func FrameMark()                                                             {}
func FrameMarkNamed(name string)                                             {}
func FrameMarkStart(name string)                                             {}
func FrameMarkEnd(name string)                                               {}
func FrameImage(rgba []byte, w, h int, offset uint8, flip bool) error        { return nil }

func Alloc(ptr uintptr, size uint64)                                       {}
func Free(ptr uintptr)                                                     {}
func AllocNamed(ptr uintptr, size uint64, pool string)                     {}
func FreeNamed(ptr uintptr, pool string)                                   {}
func AllocCallstack(ptr uintptr, size uint64, depth int)                   {}
func FreeCallstack(ptr uintptr, depth int)                                 {}
func AllocNamedCallstack(ptr uintptr, size uint64, pool string, depth int) {}
func FreeNamedCallstack(ptr uintptr, pool string, depth int)               {}
func SecureAlloc(ptr uintptr, size uint64)                                 {}
func SecureFree(ptr uintptr)                                               {}
func SecureAllocNamed(ptr uintptr, size uint64, pool string)               {}
func SecureFreeNamed(ptr uintptr, pool string)                             {}
func MemDiscard(pool string)                                               {}
func OnParameter(f func(idx uint32, value int32))                          {}

// Mutex is a plain sync.Mutex in notracy builds.
type Mutex struct{ sync.Mutex }

// RWMutex is a plain sync.RWMutex in notracy builds.
type RWMutex struct{ sync.RWMutex }

func NewMutex(name string) *Mutex     { return &Mutex{} }
func NewRWMutex(name string) *RWMutex { return &RWMutex{} }

func Start(opts ...Option) error              { return nil }
func Stop() error                             { return nil }
func Port() int                               { return 0 }
func Connected() bool                         { return false }
func WaitConnected(ctx context.Context) error { return ErrDisabled }
func ReadStats() Stats                        { return Stats{} }
