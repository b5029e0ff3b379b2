// Package cli is the snowid command as a function, and the command-line
// conventions the project's other commands share with it. It is public
// because those commands live in other modules, which cannot import this
// module's internal packages: the etcd-enabled snowid of the etcdlease
// module runs the same command with one more lease store (Run's leases),
// snowidd takes snowid's -layout, -unit and -epoch flags with the same
// checks and messages (AddLayoutFlags), and loadgen reports a bad flag as
// snowid does (ParseFlags).
//
// Everything here is a shell over the command's implementation in this
// module; what each command does, its flags and its exit codes are
// documented by the command (github.com/snowlab/snowlab/cmd/snowid).
package cli

import (
	"flag"
	"io"

	"github.com/snowlab/snowlab"
	"github.com/snowlab/snowlab/internal/cliflag"
	"github.com/snowlab/snowlab/internal/snowidcli"
	"github.com/snowlab/snowlab/nodeid"
)

// Run runs the snowid command line args (without the program name),
// writing to stdout and stderr, and returns the exit code: 0 on success, 2
// on a usage error, 1 when a valid request failed while running. leases
// adds lease schemes to gen -lease beyond dir: (the etcd-enabled build
// passes {"etcd": etcdlease.Opener(ttl)}); nil adds none.
func Run(args []string, stdout, stderr io.Writer, leases map[string]nodeid.Opener) int {
	return snowidcli.Run(args, stdout, stderr, leases)
}

// Leases are lease schemes that take flags of their own (an etcd store's
// TLS files and user): gen adds their flags, opens the stores after
// parsing, and refuses the flags with a lease of another scheme.
type Leases struct {
	// Stores are the schemes' openers, called after gen's flags are
	// parsed, so that they may read the flags AddFlags added.
	Stores map[string]nodeid.Opener
	// AddFlags, when not nil, adds the schemes' flags to gen's; the
	// function it returns reports whether any of them was set.
	AddFlags func(fs *flag.FlagSet) (given func() bool)
	// Scheme is the scheme the flags are for, named in that refusal.
	Scheme string
}

// RunLeases is Run with lease schemes that take flags of their own.
func RunLeases(args []string, stdout, stderr io.Writer, leases Leases) int {
	return snowidcli.RunLeases(args, stdout, stderr, snowidcli.Leases{
		Stores: leases.Stores, AddFlags: leases.AddFlags, Scheme: leases.Scheme,
	})
}

// LayoutFlags are the -layout, -unit and -epoch flags of a flag set, read
// together as one snowlab.Layout.
type LayoutFlags struct{ f *snowidcli.LayoutFlags }

// AddLayoutFlags defines -layout (time/node/seq bits, such as 41/10/12),
// -unit (a Go duration) and -epoch (RFC 3339 or Unix milliseconds) on fs,
// defaulting to snowlab.DefaultLayout. They are read as strings and
// checked by Layout after fs is parsed, so that a bad value is one error
// naming the flag rather than the flag package's usage.
func AddLayoutFlags(fs *flag.FlagSet) *LayoutFlags {
	return &LayoutFlags{snowidcli.AddLayoutFlags(fs)}
}

// Layout returns the layout the flags describe, validated: its error names
// the flag at fault and its value (or the layout flags given, when
// Layout.Validate refuses their combination).
func (lf *LayoutFlags) Layout() (snowlab.Layout, error) { return lf.f.Layout() }

// ParseFlags parses args into fs as every snowlab command does, and says
// whether the command ends here: after -h, with the usage printed (ok
// true), or after a bad flag, with one line on fs's output naming it and
// saying how to read the usage (ok false), never the flag package's line
// followed by every flag's description. fs.Usage, when set, prints the
// usage.
func ParseFlags(fs *flag.FlagSet, args []string) (stop, ok bool) { return cliflag.Parse(fs, args) }
