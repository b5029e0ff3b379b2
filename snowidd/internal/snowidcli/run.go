// Package snowidcli is the snowid command (github.com/snowlab/snowlab/snowidd/cmd/snowid):
// decode a stray ID from a log, mint a few IDs, print a layout's horizon.
// It lives in the snowidd module, which requires every lease store's
// module, so that one snowid takes every lease spec (package leasespec
// lists them) while the library's own packages stay free of every store
// client; its layout flags are snowidd's too.
//
// The texts that name the commands and the lease specs are written from
// one source each: the usage, "snowid help" and each command's -h from
// the command table (Commands), gen -lease's help and the usage's line of
// lease specs from the openers registered (Leases.Stores, described by
// leasespec). cmd/snowid's tests hold its package doc to both.
package snowidcli

import (
	"flag"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/snowlab/snowlab/clocksrc"
	"github.com/snowlab/snowlab/nodeid"
	"github.com/snowlab/snowlab/snowidd/internal/cliflag"
	"github.com/snowlab/snowlab/snowidd/leasespec"
)

// Exit codes.
const (
	exitOK    = 0
	exitFail  = 1 // a valid request failed while running
	exitUsage = 2 // a bad argument or a usage error
)

// Command is one snowid command: its name and the synopsis of its
// arguments. The usage, the command's -h and the package doc all show it
// as "snowid NAME SYNOPSIS".
type Command struct {
	Name, Synopsis string
	run            func(args []string, stdout, stderr io.Writer, leases Leases) int
}

// Line is the command's synopsis line: "snowid NAME SYNOPSIS".
func (c Command) Line() string { return strings.TrimSpace("snowid " + c.Name + " " + c.Synopsis) }

// Commands are snowid's commands, in the order the usage lists them.
func Commands() []Command {
	return []Command{
		{"decode", "[-json] [layout flags] ID...", func(args []string, stdout, stderr io.Writer, _ Leases) int {
			return runDecode(args, stdout, stderr)
		}},
		{"gen", "[-node N | -lease SPEC [-prefer-ordinal]] [-n K] [-policy strict|monotonic] [-max-lead D] [-format dec|base32|json] [layout flags]", runGen},
		{"layout", "[layout flags]", func(args []string, stdout, stderr io.Writer, _ Leases) int {
			return runLayout(args, stdout, stderr)
		}},
		{"range", "[layout flags] FROM TO", func(args []string, stdout, stderr io.Writer, _ Leases) int {
			return runRange(args, stdout, stderr)
		}},
		{"partitions", "-table T -from FROM -to TO -every D [layout flags]", func(args []string, stdout, stderr io.Writer, _ Leases) int {
			return runPartitions(args, stdout, stderr)
		}},
		{"plan", "-processes N -surge X -burst B [-rate R] [-years Y] [-unit D] [-epoch E]", func(args []string, stdout, stderr io.Writer, _ Leases) int {
			return runPlan(args, stdout, stderr)
		}},
		{"clock", "[-json] [-watch D]", func(args []string, stdout, stderr io.Writer, _ Leases) int {
			return runClock(args, stdout, stderr, clocksrc.ReadDiscipline)
		}},
		{"mask", "[-key-file FILE] [-key-version V] ID...", func(args []string, stdout, stderr io.Writer, _ Leases) int {
			return runMask(args, stdout, stderr)
		}},
		{"unmask", "[-key-file FILE] [-key-version V] STRING...", func(args []string, stdout, stderr io.Writer, _ Leases) int {
			return runUnmask(args, stdout, stderr)
		}},
		{"version", "", func(args []string, stdout, stderr io.Writer, _ Leases) int {
			return runVersion(args, stdout, stderr)
		}},
		{"help", "[COMMAND]", nil}, // RunLeases's own
	}
}

// lookup is the command named name.
func lookup(name string) (Command, bool) {
	for _, c := range Commands() {
		if c.Name == name {
			return c, true
		}
	}
	return Command{}, false
}

// usage is the usage of snowid with leases: every command's line, then
// the layout flags' defaults and the lease specs gen -lease takes.
func usage(leases Leases) string {
	var b strings.Builder
	b.WriteString("usage:\n")
	for _, c := range Commands() {
		fmt.Fprintf(&b, "  %s\n", c.Line())
	}
	b.WriteString("Layout flags (-layout, -unit, -epoch) default to 41/10/12, 1ms, 2024-01-01T00:00:00Z.\n")
	fmt.Fprintf(&b, "Lease specs (gen -lease): %s.\n", leasespec.Forms(leases.Schemes()))
	b.WriteString(`Run "snowid help COMMAND" for a command's flags.` + "\n")
	return b.String()
}

// run is Run with lease schemes of this module only (dir:).
func run(args []string, stdout, stderr io.Writer) int { return Run(args, stdout, stderr, nil) }

