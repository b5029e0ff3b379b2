package alternatives

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/snowlab/snowlab"
	"github.com/snowlab/snowlab/lab/internal/remote"
	"github.com/snowlab/snowlab/lab/internal/resultdir"
	"github.com/snowlab/snowlab/lab/internal/units"
	"github.com/snowlab/snowlab/lab/result"
	"github.com/snowlab/snowlab/nodeid"
	"github.com/snowlab/snowlab/snowidd/client"
)

// Defaults for options.
var defaultClients = []int{1, 2, 4, 8, 16, 32}

const (
	defaultDuration = 5 * time.Second
	// defaultDemand is the peak the blocks are sized for: 100,000 IDs/s
	// across the fleet.
	defaultDemand       = 100_000
	defaultSkew         = 5 * time.Millisecond
	defaultMaxIDs       = 4_000_000
	defaultCrashClients = 4
	defaultCrashAfter   = 2 * time.Second
	defaultFsyncSeconds = 2
)

// Limits on options.
const (
	maxClients     = 256
	maxDuration    = 10 * time.Minute
	maxDemand      = 1e9
	maxSkew        = time.Hour
	maxIDs         = 100_000_000
	maxFsyncSecond = 60
)

// errOptions is wrapped by every error about options out of range.
var errOptions = errors.New("alternatives: option out of range")

// options configure an experiment. The zero value but for DSN runs the
// issue's experiment.
type options struct {
	// DSN is the PostgreSQL server's pgx connection string. The role needs
	// CREATE on the database; data_directory (a superuser or
	// pg_read_all_settings) tells whether the server is local.
	DSN string
	// Clients are the numbers of concurrent clients (simulated nodes)
	// each scheme runs with (defaultClients when empty).
	Clients []int
	// Duration is each run's length.
	Duration time.Duration
	// Demand is the fleet's IDs/s, shared evenly by the clients (a scheme
	// that cannot keep up runs flat out); 0 is defaultDemand, negative
	// runs every client as fast as it can.
	Demand float64
	// MaxIDs caps the IDs recorded per run (defaultMaxIDs when 0).
	MaxIDs int
	// Skew bounds the snowlab clients' clock offsets (defaultSkew when 0;
	// negative: none).
	Skew time.Duration
	// Schemes to run, in order (defaultSchemes when empty).
	Schemes []schemeSpec
	// Snowidd is the base URL (http://HOST:PORT) of a running snowidd
	// replica for the snowidd schemes; without one they are skipped, and
	// the result says why. SnowiddNote, recorded beside it, says what the
	// replica is (how it was started, where it runs).
	Snowidd     string
	SnowiddNote string
	// Control, when set, runs the crash experiment on a local server.
	Control      control
	CrashClients int
	CrashAfter   time.Duration
	// FsyncSeconds is pg_test_fsync's seconds per test (defaultFsyncSeconds
	// when 0; negative: not measured).
	FsyncSeconds int
	// Command, Commit and Dirty are recorded in the result; any credential
	// in Command is redacted first.
	Command []string
	Commit  string
	Dirty   bool
	// Host, when set, is recorded instead of host.Probe() (tests).
	Host *result.Host
	// Progress, when set, is told what is about to happen and what
	// finished.
	Progress func(msg string)
}

// validate reports the first option out of range, naming it and its
// value. Zero fields take their defaults and are valid.
func (o options) validate() error {
	bad := func(format string, a ...any) error {
		return fmt.Errorf("%w: %s", errOptions, fmt.Sprintf(format, a...))
	}
	for _, n := range o.Clients {
		if n < 1 || n > maxClients {
			return bad("clients %d: want 1 to %d", n, maxClients)
		}
	}
	switch {
	case o.Duration < 0 || o.Duration > maxDuration:
		return bad("duration %s: want up to %s", o.Duration, maxDuration)
	case o.Demand > maxDemand:
		return bad("demand %g IDs/s: want at most %g (negative: unpaced)", o.Demand, float64(maxDemand))
	case o.MaxIDs < 0 || o.MaxIDs > maxIDs:
		return bad("max IDs %d: want 1 to %d", o.MaxIDs, maxIDs)
	case o.Skew > maxSkew:
		return bad("skew %s: want at most %s", o.Skew, maxSkew)
	case o.CrashClients < 0 || o.CrashClients > maxClients:
		return bad("crash clients %d: want 1 to %d", o.CrashClients, maxClients)
	case o.CrashAfter < 0 || o.CrashAfter > maxDuration:
		return bad("crash after %s: want up to %s", o.CrashAfter, maxDuration)
	case o.FsyncSeconds > maxFsyncSecond:
		return bad("fsync seconds %d: want at most %d (negative: not measured)", o.FsyncSeconds, maxFsyncSecond)
	}
	for _, s := range o.Schemes {
		if s.Size < 0 || s.Size > s.maxSize() {
			return bad("scheme %s: size %d: want 1 to %d", s.name(), s.Size, s.maxSize())
		}
	}
	if o.Snowidd != "" {
		if _, err := remote.Subject(o.Snowidd, client.GRPC, 0, snowlab.Layout{}); err != nil {
			return bad("snowidd: %v", err)
		}
	}
	return nil
}

