//go:build !notracy

package tracy_test

import (
	"context"
	"fmt"
	"sort"
	"sync"
	"time"

	"github.com/gotracy/gotracy/capture"
	"github.com/gotracy/gotracy/model"
	"github.com/gotracy/gotracy/tracy"
)

// record runs emit with the profiler started and the gotracy capture server
// connected to it in-process, and returns what the capture stored. The
// examples use it to show what each call produces; a real program only
// calls tracy.Start and tracy.Stop and lets the Tracy GUI connect.
func record(emit func()) *model.Trace {
	if err := tracy.Start(tracy.WithPort(0), tracy.WithBroadcast(false)); err != nil {
		panic(err)
	}
	ch := make(chan *capture.Result, 1)
	go func() {
		res, err := capture.Connect(context.Background(), capture.JoinAddr("127.0.0.1", tracy.Port()))
		if err != nil {
			panic(err)
		}
		ch <- res
	}()
	if err := tracy.WaitConnected(context.Background()); err != nil {
		panic(err)
	}
	emit()
	if err := tracy.Stop(); err != nil {
		panic(err)
	}
	return (<-ch).Trace
}

func zoneNames(tr *model.Trace) []string {
	var out []string
	for i := range tr.Threads {
		zs := &tr.Threads[i].Zones
		model.Walk(zs, func(z, depth int) bool {
			out = append(out, fmt.Sprintf("%*s%s", 2*depth, "", tr.ZoneName(zs.At(z))))
			return true
		})
	}
	return out
}

var exampleLoc = tracy.NewLoc("update")

// A program starts the profiler once, marks its frames, and stops it at
// exit so everything recorded reaches the viewer.
func Example() {
	tr := record(func() {
		for frame := 0; frame < 3; frame++ {
			z := tracy.Begin(exampleLoc)
			time.Sleep(time.Millisecond)
			z.End()
			tracy.FrameMark()
		}
	})
	fmt.Println("zones:", tr.ZoneCount())
	fmt.Println("frames:", len(tr.FrameSets[0].Frames)-2) // the capture adds two
	// Output:
	// zones: 3
	// frames: 3
}

var (
	parseLoc  = tracy.NewLoc("parse")
	lexLoc    = tracy.NewColorLoc("lex", 0x3080FF)
	checkLoc  = tracy.NewLoc("") // unnamed: the viewer shows the function
	renderLoc = tracy.NewLoc("render")
)

// Zones nest; a Loc per call site is created once, at package level.
// Text, Value and Color annotate the zone.
func ExampleBegin() {
	tr := record(func() {
		z := tracy.Begin(parseLoc)
		z.Text("config.toml")
		z.Value(42)
		lex := tracy.Begin(lexLoc)
		lex.End()
		check := tracy.Begin(checkLoc)
		check.End()
		z.End()
		defer tracy.Begin(renderLoc).End()
	})
	for _, n := range zoneNames(tr) {
		fmt.Println(n)
	}
	// Output:
	// parse
	//   lex
	//   github.com/gotracy/gotracy/tracy_test.ExampleBegin.func1
	// render
}

// Run-time names (script functions, routes) are interned once per name.
func ExampleBeginNamed() {
	tr := record(func() {
		for _, route := range []string{"/users", "/orders", "/users"} {
			tracy.BeginNamed(route).End()
		}
	})
	fmt.Println(zoneNames(tr))
	// Output: [/users /orders /users]
}

// A zone can carry the call stack that led to it; the viewer resolves it
// through the client's answers from the Go runtime's tables.
func ExampleBeginCallstack() {
	tr := record(func() {
		tracy.BeginCallstack(parseLoc, 8).End()
	})
	fmt.Println("call stacks:", tr.NumCallStacks())
	// Output: call stacks: 1
}

// Each goroutine is its own thread in the viewer.
func ExampleSetThreadName() {
	tr := record(func() {
		var wg sync.WaitGroup
		for i := 0; i < 2; i++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				tracy.SetThreadName(fmt.Sprintf("worker-%d", i))
				tracy.Begin(parseLoc).End()
			}()
		}
		wg.Wait()
	})
	var names []string
	for _, th := range tr.Threads {
		names = append(names, tr.ThreadName(th.ID))
	}
	sort.Strings(names)
	fmt.Println(names)
	// Output: [worker-0 worker-1]
}

// Screenshots attach to frames; the client compresses them to DXT1 in the
// background.
func ExampleFrameImage() {
	tr := record(func() {
		rgba := make([]byte, 64*32*4) // width and height: multiples of 4
		for i := range rgba {
			rgba[i] = byte(i)
		}
		if err := tracy.FrameImage(rgba, 64, 32, 0, false); err != nil {
			panic(err)
		}
		time.Sleep(10 * time.Millisecond)
		tracy.FrameMark()
	})
	im := tr.FrameImages[0]
	fmt.Println(len(tr.FrameImages), im.W, im.H)
	// Output: 1 64 32
}

