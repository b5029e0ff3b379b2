// Package service is loadgen's service experiment: a local snowidd
// replica measured by the lab's own loops and checks over the wire (NextID
// per protocol, NextIDs per batch size over gRPC, open-loop latency at a
// share of the maximum), beside the in-process generator, into one suite
// result.
package service

import (
	"context"
	"flag"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/snowlab/snowlab"
	"github.com/snowlab/snowlab/lab"
	"github.com/snowlab/snowlab/lab/internal/host"
	"github.com/snowlab/snowlab/lab/internal/remote"
	"github.com/snowlab/snowlab/lab/internal/suiteflags"
	"github.com/snowlab/snowlab/lab/internal/workload"
	"github.com/snowlab/snowlab/lab/result"
	"github.com/snowlab/snowlab/lab/subject"
	"github.com/snowlab/snowlab/snowidd/client"
)

// options are the experiment's flags, checked.
type options struct {
	// Bin is the snowidd binary to start, with ServerProcs as its
	// GOMAXPROCS, on ServerCPUs, minting on Shards node ids.
	Bin         string
	ServerProcs int
	ServerCPUs  []int
	Shards      int
	// CPUs is the lab's own -cpus, for the caller to bind before the
	// run.
	CPUs        string
	protocols   []client.Protocol
	batches     []int
	sweep       []int
	duration    time.Duration
	satRepeats  int
	steadyDur   time.Duration
	steadyShare float64
	workers     int
}

// flags are the experiment's flags as typed: those read as they are into
// o, the lists as strings.
type flags struct {
	o                                     options
	protocols, batches, sweep, serverCPUs string
}

// maxServerProcs bounds -server-gomaxprocs.
const maxServerProcs = 1024

// maxServerShards bounds -server-shards: snowidd holds at most 64 node
// ids (its -shards).
const maxServerShards = 64

// register defines the experiment's flags in fs.
func (f *flags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.o.Bin, "snowidd", filepath.Join("bin", "snowidd"), "the snowidd binary to start (make snowidd builds it)")
	fs.StringVar(&f.protocols, "protocols", client.JoinProtocols(client.Protocols(), ","), "comma list of protocols to measure NextID over")
	fs.StringVar(&f.batches, "batches", "1,10,100,1000,10000", fmt.Sprintf("comma list of NextIDs batch sizes measured over gRPC, each 1 to %d", client.MaxBatch))
	fs.IntVar(&f.o.ServerProcs, "server-gomaxprocs", 1, fmt.Sprintf("GOMAXPROCS of the snowidd process, 1 to %d", maxServerProcs))
	fs.IntVar(&f.o.Shards, "server-shards", 1, fmt.Sprintf("node ids snowidd mints on (its -shards: a node-per-shard generator above 1), 1 to %d", maxServerShards))
	fs.StringVar(&f.serverCPUs, "server-cpus", "", "run snowidd on these CPUs only, e.g. 0 or 0-3 (Linux, as taskset does); empty: wherever the system puts it")
	fs.StringVar(&f.o.CPUs, "cpus", "", "run the lab on these CPUs only, e.g. 1 (Linux; the result's host records them); "+
		"give the server and the lab separate CPUs so that each figure is the server's, not the two fighting for cores")
	fs.StringVar(&f.sweep, "sweep", "1,64", fmt.Sprintf("saturate: comma list of caller goroutine counts, each 1 to %d (1 is the one-caller limit)", workload.MaxGoroutines))
	fs.DurationVar(&f.o.duration, "duration", time.Second, fmt.Sprintf("saturate: length of one repeat (more than 0, at most %v)", workload.MaxDuration))
	fs.IntVar(&f.o.satRepeats, "sat-repeats", 3, fmt.Sprintf("saturate: repeats per goroutine count (1 to %d)", workload.MaxRepeats))
	fs.DurationVar(&f.o.steadyDur, "steady-duration", 0, fmt.Sprintf("steady: length of each open-loop run (0: -duration; at most %v)", workload.MaxDuration))
	fs.Float64Var(&f.o.steadyShare, "steady-share", 0.5, "steady: the open loop's rate as a share of the subject's measured maximum, more than 0, at most 1 (the goals are read at half)")
	fs.IntVar(&f.o.workers, "steady-workers", 8, fmt.Sprintf("steady: goroutines issuing the open-loop calls, 1 to %d (each sleeps until just before its call's due time "+
		"and yields from there, so more of them take CPU from a server on the same cores)", workload.MaxGoroutines))
}

