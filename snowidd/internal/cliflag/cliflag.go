// Package cliflag parses the flags of snowlab's commands (snowid, loadgen)
// the one way they all report a mistake: a bad flag or value is one line
// on the flag set's output naming it, and where to read the usage, never
// the flag package's line followed by every flag's description; -h prints
// the usage and is not an error.
package cliflag

import (
	"errors"
	"flag"
	"fmt"
	"io"
)

// Parse parses args into fs. It returns stop true when the command ends
// here: after -h, with the usage printed (ok true), or after a bad flag,
// with one line printed (ok false). fs's output receives both; its Usage
// (or the flag package's default form when nil) prints the usage.
func Parse(fs *flag.FlagSet, args []string) (stop, ok bool) {
	out, usage := fs.Output(), fs.Usage
	// The flag package prints its error and then the usage; both are
	// silenced and the error reported here as one line instead.
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	err := fs.Parse(args)
	fs.SetOutput(out)
	fs.Usage = usage
	switch {
	case errors.Is(err, flag.ErrHelp):
		PrintUsage(fs)
		return true, true
	case err != nil:
		Fail(fs, "%v", err)
		return true, false
	}
	return false, true
}

// PrintUsage prints fs's usage to its output: fs.Usage where set, else the
// flag package's default form ("Usage of NAME:" and the flags).
func PrintUsage(fs *flag.FlagSet) {
	if fs.Usage != nil {
		fs.Usage()
		return
	}
	fmt.Fprintf(fs.Output(), "Usage of %s:\n", fs.Name())
	fs.PrintDefaults()
}

// Fail prints a usage error of fs's command as one line on its output:
// the command's name, the message, and how to read the usage.
func Fail(fs *flag.FlagSet, format string, a ...any) {
	fmt.Fprintf(fs.Output(), "%s: %s%s\n", fs.Name(), fmt.Sprintf(format, a...), Hint(fs.Name()))
}

// Hint is what a usage error of the command name ends with: where to read
// its usage.
func Hint(name string) string { return fmt.Sprintf(" (run '%s -h' for usage)", name) }