func (o options) withDefaults() options {
	if len(o.Clients) == 0 {
		o.Clients = defaultClients
	}
	o.Clients = slices.Clone(o.Clients)
	if o.Duration == 0 {
		o.Duration = defaultDuration
	}
	if o.Demand == 0 {
		o.Demand = defaultDemand
	}
	o.Demand = max(o.Demand, 0)
	if o.MaxIDs == 0 {
		o.MaxIDs = defaultMaxIDs
	}
	if o.Skew == 0 {
		o.Skew = defaultSkew
	}
	o.Skew = max(o.Skew, 0)
	if len(o.Schemes) == 0 {
		o.Schemes = defaultSchemes()
	}
	if o.CrashClients == 0 {
		o.CrashClients = defaultCrashClients
	}
	if o.CrashAfter == 0 {
		o.CrashAfter = defaultCrashAfter
	}
	if o.FsyncSeconds == 0 {
		o.FsyncSeconds = defaultFsyncSeconds
	}
	o.FsyncSeconds = max(o.FsyncSeconds, 0)
	return o
}

// execute runs the experiment: the commit latency, every scheme with
// every number of clients, then the crash experiment. A run that fails is
// recorded with its error and the experiment goes on; execute returns the
// run with an error joining every failure, or nil and the error when it
// cannot start.
func execute(ctx context.Context, o options) (*runResult, error) {
	if err := o.validate(); err != nil {
		return nil, err
	}
	o = o.withDefaults()
	run := newResult(o)
	say := progress(o.Progress)
	srv, err := openServer(ctx, o.DSN)
	if err != nil {
		return nil, err
	}
	run.Server = srv.info
	defer func() {
		if err := srv.close(); err != nil {
			say("dropping the schema: %v", err)
		}
	}()

	run.CommitLatency = commitLatency(ctx, srv, o.FsyncSeconds, say)
	var errs []error
	run.Schemes, errs = runSchemes(ctx, srv, o, say)
	var crashErr error
	run.Crash, crashErr = crashIfAllowed(ctx, srv, o, say)
	errs = append(errs, crashErr) // errors.Join drops it if nil
	run.Elapsed = time.Since(run.Started)
	return run, errors.Join(errs...)
}

// newResult is the result's header and configuration, recorded before
// anything runs so that a run cut short still says what it was asked.
func newResult(o options) *runResult {
	run := &runResult{Header: resultdir.NewHeader(experimentName, schemaVersion, o.Command, o.Commit, o.Dirty, o.Host),
		Config: config{Clients: o.Clients, Duration: o.Duration, Demand: o.Demand, MaxIDs: o.MaxIDs, Skew: o.Skew,
			PrefetchShare: prefetchShare, CrashClients: o.CrashClients, CrashAfter: o.CrashAfter, FsyncSeconds: o.FsyncSeconds,
			Snowidd: nodeid.Redact(o.Snowidd), SnowiddNote: o.SnowiddNote}}
	for _, s := range o.Schemes {
		run.Config.Schemes = append(run.Config.Schemes, s.name())
	}
	return run
}

// sayFunc tells options.Progress, if any, what is about to happen or
// what finished.
type sayFunc func(format string, a ...any)

func progress(to func(msg string)) sayFunc {
	return func(format string, a ...any) {
		if to != nil {
			to(fmt.Sprintf(format, a...))
		}
	}
}

// commitLatency measures the server's commit latency with pg_test_fsync,
// or says why it was not.
func commitLatency(ctx context.Context, srv *pgServer, seconds int, say sayFunc) commitTiming {
	say("commit latency: pg_test_fsync -s %d on the data folder", seconds)
	cl := measureCommitLatency(ctx, srv.info, seconds)
	if cl.measured() {
		say("commit latency: %s per flush (%s), so one row ≤ %s", units.Ns(float64(cl.PerOp)),
			cl.Method, units.Rate(cl.OpsPerSec))
	} else {
		say("commit latency: %s", cl.NotMeasured)
	}
	return cl
}

