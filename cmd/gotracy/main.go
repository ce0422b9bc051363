// This file only dispatches: each subcommand lives in its own file and
// registers itself.

package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
)

// command is one subcommand. setup declares the command's flags on fs and
// returns the function that runs it with the positional arguments; keeping the
// two apart lets `gotracy help CMD` print flags without running anything.
type command struct {
	name    string
	summary string // one line for `gotracy help`
	usage   string // synopsis after "gotracy ", e.g. "dump [--json] RAW"
	setup   func(fs *flag.FlagSet) func(e *env, args []string) error
}

// env is what a running command may touch besides its arguments; tests pass
// buffers here instead of the process's standard streams.
type env struct {
	stdout io.Writer
	stderr io.Writer
}

var commands = map[string]*command{}

func register(c *command) {
	if _, dup := commands[c.name]; dup {
		panic("gotracy: command registered twice: " + c.name)
	}
	commands[c.name] = c
}

// usageError marks an error in how the command was called (exit status 2),
// as opposed to a failure while doing the work (exit status 1).
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

func usagef(format string, args ...any) error {
	return &usageError{msg: fmt.Sprintf(format, args...)}
}

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// run is main without the process exit, so tests can drive the whole CLI.
func run(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		printCommands(stderr)
		return 2
	}
	name := args[0]
	switch name {
	case "help", "-h", "-help", "--help":
		if len(args) > 1 {
			c, ok := commands[args[1]]
			if !ok {
				fmt.Fprintf(stderr, "gotracy: unknown command %q\n\n", args[1])
				printCommands(stderr)
				return 2
			}
			printCommandHelp(c, stdout)
			return 0
		}
		printCommands(stdout)
		return 0
	}
	c, ok := commands[name]
	if !ok {
		fmt.Fprintf(stderr, "gotracy: unknown command %q\n\n", name)
		printCommands(stderr)
		return 2
	}
	fs := flag.NewFlagSet("gotracy "+c.name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	runFn := c.setup(fs)
	pos, err := parseInterleaved(fs, args[1:])
	if errors.Is(err, flag.ErrHelp) {
		printCommandHelp(c, stdout)
		return 0
	}
	if err == nil {
		err = runFn(&env{stdout: stdout, stderr: stderr}, pos)
	}
	if err == nil {
		return 0
	}
	var ue *usageError
	if errors.As(err, &ue) || isFlagError(err) {
		fmt.Fprintf(stderr, "gotracy %s: %v\n\n", c.name, err)
		printCommandHelp(c, stderr)
		return 2
	}
	fmt.Fprintf(stderr, "gotracy %s: %s\n", c.name, describeError(err))
	return 1
}

// flagError wraps errors from the flag package so run can tell them apart.
type flagError struct{ err error }

func (e *flagError) Error() string { return e.err.Error() }
func (e *flagError) Unwrap() error { return e.err }

func isFlagError(err error) bool {
	var fe *flagError
	return errors.As(err, &fe)
}

// parseInterleaved lets flags follow positional arguments ("dump RAW --json"),
// which the standard flag package stops at. Everything after "--" is
// positional.
func parseInterleaved(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if i := indexOf(args, "--"); i >= 0 {
			if err := fs.Parse(args[:i]); err != nil {
				return nil, wrapFlagErr(err)
			}
			if fs.NArg() > 0 {
				pos = append(pos, fs.Args()...)
			}
			return append(pos, args[i+1:]...), nil
		}
		if err := fs.Parse(args); err != nil {
			return nil, wrapFlagErr(err)
		}
		rest := fs.Args()
		if len(rest) == 0 {
			return pos, nil
		}
		pos = append(pos, rest[0])
		args = rest[1:]
	}
}

func wrapFlagErr(err error) error {
	if errors.Is(err, flag.ErrHelp) {
		return err
	}
	return &flagError{err: err}
}

func indexOf(s []string, v string) int {
	for i, x := range s {
		if x == v {
			return i
		}
	}
	return -1
}

func printCommands(w io.Writer) {
	fmt.Fprintln(w, "gotracy: the Tracy 0.14 frame profiler toolkit, in Go.")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Usage: gotracy COMMAND [flags] [args]")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Commands:")
	names := make([]string, 0, len(commands))
	for n := range commands {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(w, "  %-10s %s\n", n, commands[n].summary)
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Run 'gotracy help COMMAND' for a command's flags.")
}

func printCommandHelp(c *command, w io.Writer) {
	fmt.Fprintf(w, "Usage: gotracy %s\n\n%s\n", c.usage, c.summary)
	fs := flag.NewFlagSet(c.name, flag.ContinueOnError)
	c.setup(fs)
	n := 0
	fs.VisitAll(func(*flag.Flag) { n++ })
	if n > 0 {
		fmt.Fprintln(w, "\nFlags:")
		fs.SetOutput(w)
		fs.PrintDefaults()
	}
}

// describeError words an error for the user. Packages return typed errors
// wrapped with context; this is the single place that turns them into text,
// so every command reports the same failure the same way.
func describeError(err error) string {
	msg := err.Error()
	for _, d := range errorDescribers {
		if s := d(err); s != "" {
			return s
		}
	}
	return strings.TrimSpace(msg)
}

// errorDescribers let packages' sentinel errors get a friendlier wording
// (registered next to the commands that use those packages).
var errorDescribers []func(error) string
