package faults

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"github.com/snowlab/snowlab"
	"github.com/snowlab/snowlab/lab/internal/host"
	"github.com/snowlab/snowlab/lab/internal/resultdir"
)

// Defaults of the rig's timing: short enough that every scenario plays
// out in seconds, and in the proportions production keeps (a TTL of two
// windows, the refresh a third of the window).
const (
	defaultTTL            = 3 * time.Second
	defaultWindow         = 1500 * time.Millisecond
	defaultRewindHold     = time.Second
	defaultClients        = 4
	defaultAttemptTimeout = 500 * time.Millisecond
	// etcdElection is etcd's default --election-timeout, which the rig
	// keeps: raft waits up to twice it (randomized) before electing.
	etcdElection = time.Second
	// reconnect is the most a replica's etcd client waits to dial again
	// (etcdlease caps gRPC's backoff at 1 s).
	reconnect = time.Second
	// slack is the rig's own share of a measured span: /readyz is polled
	// every 50 ms and a client backs off 20 ms when every replica refused.
	slack = 250 * time.Millisecond
)

// options configure execute.
type options struct {
	// Snowidd is the replica binary: a fault-injection build (make
	// snowidd-faults) for the clock scenarios, which skip without one.
	Snowidd string
	// Etcd is the etcd binary (/usr/bin/etcd from etcd-server).
	Etcd string
	// Holders is etcdholders (make etcdholders); the holder scenarios
	// skip without it.
	Holders string
	// Set is "short" (CI's subset) or "full"; Scenarios, when set, names
	// the scenarios to run instead.
	Set       string
	Scenarios []string
	// Clients is how many client goroutines call the fleet (0:
	// defaultClients).
	Clients int
	// Command, Commit and Dirty are recorded in the result.
	Command []string
	Commit  string
	Dirty   bool
	// Progress, when set, is told what is happening.
	Progress func(msg string)
}

// errOptions is wrapped by the error for options that can never run.
var errOptions = errors.New("faults: bad options")

