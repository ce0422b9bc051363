package main

import (
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/gotracy/gotracy/formats/merge"
	"github.com/gotracy/gotracy/tracefile"
)

func init() {
	register(&command{
		name:    "merge",
		summary: "merge .tracy files into one, like tracy-merge (threads named program/thread; optional time offsets)",
		usage:   "merge A.tracy B.tracy ... -o OUT.tracy [--offset FILE=NS ...] [-f]",
		setup:   setupMerge,
	})
}

// offsetFlag collects repeated --offset FILE=NS values.
type offsetFlag map[string]int64

func (o offsetFlag) String() string { return "" }

func (o offsetFlag) Set(s string) error {
	i := strings.LastIndexByte(s, '=')
	if i <= 0 {
		return fmt.Errorf("want FILE=NS, got %q", s)
	}
	ns, err := strconv.ParseInt(s[i+1:], 10, 64)
	if err != nil {
		return fmt.Errorf("offset of %s: want an integer number of nanoseconds, got %q", s[:i], s[i+1:])
	}
	o[s[:i]] = ns
	return nil
}

func setupMerge(fs *flag.FlagSet) func(*env, []string) error {
	out := fs.String("o", "", "output .tracy `file` (required; written atomically)")
	force := fs.Bool("f", false, "overwrite the output file if it exists")
	alias(fs, "f", "force")
	offsets := offsetFlag{}
	fs.Var(offsets, "offset", "shift the times of input `FILE=NS` by NS nanoseconds (repeatable)")
	return func(e *env, args []string) error {
		if len(args) == 0 {
			return usagef("merge needs at least one input trace")
		}
		if *out == "" {
			return usagef("merge needs an output file: -o OUT.tracy")
		}
		for f := range offsets {
			found := false
			for _, a := range args {
				found = found || a == f
			}
			if !found {
				return usagef("--offset names %q, which is not one of the inputs", f)
			}
		}
		if err := checkFormatOutput(*out, *force); err != nil {
			return err
		}
		for _, a := range args {
			if err := checkFormatInput(a); err != nil {
				return err
			}
		}
		m := merge.New()
		// One input in memory at a time besides the merged records.
		for _, a := range args {
			t, err := tracefile.ReadFile(a)
			if err != nil {
				return err
			}
			if err := m.Add(t, offsets[a]); err != nil {
				return fmt.Errorf("%s: %w", a, err)
			}
		}
		t, err := m.Finish()
		if err != nil {
			return err
		}
		if err := writeFormatOutput(e.context(), *out, *force, func(w io.Writer) error { return tracefile.Write(w, t) }); err != nil {
			return fmt.Errorf("saving %s: %w", *out, err)
		}
		fmt.Fprintf(e.stdout, "%s: %d inputs, %d zones, %d messages, %d plots, %d threads\n", *out, len(args), t.ZoneCount(), len(t.Messages), len(t.Plots), len(t.Threads))
		return nil
	}
}
