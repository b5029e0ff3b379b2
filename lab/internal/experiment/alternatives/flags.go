package alternatives

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/snowlab/snowlab/lab/internal/remote"
)

// flags are the experiment's flags as typed (loadgen alternatives).
type flags struct {
	dsn, clients, schemes, snowiddURL, snowiddBin, control string
	duration, skew                                         time.Duration
	demand                                                 float64
	fsyncSec                                               int
}

// register defines the experiment's flags in fs.
func (f *flags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.dsn, "pg", "", "PostgreSQL connection string (postgres://user@host:port/db); scripts/pg.sh start prints one for a throwaway server, make alternatives runs it all")
	fs.StringVar(&f.clients, "clients", clientsText(defaultClients), fmt.Sprintf("comma list of client counts (simulated nodes), each 1 to %d", maxClients))
	fs.DurationVar(&f.duration, "duration", defaultDuration, fmt.Sprintf("length of each run, one scheme at one client count (more than 0, at most %v)", maxDuration))
	fs.Float64Var(&f.demand, "demand", defaultDemand, fmt.Sprintf("the fleet's IDs/s, shared by the clients (more than 0, at most %g; -1: as fast as they go)", float64(maxDemand)))
	fs.DurationVar(&f.skew, "skew", defaultSkew, fmt.Sprintf("snowlab clients' clock offsets spread over ±skew (0 to %v)", maxSkew))
	fs.StringVar(&f.schemes, "schemes", "all", "comma list of ticket, sequence/cache-N, series/N, block/N, block/N+double, stride, snowlab, snowidd, snowidd/N (or all)")
	fs.StringVar(&f.snowiddURL, "snowidd", "", "base URL (http://HOST:PORT) of a running snowidd replica for the snowidd schemes")
	fs.StringVar(&f.snowiddBin, "snowidd-bin", "", "a snowidd binary to start on loopback for the run's snowidd schemes (make snowidd builds bin/snowidd); "+
		"without this or -snowidd those schemes are skipped, and the report says so")
	fs.StringVar(&f.control, "pg-control", "", "script that crashes and restarts the server (scripts/pg.sh, for a server it started): runs the crash experiment")
	fs.IntVar(&f.fsyncSec, "fsync-seconds", defaultFsyncSeconds, fmt.Sprintf("pg_test_fsync seconds per test on the server's data folder (-1: not measured, at most %d)", maxFsyncSecond))
}

// setup is the experiment's flags, checked: the options to run with, and
// the snowidd binary StartSnowidd starts for them.
type setup struct {
	Options options
	bin     string
}

// check checks the flags. Its error names the first flag that is wrong,
// its value and what is wanted, in one line.
func (f flags) check() (setup, error) {
	if f.dsn == "" {
		return setup{}, errors.New("-pg DSN is required (scripts/pg.sh start prints one, or make alternatives runs it all)")
	}
	counts, err := parseClients(f.clients)
	if err != nil {
		return setup{}, fmt.Errorf("-clients: %v", err)
	}
	sc, err := parseSchemes(f.schemes)
	if err != nil {
		return setup{}, fmt.Errorf("-schemes: %v", err)
	}
	if err := f.checkSnowidd(); err != nil {
		return setup{}, err
	}
	if err := f.inRange(); err != nil {
		return setup{}, err
	}
	o := options{DSN: f.dsn, Clients: counts, Duration: f.duration, Demand: f.demand, Skew: f.skew, Schemes: sc, FsyncSeconds: f.fsyncSec}
	if f.skew == 0 {
		o.Skew = -1 // no offsets (Options' zero is the default)
	}
	if f.control != "" {
		if _, err := os.Stat(f.control); err != nil {
			return setup{}, fmt.Errorf("-pg-control: %v", err)
		}
		o.Control = scriptControl{Script: f.control, DSN: f.dsn}
	}
	s := setup{Options: o}
	if callsSnowidd(sc) {
		s.bin = f.snowiddBin
		if f.snowiddURL != "" {
			s.Options.Snowidd, s.Options.SnowiddNote = f.snowiddURL, "a running replica (-snowidd)"
		}
	}
	return s, nil
}

// StartSnowidd starts the -snowidd-bin replica the run's snowidd schemes
// call, on loopback, and points the options at it; it returns nil when
// there is none to start.
func (s *setup) StartSnowidd() (*remote.Replica, error) {
	if s.bin == "" {
		return nil, nil
	}
	rep, err := remote.StartReplica(s.bin, remote.ReplicaConfig{})
	if err != nil {
		return nil, err
	}
	s.Options.Snowidd = rep.URL
	s.Options.SnowiddNote = fmt.Sprintf("%s started for the run on loopback, static node id %d, every core", s.bin, remote.ReplicaNode)
	return rep, nil
}

// checkSnowidd checks -snowidd and -snowidd-bin: one or the other, each
// one that can work.
func (f flags) checkSnowidd() error {
	switch {
	case f.snowiddURL != "" && f.snowiddBin != "":
		return fmt.Errorf("-snowidd %s and -snowidd-bin %s: name a running replica or a binary to start, not both", f.snowiddURL, f.snowiddBin)
	case f.snowiddURL != "":
		if err := (options{Snowidd: f.snowiddURL}).validate(); err != nil {
			return fmt.Errorf("-snowidd: %v", err)
		}
	case f.snowiddBin != "":
		if err := remote.CheckBinary(f.snowiddBin); err != nil {
			return fmt.Errorf("-snowidd-bin %v", err)
		}
	}
	return nil
}

// inRange reports the first numeric flag out of range.
func (f flags) inRange() error {
	switch {
	case f.duration <= 0 || f.duration > maxDuration:
		return fmt.Errorf("-duration %v: want more than 0, at most %v", f.duration, maxDuration)
	case f.demand != -1 && (f.demand <= 0 || f.demand > maxDemand):
		return fmt.Errorf("-demand %g: want more than 0, at most %g, or -1", f.demand, float64(maxDemand))
	case f.skew < 0 || f.skew > maxSkew:
		return fmt.Errorf("-skew %v: want 0 to %v", f.skew, maxSkew)
	case f.fsyncSec == 0 || f.fsyncSec < -1 || f.fsyncSec > maxFsyncSecond:
		return fmt.Errorf("-fsync-seconds %d: want 1 to %d, or -1", f.fsyncSec, maxFsyncSecond)
	}
	return nil
}

// callsSnowidd reports whether any of the schemes calls a snowidd
// replica, so that one is started only for a run that uses it.
func callsSnowidd(schemes []schemeSpec) bool {
	for _, s := range schemes {
		if s.Kind == snowidd {
			return true
		}
	}
	return false
}

func clientsText(ns []int) string {
	s := make([]string, len(ns))
	for i, n := range ns {
		s[i] = strconv.Itoa(n)
	}
	return strings.Join(s, ",")
}

// parseClients reads a comma list of client counts, each in range and
// none twice.
func parseClients(spec string) ([]int, error) {
	var out []int
	for _, part := range strings.Split(spec, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(part))
		if err != nil || n < 1 || n > maxClients {
			return nil, fmt.Errorf("client count %q: want 1 to %d", strings.TrimSpace(part), maxClients)
		}
		for _, have := range out {
			if have == n {
				return nil, fmt.Errorf("client count %d listed twice", n)
			}
		}
		out = append(out, n)
	}
	return out, nil
}
