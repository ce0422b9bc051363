package main

import (
	"flag"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
)

// Flag conventions (checked by TestFlagConventions): a one-letter flag is
// written -x, a longer one --name, with words joined by '-'; usage lines and
// help use those spellings; each flag is listed once in help, with the other
// spellings Tracy's tools accept beside it ("-f, --filter"). Old spellings
// kept for scripts are hidden aliases: accepted, never listed.

// Markers in a flag's usage text that make it another spelling of a flag.
const (
	aliasShown  = "\x00alias:"  // listed on its target's line
	aliasHidden = "\x00hidden:" // accepted, never listed
)

// alias makes name another spelling of target, listed beside it in help.
func alias(fs *flag.FlagSet, target, name string) {
	fs.Var(fs.Lookup(target).Value, name, aliasShown+target)
}

// hiddenAlias keeps an old spelling working without listing it.
func hiddenAlias(fs *flag.FlagSet, target, name string) {
	fs.Var(fs.Lookup(target).Value, name, aliasHidden+target)
}

// dashed writes a flag name in the one style of usage and help.
func dashed(name string) string {
	if len(name) == 1 {
		return "-" + name
	}
	return "--" + name
}

// visibleFlags are the flags help lists: no aliases.
func visibleFlags(fs *flag.FlagSet) (list []*flag.Flag, shown map[string][]string) {
	shown = map[string][]string{}
	fs.VisitAll(func(f *flag.Flag) {
		switch {
		case strings.HasPrefix(f.Usage, aliasShown):
			t := strings.TrimPrefix(f.Usage, aliasShown)
			shown[t] = append(shown[t], f.Name)
		case strings.HasPrefix(f.Usage, aliasHidden):
		default:
			list = append(list, f)
		}
	})
	return list, shown
}

// printFlags lists each flag once, short spellings first.
func printFlags(w io.Writer, fs *flag.FlagSet) {
	list, shown := visibleFlags(fs)
	if len(list) == 0 {
		return
	}
	sort.SliceStable(list, func(i, j int) bool {
		a, b := list[i].Name, list[j].Name
		if (len(a) == 1) != (len(b) == 1) {
			return len(a) == 1
		}
		return a < b
	})
	fmt.Fprintln(w, "\nFlags:")
	for _, f := range list {
		names := []string{dashed(f.Name)}
		for _, a := range shown[f.Name] {
			names = append(names, dashed(a))
		}
		arg, usage := flag.UnquoteUsage(f)
		arg = strings.ToUpper(arg)
		if _, ok := f.Value.(optionalValue); ok {
			arg = "[" + arg + "]"
		}
		line := "  " + strings.Join(names, ", ")
		if arg != "" {
			line += " " + arg
		}
		fmt.Fprintln(w, line)
		def := f.DefValue
		if def != "" && def != "false" && def != "0" && def != "[]" {
			usage += " (default " + def + ")"
		}
		fmt.Fprintf(w, "        %s\n", strings.ReplaceAll(usage, "\n", "\n        "))
	}
}

// optionalValue is a flag whose value may be left out (csv's -t): "-t" and
// "-t=50" as the flag package parses them, and "-t 50" as Tracy's
// csvexport, which joinOptionalValues turns into "-t=50".
type optionalValue interface {
	flag.Value
	optionalValue()
}

// joinOptionalValues joins an optional-value flag with a following number.
// Only a number is taken, so "-t FILE" still leaves FILE positional.
func joinOptionalValues(fs *flag.FlagSet, args []string) []string {
	var out []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			return append(out, args[i:]...)
		}
		if strings.HasPrefix(a, "-") && !strings.Contains(a, "=") && i+1 < len(args) {
			if f := fs.Lookup(strings.TrimLeft(a, "-")); f != nil {
				if _, ok := f.Value.(optionalValue); ok {
					if _, err := strconv.Atoi(args[i+1]); err == nil {
						out = append(out, a+"="+args[i+1])
						i++
						continue
					}
				}
			}
		}
		out = append(out, a)
	}
	return out
}
