package goruntime

import (
	"crypto/sha256"
	"sync"
)

// The overhead benchmarks' workloads (exported to the external tests).

// CPUBound hashes 8 MiB on one goroutine: no scheduling, no allocation.
func CPUBound() {
	buf := make([]byte, 64<<10)
	for i := 0; i < 128; i++ {
		sum := sha256.Sum256(buf)
		buf[0] = sum[0]
	}
}

// GoroutineHeavy runs 1000 goroutines, each hashing 16 KiB in four steps
// and blocking on a channel between them (fan-out, fan-in): about 4,000
// blocks and wake-ups per call, a few tens of microseconds of work each.
func GoroutineHeavy() {
	const n = 1000
	var wg sync.WaitGroup
	start := make(chan struct{})
	results := make(chan [32]byte, 16)
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			buf := make([]byte, 16<<10)
			<-start
			for k := 0; k < 4; k++ {
				sum := sha256.Sum256(buf)
				buf[0] = sum[0]
				results <- sum
			}
		}()
	}
	done := make(chan struct{})
	go func() {
		for range n * 4 {
			<-results
		}
		close(done)
	}()
	close(start)
	wg.Wait()
	<-done
}

// Ring runs 200 goroutines passing 20,000 messages around a ring
// of unbuffered channels: every message is a block and a wake-up.
func Ring() {
	const n, msgs = 200, 20000
	chans := make([]chan int, n)
	for i := range chans {
		chans[i] = make(chan int)
	}
	var wg sync.WaitGroup
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func(in, out chan int) {
			defer wg.Done()
			for v := range in {
				if v == 0 {
					close(out)
					return
				}
				out <- v - 1
			}
			close(out)
		}(chans[i], chans[(i+1)%n])
	}
	chans[0] <- msgs
	wg.Wait()
}
