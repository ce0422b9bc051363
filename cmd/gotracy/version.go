package main

import (
	"flag"
	"fmt"

	"github.com/gotracy/gotracy/protocol"
)

// gotracyVersion is the version of this toolkit, not of the Tracy formats it
// speaks; those are printed beside it.
const gotracyVersion = "0.1.0-dev"

func init() {
	register(&command{
		name:    "version",
		summary: "print the gotracy version and the Tracy version and protocol it speaks",
		usage:   "version",
		setup: func(fs *flag.FlagSet) func(*env, []string) error {
			return func(e *env, args []string) error {
				if len(args) > 0 {
					return usagef("version takes no arguments")
				}
				fmt.Fprintf(e.stdout, "gotracy %s (Tracy %s, protocol %d)\n", gotracyVersion, protocol.TracyVersion, protocol.ProtocolVersion)
				return nil
			}
		},
	})
}
