//go:build !unix

package viewer_test

import "time"

// cpuTime is not measured here: the CPU figures of the live benchmark read 0.
func cpuTime() time.Duration { return 0 }
