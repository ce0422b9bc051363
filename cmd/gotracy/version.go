package main

import (
	"flag"
	"fmt"
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
				fmt.Fprintf(e.stdout, "gotracy %s (Tracy 0.14.0, protocol 82)\n", gotracyVersion)
				return nil
			}
		},
	})
}
