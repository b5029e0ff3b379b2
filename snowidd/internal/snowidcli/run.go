// Package snowidcli is the snowid command (github.com/snowlab/snowlab/snowidd/cmd/snowid):
// decode a stray ID from a log, mint a few IDs, print a layout's horizon.
// It lives in the snowidd module, which requires every lease store's
// module, so that one snowid takes every lease spec (dir:, static:, etcd:,
// pg:) while the library's own packages stay free of every store client;
// its layout flags are snowidd's too.
package snowidcli

import (
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/snowlab/snowlab/clocksrc"
	"github.com/snowlab/snowlab/nodeid"
	"github.com/snowlab/snowlab/snowidd/internal/cliflag"
)

// Exit codes.
const (
	exitOK    = 0
	exitFail  = 1 // a valid request failed while running
	exitUsage = 2 // a bad argument or a usage error
)

const usageText = `usage:
  snowid decode [-json] [-layout T/N/S] [-unit D] [-epoch E] ID...
  snowid gen [-node N | -lease SPEC] [-n K] [-policy strict|monotonic] [-max-lead D] [-format dec|base32|json] [layout flags]
  snowid layout [-layout T/N/S] [-unit D] [-epoch E]
  snowid range [layout flags] FROM TO
  snowid partitions -table T -from FROM -to TO -every D [layout flags]
  snowid plan -processes N -surge X -burst B [-rate R] [-years Y] [-unit D] [-epoch E]
  snowid clock [-json] [-watch D]
  snowid mask [-key-file F] [-key-version V] ID...
  snowid unmask [-key-file F] [-key-version V] STRING...
Layout flags (-layout, -unit, -epoch) default to 41/10/12, 1ms, 2024-01-01T00:00:00Z.
Lease specs (gen -lease): dir:PATH, static:N, etcd:HOST:PORT/PREFIX, pg:DSN, k8s:NAMESPACE/PREFIX.
Run "snowid help COMMAND" for a command's flags.
`

// run is Run with lease schemes of this module only (dir:).
func run(args []string, stdout, stderr io.Writer) int { return Run(args, stdout, stderr, nil) }

// Run runs the snowid command line args (without the program name) and
// returns the exit code. stores adds lease schemes to gen -lease beyond
// dir: (cmd/snowid passes etcdlease's and pglease's); nil adds none.
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

// RunLeases is Run with lease schemes that take flags of their own.
func RunLeases(args []string, stdout, stderr io.Writer, leases Leases) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, "snowid: no command given\n"+usageText)
		return exitUsage
	}
	name, rest := args[0], args[1:]
	switch name {
	case "help", "-h", "-help", "--help":
		if len(rest) == 0 {
			fmt.Fprint(stdout, usageText)
			return exitOK
		}
		name, rest = rest[0], []string{"-h"}
	}
	switch name {
	case "decode":
		return runDecode(rest, stdout, stderr)
	case "gen":
		return runGen(rest, stdout, stderr, leases)
	case "layout":
		return runLayout(rest, stdout, stderr)
	case "range":
		return runRange(rest, stdout, stderr)
	case "partitions":
		return runPartitions(rest, stdout, stderr)
	case "plan":
		return runPlan(rest, stdout, stderr)
	case "clock":
		return runClock(rest, stdout, stderr, clocksrc.ReadDiscipline)
	case "mask":
		return runMask(rest, stdout, stderr)
	case "unmask":
		return runUnmask(rest, stdout, stderr)
	}
	fmt.Fprintf(stderr, "snowid: unknown command %q (run 'snowid help' for the commands)\n", name)
	return exitUsage
}

// fail writes one error line to stderr and returns exitUsage.
func fail(stderr io.Writer, format string, a ...any) int {
	fmt.Fprintf(stderr, "snowid: "+format+"\n", a...)
	return exitUsage
}

// newFlagSet returns the flag set of one command, reporting to stderr.
func newFlagSet(name, synopsis string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet("snowid "+name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "usage: snowid %s %s\n", name, synopsis)
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
