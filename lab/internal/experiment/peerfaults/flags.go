package peerfaults

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
)

// errOptions is wrapped by every error about an option out of range.
var errOptions = errors.New("peerfaults: option out of range")

// flags are loadgen peerfaults' flags.
type flags struct {
	scenarios       string
	perMs, restarts int
	list            bool
}

// register adds the flags to fs.
func (f *flags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.scenarios, "scenarios", "", "comma list of scenarios to play (default all; -list names them)")
	fs.IntVar(&f.perMs, "per-ms", 100, "IDs each process asks for per millisecond of its steady runs (1 to 4096: "+
		"bwmarrin's node spins for the next millisecond past 4,096)")
	fs.IntVar(&f.restarts, "restarts", 100, "baidu-88: restarts of one process on 8 node ids (1 to 10000; each costs a few durable writes)")
	fs.BoolVar(&f.list, "list", false, "list the scenarios and the peers' issues, and exit")
}

// List is -list.
func (f *flags) List() bool { return f.list }

// Options checks the flags and returns the run's options.
func (f *flags) Options() (options, error) {
	bad := func(format string, a ...any) (options, error) {
		return options{}, fmt.Errorf("%w: %s", errOptions, fmt.Sprintf(format, a...))
	}
	switch {
	case f.perMs < 1 || f.perMs > 4096:
		return bad("-per-ms %d: want 1 to 4096", f.perMs)
	case f.restarts < 1 || f.restarts > 10_000:
		return bad("-restarts %d: want 1 to 10000", f.restarts)
	}
	o := options{PerMs: f.perMs, Restarts: f.restarts, Clock: "real: the machine's time, each process's clock skewed by the scenario (the tests replay the same in a testing/synctest bubble's virtual time)"}
	if f.scenarios != "" {
		known := map[string]bool{}
		for _, sc := range scenarios() {
			known[sc.Name] = true
		}
		for _, name := range strings.Split(f.scenarios, ",") {
			name = strings.TrimSpace(name)
			if !known[name] {
				return bad("-scenarios: unknown scenario %q (loadgen peerfaults -list)", name)
			}
			o.Scenarios = append(o.Scenarios, name)
		}
	}
	return o, nil
}

// writeList writes a line per scenario: its name, the peer's issue and
// its link.
func writeList(w io.Writer) error {
	for _, sc := range scenarios() {
		if _, err := fmt.Fprintf(w, "%-12s %-27s %s\n", sc.Name, sc.Issue, sc.URL); err != nil {
			return err
		}
	}
	return nil
}