// Plots take int64, float32 or float64 points; PlotConfig sets how the
// viewer draws them.
func ExamplePlot() {
	tr := record(func() {
		tracy.PlotConfig("queue depth", tracy.PlotNumber, true, false, 0)
		for i := 0; i < 5; i++ {
			tracy.PlotInt("queue depth", int64(i*i))
			tracy.Plot("load", float64(i)/4)
		}
	})
	for _, p := range tr.Plots {
		if name, _ := tr.PtrString(p.Name); name == "queue depth" || name == "load" {
			fmt.Println(name, len(p.Points), p.Max)
		}
	}
	// Output:
	// queue depth 5 16
	// load 5 1
}

// Messages appear on the timeline of the goroutine that sent them.
// MessageL is for constant texts: they are sent by key.
func ExampleMessage() {
	tr := record(func() {
		tracy.MessageL("started")
		tracy.Message(fmt.Sprintf("loaded %d items", 12))
		tracy.MessageColor("cache miss", 0xFF0000)
		tracy.AppInfo("build: example")
	})
	for _, m := range tr.Messages {
		if m.Source == model.MsgSourceUser {
			fmt.Println(tr.RefString(m.Text))
		}
	}
	fmt.Println(tr.RefString(tr.AppInfo[len(tr.AppInfo)-1]))
	// Output:
	// started
	// loaded 12 items
	// cache miss
	// build: example
}

// Allocations are reported by key (an address or any unique id), into the
// default pool or named pools.
func ExampleAllocNamed() {
	tr := record(func() {
		for i := uintptr(1); i <= 3; i++ {
			tracy.AllocNamed(i, 1024, "textures")
		}
		tracy.FreeNamed(2, "textures")
	})
	for _, p := range tr.MemPools {
		if name, _ := tr.PtrString(p.Name); name == "textures" {
			live := 0
			for _, e := range p.Events {
				if e.TimeFree < 0 {
					live += int(e.Size)
				}
			}
			fmt.Println(name, len(p.Events), "allocations,", live, "bytes live")
		}
	}
	// Output: textures 3 allocations, 2048 bytes live
}

// Mutex and RWMutex are drop-in replacements that show waits, obtains and
// releases on the lock's timeline.
func ExampleMutex() {
	mu := tracy.NewMutex("cache lock")
	tr := record(func() {
		var wg sync.WaitGroup
		for i := 0; i < 2; i++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				mu.Lock()
				time.Sleep(time.Millisecond)
				mu.Unlock()
			}()
		}
		wg.Wait()
	})
	for _, l := range tr.Locks {
		if tr.Str(l.CustomName) == "cache lock" {
			fmt.Println(tr.Str(l.CustomName), len(l.Events))
		}
	}
	// Output: cache lock 6
}

var stageLoc = tracy.NewLoc("stage")

// Work for one job that hops between goroutines shows as one lane: each
// goroutine that takes the job up enters its fiber.
func ExampleFiberEnter() {
	tr := record(func() {
		for stage := 0; stage < 3; stage++ {
			done := make(chan struct{})
			go func() { // a different goroutine for each stage
				defer close(done)
				tracy.FiberEnter("job 42")
				defer tracy.FiberLeave()
				defer tracy.Begin(stageLoc).End()
			}()
			<-done
		}
	})
	for _, th := range tr.Threads {
		if th.IsFiber {
			fmt.Println(tr.ThreadName(th.ID), "zones:", th.Zones.Len())
		}
	}
	// Output: job 42 zones: 3
}

var siteLoc = tracy.NewLoc("") // unnamed: the zone shows its function

// A Loc made at package level takes its function, file and line from the
// first Begin that uses it, not from the var's initialiser.
func ExampleNewLoc() {
	tr := record(func() {
		handle()
	})
	fmt.Println(zoneNames(tr))
	// Output: [github.com/gotracy/gotracy/tracy_test.handle]
}

func handle() {
	defer tracy.Begin(siteLoc).End()
}

// A short program run without any server: WithExitWait makes Stop wait for
// one (TRACY_NO_EXIT=1 waits without limit), so a capture started a moment
// later still receives everything.
func ExampleWithExitWait() {
	if err := tracy.Start(tracy.WithPort(0), tracy.WithBroadcast(false), tracy.WithExitWait(30*time.Second)); err != nil {
		panic(err)
	}
	for i := 0; i < 1000; i++ {
		tracy.Begin(exampleLoc).End()
	}
	port := tracy.Port()
	ch := make(chan *capture.Result, 1)
	go func() {
		time.Sleep(500 * time.Millisecond) // the capture starts after the work is done
		res, err := capture.Connect(context.Background(), capture.JoinAddr("127.0.0.1", port))
		if err != nil {
			panic(err)
		}
		ch <- res
	}()
	if err := tracy.Stop(); err != nil { // waits for the capture, delivers, returns
		panic(err)
	}
	fmt.Println("zones:", (<-ch).Trace.ZoneCount())
	// Output: zones: 1000
}
