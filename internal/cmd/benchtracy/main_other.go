//go:build !linux

package main

import (
	"fmt"
	"os"
)

// The comparison reads /proc/net/tcp and getrusage's Linux fields.
func main() {
	fmt.Fprintln(os.Stderr, "benchtracy: Linux only (it reads /proc/net/tcp and Linux getrusage figures)")
	os.Exit(1)
}