// Run runs the snowid command line args (without the program name) and
// returns the exit code. stores adds lease schemes to gen -lease beyond
// dir: (cmd/snowid passes leasespec's); nil adds none.
func Run(args []string, stdout, stderr io.Writer, stores map[string]nodeid.Opener) int {
	return RunLeases(args, stdout, stderr, Leases{Stores: stores})
}

// Leases are the lease schemes a build adds to gen -lease beyond dir:,
// and the flags they take.
type Leases struct {
	// Stores are the schemes' openers, called after gen's flags are
	// parsed, so that they may read the flags AddFlags added.
	Stores map[string]nodeid.Opener
	// AddFlags, when not nil, adds the schemes' flags to gen's. Given
	// reports whether any of them was set: gen refuses them with a
	// lease of another scheme (or none), where they would do nothing.
	AddFlags func(fs *flag.FlagSet) (given func() bool)
	// Scheme is the scheme the flags are for, named in that refusal.
	Scheme string
}

// static is gen's static:N, which no store opens: -node N.
var static = leasespec.Scheme{Name: "static", Form: "static:N", What: "node id N assigned by hand, as -node N"}

// Schemes are the lease specs gen -lease takes, as its help lists them:
// dir:, the schemes of Stores in leasespec's order (a scheme leasespec
// does not describe after them, by name, as its bare "NAME:…"), then
// static:N.
func (l Leases) Schemes() []leasespec.Scheme {
	var all []leasespec.Scheme
	for _, s := range leasespec.Stores() {
		if _, ok := l.Stores[s.Name]; ok || s.Name == "dir" {
			all = append(all, s)
		}
	}
	var other []string
	for name := range l.Stores {
		if _, ok := leasespec.Lookup(name); !ok {
			other = append(other, name)
		}
	}
	slices.Sort(other)
	for _, name := range other {
		all = append(all, leasespec.Scheme{Name: name, Form: name + ":…"})
	}
	return append(all, static)
}

// RunLeases is Run with lease schemes that take flags of their own.
func RunLeases(args []string, stdout, stderr io.Writer, leases Leases) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, "snowid: no command given\n"+usage(leases))
		return exitUsage
	}
	name, rest := args[0], args[1:]
	switch name {
	case "help", "-h", "-help", "--help":
		if len(rest) == 0 {
			fmt.Fprint(stdout, usage(leases))
			return exitOK
		}
		name, rest = rest[0], []string{"-h"}
		if name == "help" {
			fmt.Fprint(stdout, usage(leases))
			return exitOK
		}
	}
	if c, ok := lookup(name); ok && c.run != nil {
		return c.run(rest, stdout, stderr, leases)
	}
	fmt.Fprintf(stderr, "snowid: unknown command %q (run 'snowid help' for the commands)\n", name)
	return exitUsage
}

// fail writes one error line to stderr and returns exitUsage.
func fail(stderr io.Writer, format string, a ...any) int {
	fmt.Fprintf(stderr, "snowid: "+format+"\n", a...)
	return exitUsage
}

// newFlagSet returns the flag set of the command named name, reporting to
// stderr; its usage starts with the command's line.
func newFlagSet(name string, stderr io.Writer) *flag.FlagSet {
	c, _ := lookup(name)
	fs := flag.NewFlagSet("snowid "+name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "usage: %s\n", c.Line())
		fs.PrintDefaults()
	}
	return fs
}

// parse parses args with fs and returns the positional arguments. Flags may
// come before, between or after them; "--" ends the flags. An argument that
// looks like a negative number ("-5") is positional unless it is a flag's
// value, so that decode reports it as a bad ID rather than an unknown flag.
// When parsing ends the command, parse returns ok false and the exit code:
// 0 after -h (the usage printed), 2 after a bad flag (reported in one line
// by cliflag.Parse).
func parse(fs *flag.FlagSet, args []string) (pos []string, code int, ok bool) {
	for len(args) > 0 {
		a := args[0]
		if a == "--" {
			return append(pos, args[1:]...), exitOK, true
		}
		if len(a) < 2 || a[0] != '-' || isDigit(a[1]) {
			pos = append(pos, a)
			args = args[1:]
			continue
		}
		// A flag: hand fs the flag and, when it takes one, its value.
		n := 1
		name := strings.TrimPrefix(a[1:], "-")
		if !strings.Contains(name, "=") && len(args) > 1 {
			if f := fs.Lookup(name); f != nil && !isBoolFlag(f) {
				n = 2
			}
		}
		if stop, good := cliflag.Parse(fs, args[:n]); stop {
			if good {
				return nil, exitOK, false
			}
			return nil, exitUsage, false
		}
		args = args[n:]
	}
	return pos, exitOK, true
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

func isBoolFlag(f *flag.Flag) bool {
	b, ok := f.Value.(interface{ IsBoolFlag() bool })
	return ok && b.IsBoolFlag()
}

// usageError reports a usage error of fs's command in one line, saying
// where to read the usage.
func usageError(fs *flag.FlagSet, format string, a ...any) int {
	cliflag.Fail(fs, format, a...)
	return exitUsage
}