// Options checks the flags, naming the first one out of range.
func (f flags) Options() (options, error) {
	o := f.o
	if f.serverCPUs != "" {
		cpus, err := host.ParseCPUList(f.serverCPUs)
		if err != nil {
			return o, fmt.Errorf("-server-cpus %q: %v", f.serverCPUs, err)
		}
		o.ServerCPUs = cpus
	}
	for _, s := range strings.Split(f.protocols, ",") {
		p, err := client.ParseProtocol(strings.TrimSpace(s))
		if err != nil {
			return o, fmt.Errorf("-protocols: %v", err)
		}
		if !slices.Contains(o.protocols, p) {
			o.protocols = append(o.protocols, p)
		}
	}
	var err error
	if o.batches, err = suiteflags.IntList("batches", f.batches, 1, client.MaxBatch); err != nil {
		return o, err
	}
	if o.sweep, err = suiteflags.IntList("sweep", f.sweep, 1, workload.MaxGoroutines); err != nil {
		return o, err
	}
	if o.steadyDur == 0 {
		o.steadyDur = o.duration
	}
	if err := f.inRange(o.steadyDur); err != nil {
		return o, err
	}
	if err := remote.CheckBinary(o.Bin); err != nil {
		return o, fmt.Errorf("-snowidd %w", err)
	}
	return o, nil
}

// inRange names the first numeric flag out of range; steadyDur is the
// steady runs' length once a -steady-duration of 0 took -duration's.
func (f flags) inRange(steadyDur time.Duration) error {
	switch {
	case f.o.ServerProcs < 1 || f.o.ServerProcs > maxServerProcs:
		return fmt.Errorf("-server-gomaxprocs %d: want 1 to %d", f.o.ServerProcs, maxServerProcs)
	case f.o.Shards < 1 || f.o.Shards > maxServerShards:
		return fmt.Errorf("-server-shards %d: want 1 to %d", f.o.Shards, maxServerShards)
	case f.o.duration <= 0 || f.o.duration > workload.MaxDuration:
		return fmt.Errorf("-duration %v: want more than 0, at most %v", f.o.duration, workload.MaxDuration)
	case !(f.o.steadyShare > 0 && f.o.steadyShare <= 1):
		return fmt.Errorf("-steady-share %v: want more than 0, at most 1", f.o.steadyShare)
	case steadyDur < 0 || steadyDur > workload.MaxDuration:
		return fmt.Errorf("-steady-duration %v: want 0 (the -duration) up to %v", f.o.steadyDur, workload.MaxDuration)
	case f.o.satRepeats < 1 || f.o.satRepeats > workload.MaxRepeats:
		return fmt.Errorf("-sat-repeats %d: want 1 to %d", f.o.satRepeats, workload.MaxRepeats)
	case f.o.workers < 1 || f.o.workers > workload.MaxGoroutines:
		return fmt.Errorf("-steady-workers %d: want 1 to %d", f.o.workers, workload.MaxGoroutines)
	}
	return nil
}

// config is what a run records and reports beyond its options.
type config struct {
	// Command, Commit and Dirty are recorded in the result.
	Command []string
	Commit  string
	Dirty   bool
	// Progress, when set, is told before each of Steps' steps.
	Progress func(step, steps int, what string)
}

// server describes the replica o runs: its GOMAXPROCS, the CPUs it
// was held to, if any, and how many node ids it mints on, if more than
// one.
func (o options) server() string {
	d := fmt.Sprintf("snowidd on loopback, GOMAXPROCS=%d", o.ServerProcs)
	if o.ServerCPUs != nil {
		d += fmt.Sprintf(" on CPUs %v", o.ServerCPUs)
	}
	if o.Shards > 1 {
		d += fmt.Sprintf(", %d node ids (-shards %d)", o.Shards, o.Shards)
	}
	return d
}

