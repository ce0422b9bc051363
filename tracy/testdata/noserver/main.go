// noserver is the manual measurement of issue #12: an instrumented program
// in the default mode with no server attached, 8 goroutines of small
// zones. Every 5 s it prints the process's resident memory (VmRSS), the
// zones completed in the interval and the client's queue and backlog
// figures; at the end its workers are joined and tracy.Stop is called, as a
// typical main does.
//
//	go run ./tracy/testdata/noserver [-d 60s] [-g 8]
package main

import (
	"flag"
	"fmt"
	"os"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gotracy/gotracy/tracy"
)

var loc = tracy.NewLoc("small")

func rss() string {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return "?"
	}
	for _, l := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(l, "VmRSS:") {
			return strings.TrimSpace(strings.TrimPrefix(l, "VmRSS:"))
		}
	}
	return "?"
}

func main() {
	d := flag.Duration("d", 60*time.Second, "how long to run")
	g := flag.Int("g", 8, "goroutines")
	flag.Parse()
	if err := tracy.Start(tracy.WithPort(0), tracy.WithBroadcast(false), tracy.WithExitWait(0)); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	var stop atomic.Bool
	var n atomic.Int64
	var wg sync.WaitGroup
	for i := 0; i < *g; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for !stop.Load() {
				for j := 0; j < 1000; j++ {
					tracy.Begin(loc).End()
				}
				n.Add(1000)
				runtime.Gosched()
			}
		}()
	}
	start := time.Now()
	last := int64(0)
	for time.Since(start) < *d {
		time.Sleep(5 * time.Second)
		c := n.Load()
		st := tracy.ReadStats()
		fmt.Printf("t=%3.0fs rss=%s zones/s=%.3g queue=%dMiB backlog=%dMiB stops=%d waits=%d\n",
			time.Since(start).Seconds(), rss(), float64(c-last)/5, st.QueueBytes>>20, st.BacklogBytes>>20, st.BacklogStops, st.ProducerWaits)
		last = c
	}
	stop.Store(true)
	wg.Wait()
	t0 := time.Now()
	err := tracy.Stop()
	fmt.Printf("joined; Stop returned %v after %v; rss=%s\n", err, time.Since(t0).Round(time.Millisecond), rss())
}
