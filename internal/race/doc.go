// Package race reports whether the race detector is on, so the few tests
// that stream hundreds of megabytes can use a smaller slice of the data
// under -race instead of taking ten times as long:
//
//	n := len(data)
//	if race.Enabled {
//		n /= 10
//	}
package race