// subjects are the remote subjects (NextID per protocol, NextIDs
// per batch size over gRPC) and the in-process generator they stand
// beside.
func subjects(rep *remote.Replica, o options) (unbatched, all []subject.Subject, err error) {
	note := fmt.Sprintf("; %s; open loop from %d workers", o.server(), o.workers)
	add := func(p client.Protocol, batch int) error {
		s, err := remote.Subject(rep.URL, p, batch, snowlab.Layout{}, nil)
		if err != nil {
			return err
		}
		s = remote.OnNodes(s, o.Shards)
		s.Note += note
		s.ServerCPU = rep.CPU
		all = append(all, s)
		if batch == 0 {
			unbatched = append(unbatched, s)
		}
		return nil
	}
	for _, p := range o.protocols {
		if err := add(p, 0); err != nil {
			return nil, nil, err
		}
	}
	for _, b := range o.batches {
		if err := add(client.GRPC, b); err != nil {
			return nil, nil, err
		}
	}
	for _, s := range subject.Own(1) {
		if s.Name == inProcessSubject {
			all = append(all, s)
		}
	}
	return unbatched, all, nil
}

// inProcessSubject is the generator the service stands beside.
const inProcessSubject = "atomicgen/strict"

// measure runs the saturate sweep over every subject, then each unbatched
// remote subject open-loop at -steady-share (half) of the maximum it
// reached, into one result. It starts no steady run once ctx is done.
func measure(ctx context.Context, rep *remote.Replica, o options, c config) (*result.Run, error) {
	unbatched, all, err := subjects(rep, o)
	if err != nil {
		return nil, err
	}
	suite := lab.Suite{Subjects: all, Workloads: lab.Workloads{Saturate: true},
		Saturate: lab.SaturateConfig{Goroutines: o.sweep, Duration: o.duration, Repeats: o.satRepeats},
		Command:  c.Command, Commit: c.Commit, Dirty: c.Dirty}
	steps := suite.Steps() + len(unbatched)
	progress := func(step int, what string) {
		if c.Progress != nil {
			c.Progress(step, steps, what)
		}
	}
	suite.Progress = func(step, _ int, what string) { progress(step, what) }
	load := host.StartLoad() // over the steady runs too, which Measure apart
	run, err := suite.Measure()
	if err != nil {
		return nil, err
	}
	for i, s := range unbatched {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		peak := peakOf(run, s.Name).IDsPerSec
		if peak <= 0 {
			return nil, fmt.Errorf("%s: no saturate figure to take a share of", s.Name)
		}
		steady := lab.Suite{Subjects: []subject.Subject{s}, Workloads: lab.Workloads{Steady: true},
			Steady: lab.SteadyConfig{Rate: peak * o.steadyShare, Duration: o.steadyDur, Workers: o.workers}}
		n := suite.Steps() + i
		steady.Progress = func(int, int, string) { progress(n, "steady "+s.Name) }
		r, err := steady.Measure()
		if err != nil {
			return nil, err
		}
		run.Steady = append(run.Steady, r.Steady...)
		run.Failures = append(run.Failures, r.Failures...)
	}
	run.Elapsed = time.Since(run.Started)
	run.Host.Load = load.Stop()
	return run, nil
}

// peakOf is name's saturate result with the highest figure of the sweep.
func peakOf(run *result.Run, name string) result.SaturateResult {
	var peak result.SaturateResult
	for _, r := range run.Saturate {
		if r.Subject == name && r.IDsPerSec > peak.IDsPerSec {
			peak = r
		}
	}
	return peak
}

// summary is the service run's headline, read from its result: the
// sweep's maximum per protocol and per batch size, the in-process
// generator beside them, one caller's rate and round trip, and the
// open-loop latencies.
type summary struct {
	o         options      // the run's
	unbatched []summaryRow // req/s per protocol: the sweep's maximum
	batches   []summaryRow // IDs/s per batch size over gRPC
	inProcess summaryRow
	oneCaller float64       // gRPC NextID at G=1, req/s
	roundTrip time.Duration // its sampled call latency at G=1, median
	steady    []result.SteadyResult
}