// execute runs the scenarios of o's set (or those o names), each on a
// fleet and an etcd of its own, and returns their figures. A scenario
// that cannot run here (no fault-injection build, no TLS in the replica
// binary, no etcdholders) is recorded as skipped with the reason; one that
// breaks off is recorded with its error. The error is for options that
// can never work.
func execute(ctx context.Context, o options) (*runResult, error) {
	scs, err := pick(o)
	if err != nil {
		return nil, err
	}
	if o.Snowidd == "" || o.Etcd == "" {
		return nil, fmt.Errorf("%w: the snowidd and etcd binaries are required", errOptions)
	}
	for _, bin := range []string{o.Snowidd, o.Etcd} {
		if _, err := exec.LookPath(bin); err != nil {
			return nil, fmt.Errorf("%w: %v", errOptions, err)
		}
	}
	if o.Clients <= 0 {
		o.Clients = defaultClients
	}
	// The run's store data, certificates and logs, removed after.
	dir, err := os.MkdirTemp("", "snowlab-faults-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	x := &executor{o: o, dir: dir, tls: servesTLS(o.Snowidd)}
	run := &runResult{Header: resultdir.NewHeader(experimentName, schemaVersion, o.Command, o.Commit, o.Dirty, nil),
		Config: config{TTL: defaultTTL, Window: defaultWindow, Refresh: defaultWindow / 3, MaxFloorWait: snowlab.DefaultMaxFloorWait,
			RewindHold: defaultRewindHold, ElectionTimeout: etcdElection, Clients: o.Clients, AttemptTimeout: defaultAttemptTimeout,
			Snowidd: o.Snowidd, Etcd: o.Etcd, EtcdVersion: etcdVersion(o.Etcd), Holders: o.Holders, Set: o.Set}}
	// The load is read over the whole run and over each scenario: the
	// spans measured are partly the host's when others take its CPUs.
	load := host.StartLoad()
	defer func() { run.Host.Load = load.Stop() }()
	for _, sc := range scs {
		if ctx.Err() != nil {
			break
		}
		x.say("%s: %s", sc.Name, sc.Title)
		scLoad := host.StartLoad()
		r := x.run(ctx, sc)
		if r.Skipped == "" {
			r.Load = scLoad.Stop()
		}
		run.Scenarios = append(run.Scenarios, r)
		run.Failures = append(run.Failures, failures(r)...)
		x.say("%s: %s", sc.Name, summary(r))
	}
	run.Elapsed = time.Since(run.Started)
	return run, ctx.Err()
}

// pick is the scenarios o asks for, in the table's order.
func pick(o options) ([]scenario, error) {
	all := scenarios()
	if len(o.Scenarios) > 0 {
		var out []scenario
		for _, name := range o.Scenarios {
			i := slices.IndexFunc(all, func(s scenario) bool { return s.Name == name })
			if i < 0 {
				var names []string
				for _, s := range all {
					names = append(names, s.Name)
				}
				return nil, fmt.Errorf("%w: no scenario %q (want one of %s)", errOptions, name, strings.Join(names, ", "))
			}
			out = append(out, all[i])
		}
		return out, nil
	}
	switch o.Set {
	case "short":
		return slices.DeleteFunc(all, func(s scenario) bool { return !s.Short }), nil
	case "full", "":
		return all, nil
	}
	return nil, fmt.Errorf("%w: set %q: want short or full", errOptions, o.Set)
}

// servesTLS asks the replica binary's -h whether it has -tls-cert and
// the -etcd-* flags. Whether it steps its clock is asked of a started
// replica (GET /fault/clock).
func servesTLS(bin string) bool {
	out, _ := exec.Command(bin, "-h").CombinedOutput()
	return strings.Contains(string(out), "-tls-cert") && strings.Contains(string(out), "-etcd-cacert")
}

func etcdVersion(bin string) string {
	out, err := exec.Command(bin, "--version").Output()
	if err != nil {
		return ""
	}
	first, _, _ := strings.Cut(string(out), "\n")
	return strings.TrimSpace(strings.TrimPrefix(first, "etcd Version:"))
}

type executor struct {
	o   options
	dir string
	tls bool // the replica binary serves TLS
}

func (x *executor) say(format string, a ...any) {
	if x.o.Progress != nil {
		x.o.Progress(fmt.Sprintf(format, a...))
	}
}

// run runs one scenario on a rig of its own and returns its figures.
func (x *executor) run(ctx context.Context, sc scenario) (res scenarioResult) {
	res = scenarioResult{Name: sc.Name, Title: sc.Title, Short: sc.Short, TLS: sc.TLS}
	if why := x.unmet(sc); why != "" {
		res.Skipped = why
		return res
	}
	t0 := time.Now()
	if err := x.play(ctx, sc, &res); err != nil {
		res.Error = err.Error()
	}
	res.Duration = time.Since(t0)
	return res
}

// play sets up what the scenario runs on (a folder, certificates, its
// store and the replicas), each torn down by a deferred call when play
// returns, and plays it into res; the phases after the setup are stage
// methods. A holder scenario brings its own processes (etcdholders)
// rather than replicas and a load: it reports the fault's steps, the
// holders' report, its checks and notes. The error is what kept the
// scenario from measuring anything.
func (x *executor) play(ctx context.Context, sc scenario, res *scenarioResult) error {
	dir, err := os.MkdirTemp(x.dir, sc.Name+"-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	s := &stage{x: x, sc: sc, dir: dir, res: res, said: make([]replicaStat, len(sc.Replicas)+len(sc.Spares))}
	if sc.TLS {
		if s.certs, err = newCerts(dir); err != nil {
			return err
		}
	}
	endpoints, err := s.startStore(dir)
	if err != nil {
		return err
	}
	defer s.store.Stop()
	if sc.Holders > 0 {
		s.begun = time.Now()
		return sc.Run(ctx, s)
	}
	s.links = newLinks(endpoints)
	defer s.links.Close()
	defer func() {
		for _, r := range s.reps {
			r.kill()
		}
	}()
	if err := s.makeReplicas(); err != nil {
		return err
	}
	if err := s.startReplicas(); err != nil {
		return err
	}
	if why := s.faultClockMissing(); why != "" {
		res.Skipped = why
		return nil
	}
	if sc.TLS {
		s.tlsRefusals(ctx)
	}
	a, runErr, err := s.drive(ctx)
	if err != nil {
		return err
	}
	s.collect(a, runErr)
	return nil
}

// makeReplicas makes the scenario's replicas and spares, none started,
// each with its flags; the replicas (not the spares) are one another's
// peers.
func (s *stage) makeReplicas() error {
	specs := append(append([]replicaSpec(nil), s.sc.Replicas...), s.sc.Spares...)
	for i := range specs {
		rep, err := newReplica(fmt.Sprintf("r%d", i), s.x.o.Snowidd, s.certs.ClientTLS())
		if err != nil {
			return err
		}
		rep.history = filepath.Join(s.dir, rep.Name+".history")
		s.reps = append(s.reps, rep)
	}
	s.started = make([]atomic.Bool, len(s.reps))
	for i, spec := range specs {
		var peers []string
		for j, other := range s.reps[:len(s.sc.Replicas)] {
			if j != i {
				peers = append(peers, other.url)
			}
		}
		args, err := s.replicaArgs(i, spec, peers)
		if err != nil {
			return err
		}
		env, err := s.storeEnv(i)
		if err != nil {
			return err
		}
		r := s.reps[i]
		r.args, r.env = append(r.args, args...), append(env, "SNOWIDD_FAULT_HISTORY="+r.history)
	}
	return nil
}

// startReplicas starts the replicas (not the spares) one at a time, each
// ready before the next starts: replica i holds node id i, the lowest
// free, so that a successor starting on the lowest free id takes the one
// a scenario freed. A replica not ready in time fails it with its log.
func (s *stage) startReplicas() error {
	for i := range s.sc.Replicas {
		if err := s.reps[i].Start(); err != nil {
			return err
		}
		s.started[i].Store(true)
		if err := s.waitReady(i, 30*time.Second); err != nil {
			return fmt.Errorf("%w\n%s", err, s.reps[i].logs(256<<10))
		}
	}
	return nil
}

// faultClockMissing says why a scenario that steps the clock cannot run
// on the started replicas' binary, or "". Only a started replica can
// tell: the binary's -h does not name the hook.
func (s *stage) faultClockMissing() string {
	if !s.sc.FaultClock {
		return ""
	}
	if code, _, err := s.reps[0].do("GET", faultClockPath); err != nil || code != 200 {
		return fmt.Sprintf("needs a fault-injection build of snowidd, whose clock the lab steps (make snowidd-faults builds bin/snowidd-faults); %s answers GET %s with %d", s.x.o.Snowidd, faultClockPath, code)
	}
	return ""
}

// live reports whether replica r was ever started: the clients call it,
// and it is reported on.
func (s *stage) live(r int) bool { return s.started[r].Load() }

// drive runs the scenario's fault under load: the clients and the
// readiness watch start, the load runs alone for 1.5 s, the scenario
// plays its fault and (if it ran to its end) the fleet settles. It
// returns what the clients and the watch saw, the scenario's error, and
// the error that kept it from measuring anything.
func (s *stage) drive(ctx context.Context) (a *analysis, runErr, err error) {
	urls := make([]string, len(s.reps))
	for i, r := range s.reps {
		urls[i] = r.url
	}
	watch := watchReadiness(s.reps, s.live)
	// The clients alternate NextID and NextIDs(100).
	batch := func(n int) int { return []int{0, 100}[n%2] }
	main, err := startLoad(loadConfig{urls: urls, clients: s.x.o.Clients, tls: s.certs.ClientTLS(), batch: batch,
		attemptTimeout: defaultAttemptTimeout, skip: func(r int) bool { return !s.live(r) }})
	if err != nil {
		watch.end()
		return nil, nil, err
	}
	s.begun = time.Now()
	time.Sleep(1500 * time.Millisecond)
	runErr = s.sc.Run(ctx, s)
	if runErr == nil {
		runErr = s.settle()
	}
	layout, err := s.sc.layout()
	if err != nil {
		return nil, nil, err
	}
	a = &analysis{layout: layout}
	a.callers = main.end()
	for _, l := range s.extra {
		a.callers = append(a.callers, l.end()...)
	}
	a.ready = watch.end()
	return a, runErr, nil
}

// settle waits until every running replica is ready again, then gives
// the healed fleet a second more of calls.
func (s *stage) settle() error {
	for i, r := range s.reps {
		if s.live(i) && r.running() {
			if err := s.waitReady(i, 30*time.Second); err != nil {
				return err
			}
		}
	}
	time.Sleep(time.Second)
	return nil
}

// collect stops the running replicas and writes into the result what a
// holds: the calls, each live replica's figures with what the scenario
// said of it, and the checks of its afterLoad functions. An error
// (runErr, or the first a replica's stop gave) comes with the replicas'
// and etcd's log tails.
func (s *stage) collect(a *analysis, runErr error) {
	res := s.res
	if runErr != nil {
		res.Error = runErr.Error()
	}
	for _, r := range s.reps {
		if err := r.Stop(); err != nil && res.Error == "" {
			res.Error = err.Error()
		}
	}
	res.Calls = a.calls()
	res.History = s.checkHistory(a)
	for i, r := range s.reps {
		if !s.live(i) {
			continue
		}
		st := a.replica(i, r.Name)
		st.Role, st.Bound, st.BoundWhy = s.said[i].Role, s.said[i].Bound, s.said[i].BoundWhy
		st.Restarts = r.restarts()
		res.Replicas = append(res.Replicas, st)
	}
	for _, f := range s.after {
		f(a)
	}
	if res.Error != "" {
		var logs []string
		for _, r := range s.reps {
			logs = append(logs, r.logs(4<<10))
		}
		res.Error += "\n" + strings.Join(logs, "\n") + "\n" + tail(s.store.Logs(), 4<<10)
	}
}

// unmet says why sc cannot run with x's binaries, or "".
func (x *executor) unmet(sc scenario) string {
	switch {
	case sc.TLS && !x.tls:
		return fmt.Sprintf("needs a snowidd that serves TLS and dials etcd with a client certificate: %s -h names no -tls-cert and -etcd-cacert", x.o.Snowidd)
	case sc.Holders > 0 && x.o.Holders == "":
		return "needs etcdholders (make etcdholders builds bin/etcdholders)"
	case sc.Store == "zk":
		return zkMissing()
	case sc.Store == "k8s":
		return kubeMissing()
	}
	if sc.Holders > 0 {
		if _, err := exec.LookPath(x.o.Holders); err != nil {
			return fmt.Sprintf("needs etcdholders: %v (make etcdholders builds bin/etcdholders)", err)
		}
	}
	return ""
}

// failures are what r shows wrong, one line each.
func failures(r scenarioResult) []string {
	var out []string
	add := func(format string, a ...any) { out = append(out, r.Name+": "+fmt.Sprintf(format, a...)) }
	if r.Error != "" {
		first, _, _ := strings.Cut(r.Error, "\n")
		add("did not run to its end: %s", first)
	}
	if r.Calls.Duplicates > 0 {
		add("%d duplicate IDs", r.Calls.Duplicates)
	}
	if r.Calls.OrderViolations > 0 {
		add("%d IDs out of order", r.Calls.OrderViolations)
	}
	if h := r.History; h != nil && h.failed() {
		add("history check: %s", h)
	}
	for _, st := range r.Replicas {
		if !st.within() {
			add("replica %s refused or was not ready for %v, over its bound of %v (%s)", st.Name,
				max(st.NotReady, st.Refusing).Round(time.Millisecond), st.Bound, st.BoundWhy)
		}
	}
	for _, c := range r.Checks {
		if !c.OK {
			add("%s: %s", c.What, c.Measured)
		}
	}
	return out
}

// summary is a scenario's one line for the progress.
func summary(r scenarioResult) string {
	switch {
	case r.Skipped != "":
		return "skipped: " + r.Skipped
	case r.Holders != nil:
		h := r.Holders
		return fmt.Sprintf("%d/%d holders in %v, %d conflicts, %d shared, %d lost", h.Acquired, h.Holders, h.AllHeld.Round(time.Millisecond), h.Conflicts, h.Shared, h.Lost)
	}
	n := len(failures(r))
	return fmt.Sprintf("%d calls, %d IDs, %d duplicates, %d out of order, history %s, %d failures, took %v",
		r.Calls.Calls, r.Calls.IDs, r.Calls.Duplicates, r.Calls.OrderViolations, historyCell(r.History), n, r.Duration.Round(100*time.Millisecond))
}

func tail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return "…" + s[len(s)-n:]
}

// faultClockPath is where a fault-injection build of snowidd steps its
// clock (snowidd's internal/daemon FaultClockPath); faultHoldPath, where
// it arms a hold on the next NextIDs answer made under faultHeldPrefix
// (FaultHoldPath, FaultHeldPrefix).
const (
	faultClockPath  = "/fault/clock"
	faultHoldPath   = "/fault/hold"
	faultHeldPrefix = "/fault/held"
)
