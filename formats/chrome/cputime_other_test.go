//go:build !unix

package chrome

import "time"

func cpuTime() time.Duration { return 0 }