type summaryRow struct {
	name  string
	value float64
	// perCore is IDs per second of the server's CPU at that point of
	// the sweep (the median repeat), 0 where not read.
	perCore float64
}

func row(run *result.Run, label, name string) summaryRow {
	p := peakOf(run, name)
	return summaryRow{name: label, value: p.IDsPerSec, perCore: p.ServerPerCPUSec}
}

// summarize reads the summary of a run of o from its result.
func summarize(run *result.Run, o options) summary {
	s := summary{o: o, steady: run.Steady}
	for _, p := range o.protocols {
		s.unbatched = append(s.unbatched, row(run, p.String(), remote.Name(p, 0)))
	}
	for _, b := range o.batches {
		s.batches = append(s.batches, row(run, strconv.Itoa(b), remote.Name(client.GRPC, b)))
	}
	s.inProcess = row(run, inProcessSubject, inProcessSubject)
	grpcName := remote.Name(client.GRPC, 0)
	for _, r := range run.Saturate {
		if r.Subject == grpcName && r.Goroutines == 1 {
			s.oneCaller, s.roundTrip = r.IDsPerSec, time.Duration(r.Latency.P50)
		}
	}
	return s
}

// overOneNode compares a rate to one node id's ceiling, for a replica
// minting on several.
func (s summary) overOneNode(v float64) string {
	if s.o.Shards <= 1 {
		return ""
	}
	one := subject.FromLayout(snowlab.Layout{}.OrDefault()).Ceiling()
	return fmt.Sprintf(" = %.2f× one node id's ceiling", v/one)
}

// perCoreText is what a server core gives, where it was read.
func (r summaryRow) perCoreText(unit string) string {
	if r.perCore <= 0 {
		return ""
	}
	return fmt.Sprintf("   (%.0f %s per server core: %v of its CPU each)", r.perCore, unit,
		threeFigures(time.Duration(float64(time.Second)/r.perCore)))
}

// writeSummary prints the summary under the run's table.
func writeSummary(w io.Writer, s summary) {
	fmt.Fprintf(w, "\n%s (the sweep's maximum):\n", s.o.server())
	for _, r := range s.unbatched {
		fmt.Fprintf(w, "  NextID over %-14s %12.0f req/s%s\n", r.name, r.value, r.perCoreText("req/s"))
	}
	for _, r := range s.batches {
		fmt.Fprintf(w, "  NextIDs(%s) over grpc %*s %12.0f IDs/s%s%s\n", r.name, max(0, 6-len(r.name)), "", r.value, r.perCoreText("IDs/s"), s.overOneNode(r.value))
	}
	fmt.Fprintf(w, "  in process, %-15s %12.0f IDs/s\n", s.inProcess.name, s.inProcess.value)
	if s.oneCaller > 0 && s.roundTrip > 0 {
		fmt.Fprintf(w, "  one caller, grpc NextID: %.0f req/s; round trip (p50 of its sampled calls) %v, 1 / round trip = %.0f/s\n",
			s.oneCaller, s.roundTrip, 1/s.roundTrip.Seconds())
	}
	for _, r := range s.steady {
		fmt.Fprintf(w, "  open loop %s at %.0f/s (achieved %.0f/s): p50 %v  p99 %v  p99.9 %v\n", r.Subject, r.TargetRate, r.Achieved,
			time.Duration(r.Latency.P50), time.Duration(r.Latency.P99), time.Duration(r.Latency.P999))
		if r.ServerCPUPerID > 0 {
			fmt.Fprintf(w, "    server CPU %v per call at this rate\n", threeFigures(r.ServerCPUPerID))
		}
	}
}

// threeFigures rounds d to about three significant figures: a batch's CPU
// per ID is tens of nanoseconds, an unbatched call's tens of microseconds.
func threeFigures(d time.Duration) time.Duration {
	unit := time.Duration(1)
	for v := d; v >= 1000; v /= 10 {
		unit *= 10
	}
	return d.Round(unit)
}
