// This file only dispatches: each subcommand lives in its own file and
// registers itself.

package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"

	"github.com/gotracy/gotracy/internal/fileio"
)

// command is one subcommand. setup declares the command's flags on fs and
// returns the function that runs it with the positional arguments; keeping the
// two apart lets `gotracy help CMD` print flags without running anything.
type command struct {
	name    string
	summary string // one line for `gotracy help`
	usage   string // synopsis after "gotracy ", e.g. "dump [--json] RAW"
	setup   func(fs *flag.FlagSet) func(e *env, args []string) error
	// graceful commands watch env.ctx: the first SIGINT, SIGTERM or SIGHUP
	// only cancels it (capture then saves what it has; the others stop and
	// write nothing), a second one cancels env.abort. The other commands
	// write no file, or nothing worth finishing, and end at the first signal.
	graceful bool
	// help is more text for `gotracy help CMD` (endpoints, exit codes).
	help string
}

// env is what a running command may touch besides its arguments; tests pass
// buffers here instead of the process's standard streams.
type env struct {
	stdout io.Writer
	stderr io.Writer
	// ctx ends at the first signal, abort at the second (see main). Both
	// carry an *interrupted cause.
	ctx   context.Context
	abort context.Context
	sig   *signals // nil in tests
}

// exitOnSignal makes the first signal end the process at once, for a
// command that turns out not to watch ctx (symbols resolve).
func (e *env) exitOnSignal() {
	if e.sig != nil {
		e.sig.setGraceful(false)
	}
}

func (e *env) context() context.Context {
	if e.ctx == nil {
		return context.Background()
	}
	return e.ctx
}

func (e *env) abortContext() context.Context {
	if e.abort == nil {
		return context.Background()
	}
	return e.abort
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
	e := &env{stdout: os.Stdout, stderr: os.Stderr}
	sig := handleSignals(e)
	if signalsReady != nil {
		signalsReady()
	}
	os.Exit(runEnv(os.Args[1:], e, sig))
}

// signalsReady, when set (tests only), runs once the signal handlers are
// in place, so a test knows when signalling the process is meaningful.
var signalsReady func()

// run is main without the process exit and signals, so tests can drive the
// whole CLI.
func run(args []string, stdout, stderr io.Writer) int {
	return runEnv(args, &env{stdout: stdout, stderr: stderr}, nil)
}

func runEnv(args []string, e *env, sig *signals) int {
	stdout, stderr := e.stdout, e.stderr
	if len(args) == 0 {
		printCommands(stderr)
		return 2
	}
	name := args[0]
	switch name {
	case "-h", "-help", "--help":
		name = "help"
	case "-version", "--version":
		name = "version"
	}
	c, ok := commands[name]
	if !ok {
		if strings.HasPrefix(name, "-") {
			fmt.Fprintf(stderr, "gotracy: unknown flag %s: flags follow the command (gotracy COMMAND [flags])\n\n", name)
		} else {
			fmt.Fprintf(stderr, "gotracy: unknown command %q\n\n", name)
		}
		printCommands(stderr)
		return 2
	}
	if sig != nil {
		e.sig = sig
		sig.setGraceful(c.graceful)
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
		err = runFn(e, pos)
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
	var in *interrupted
	if errors.As(err, &in) {
		fmt.Fprintf(stderr, "gotracy %s: %s; nothing written\n", c.name, err)
		return in.exitCode()
	}
	// Packages prefix their errors with their operation ("replay: ..."),
	// which the command's own prefix already says.
	fmt.Fprintf(stderr, "gotracy %s: %s\n", c.name, strings.TrimPrefix(describeError(err), c.name+": "))
	return 1
}

func init() {
	register(&command{
		name:    "help",
		summary: "list the commands, or show one command's usage and flags",
		usage:   "help [COMMAND]",
		help: "Every command also takes -h (or --help) for the same text.\n\n" +
			"Exit status, for every command: 0 success; 1 failure (the message says what was\n" +
			"expected and what was found); 2 wrong usage; 128+N interrupted by signal N\n" +
			"(SIGINT 130, SIGTERM 143, SIGHUP 129) before anything was written.",
		setup: func(fs *flag.FlagSet) func(*env, []string) error {
			return func(e *env, args []string) error {
				switch len(args) {
				case 0:
					printCommands(e.stdout)
					return nil
				case 1:
					c, ok := commands[args[0]]
					if !ok {
						return usagef("unknown command %q (run 'gotracy help' for the list)", args[0])
					}
					printCommandHelp(c, e.stdout)
					return nil
				}
				return usagef("help takes at most one command, got %d arguments", len(args))
			}
		},
	})
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
	args = joinOptionalValues(fs, args)
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
	fmt.Fprintln(w, "Usage: gotracy COMMAND [flags] [args]   (flags may come before or after the arguments)")
	fmt.Fprintln(w, "       gotracy --version | -h | help COMMAND")
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
	printFlags(w, fs)
	if c.help != "" {
		fmt.Fprintf(w, "\n%s\n", c.help)
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

// Outputs refused by internal/fileio are already one full sentence.
func init() {
	errorDescribers = append(errorDescribers, func(err error) string {
		var nr *fileio.NotRegularError
		var ex *fileio.ExistsError
		switch {
		case errors.As(err, &nr):
			return nr.Error()
		case errors.As(err, &ex):
			return ex.Error()
		}
		return ""
	})
}