// runSchemes runs every scheme of o with every number of clients, and
// returns their results and the failures among them. An interrupt stops
// it after the point that saw it, with the scheme's points so far kept.
func runSchemes(ctx context.Context, srv *pgServer, o options, say sayFunc) ([]schemeResult, []error) {
	p := pace{duration: o.Duration, demand: o.Demand}
	clients := fleet{srv: srv, snowidd: o.Snowidd, skew: o.Skew}
	var out []schemeResult
	var errs []error
	for _, sc := range o.Schemes {
		if sc.Kind == snowidd && o.Snowidd == "" {
			res := schemeResult{Scheme: sc, Name: sc.name(), Skipped: noReplica}
			say("%-22s skipped: %s", sc.name(), res.Skipped)
			out = append(out, res)
			continue
		}
		res, serrs := runScheme(ctx, clients, sc, o, p, say)
		out = append(out, res)
		errs = append(errs, serrs...)
		if ctx.Err() != nil {
			errs = append(errs, ctx.Err())
			break
		}
	}
	return out, errs
}

// runScheme runs sc with each of o.Clients, each point capped to its share
// of o.MaxIDs, until ctx ends. A point's error and any duplicate IDs are
// failures.
func runScheme(ctx context.Context, clients fleet, sc schemeSpec, o options, p pace, say sayFunc) (schemeResult, []error) {
	res := schemeResult{Scheme: sc, Name: sc.name()}
	var errs []error
	for _, n := range o.Clients {
		p.perCap = max(o.MaxIDs/n, 1)
		pt, err := runPoint(ctx, clients, sc, n, p)
		if err != nil {
			pt.Error = err.Error()
		}
		if pt.Error != "" {
			errs = append(errs, fmt.Errorf("%s, %d clients: %s", sc.name(), n, pt.Error))
		}
		if pt.Disorder.Duplicates > 0 {
			errs = append(errs, fmt.Errorf("%s, %d clients: %d duplicate IDs", sc.name(), n, pt.Disorder.Duplicates))
		}
		res.Points = append(res.Points, pt)
		say("%-22s %2d clients: %s (%s IDs), trip p50 %s, window %s, adjacent inverted %s",
			sc.name(), n, units.Rate(pt.IDsPerSec), units.Thousands(int(pt.IDs)), units.Ns(float64(pt.Trip.P50)),
			units.Ns(float64(pt.Disorder.Window)), units.TrimSig(100*pt.Disorder.AdjacentShare, 3)+"%")
		if ctx.Err() != nil {
			break
		}
	}
	return res, errs
}

// crashIfAllowed runs the crash experiment where it may: not after an
// interrupt, and only on a local server that o.Control can stop. It
// returns the crash's result and its failure, if any; a skip is none.
func crashIfAllowed(ctx context.Context, srv *pgServer, o options, say sayFunc) (crashRun, error) {
	switch {
	case ctx.Err() != nil:
		return crashRun{Skipped: "interrupted"}, nil
	case o.Control == nil:
		return crashRun{Skipped: "no control over the server (loadgen alternatives -pg-control scripts/pg.sh, for a server that script started)"}, nil
	case !srv.info.Local:
		return crashRun{Skipped: "the server is not on this machine: it cannot be stopped and restarted from here"}, nil
	}
	say("crash: %d clients on the ticket row with synchronous_commit = off, an immediate stop after %s", o.CrashClients, o.CrashAfter)
	c := runCrash(ctx, srv, o.Control, o.CrashClients, o.CrashAfter)
	if c.Error != "" {
		return c, fmt.Errorf("crash: %s", c.Error)
	}
	say("crash: %s IDs handed out before the stop, the row restarted at %d, %s of them issued again",
		units.Thousands(int(c.HandedOut)), c.RowAfter, units.Thousands(int(c.Reissued)))
	return c, nil
}

// runPoint prepares fresh objects for the scheme, opens its n clients and
// measures them.
func runPoint(ctx context.Context, f fleet, sc schemeSpec, n int, p pace) (sweepPoint, error) {
	pt := sweepPoint{Clients: n, Demand: p.demand}
	if sc.database() {
		if err := f.srv.prepare(ctx, sc, n); err != nil {
			return pt, err
		}
	}
	sources := make([]source, 0, n)
	for i := range n {
		s, err := newSource(ctx, f, sc, i, n)
		if err != nil {
			for _, s := range sources {
				_ = s.Close(ctx)
			}
			return pt, err
		}
		sources = append(sources, s)
	}
	return measure(ctx, sources, p), nil
}
