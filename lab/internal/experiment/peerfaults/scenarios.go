package peerfaults

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/snowlab/snowlab"
	"github.com/snowlab/snowlab/atomicgen"
	"github.com/snowlab/snowlab/lab/internal/peers"
	"github.com/snowlab/snowlab/nodeid"
)

// scenario is one peer's reported failure and its replay.
type scenario struct {
	// Name is the scenario's name (-scenarios).
	Name string `json:"name"`
	// Issue is the peer's tracker entry, owner/repo#N, at URL.
	Issue string `json:"issue"`
	URL   string `json:"url"`
	// Report is what the tracker says happened, in brief.
	Report string `json:"report"`
	// Peer is the peer's language, and whether the lab runs it.
	Peer string `json:"peer"`

	run func(*env) ([]subjectRow, error)
}

// scenarios are the replays, in the order a run plays them. The issue
// numbers and what their trackers say were read on the trackers.
func scenarios() []scenario {
	return []scenario{
		{Name: "bwmarrin-53", Issue: "bwmarrin/snowflake#53", URL: "https://github.com/bwmarrin/snowflake/pull/53",
			Report: "149 duplicate IDs from a 5 ms clock rollback (the PR's test)",
			Peer:   "Go, measured by the lab: run here", run: bwmarrin53},
		{Name: "leaf-216", Issue: "Meituan-Dianping/Leaf#216", URL: "https://github.com/Meituan-Dianping/Leaf/issues/216",
			Report: "time is reported to ZooKeeper every 3 s; a restart 2 s after a report with the clock 1 s back passes the start-up check and repeats the IDs of the last second",
			Peer:   "Java: not run; the fault pattern is replayed against snowlab", run: leaf216},
		{Name: "yitter-110", Issue: "yitter/IdGenerator#110", URL: "https://github.com/yitter/IdGenerator/issues/110",
			Report: "worker ids registered in Redis are not removed when a service stops: with max_worker_id 100 and 100 containers, a restarted container's worker id is reset to 0, which another holds",
			Peer:   "C#, Java, Go and others, none a library the lab measures: not run; the fault pattern is replayed against snowlab", run: yitter110},
		{Name: "baidu-85", Issue: "baidu/uid-generator#85", URL: "https://github.com/baidu/uid-generator/issues/85",
			Report: "CachedUidGenerator stamps future seconds; restarted at once, it takes worker id + 1 with a time below the last one used, so its UIDs are no longer monotonic (and after a clock rollback too)",
			Peer:   "Java: not run; the fault pattern is replayed against snowlab", run: baidu85},
		{Name: "baidu-88", Issue: "baidu/uid-generator#88", URL: "https://github.com/baidu/uid-generator/pull/88",
			Report: "frequent restarts exhaust the worker ids: \"Worker id 4194307 exceeds the max 4194303\" (every start takes a new one)",
			Peer:   "Java: not run; the fault pattern is replayed against snowlab", run: baidu88},
	}
}

// fleetLayout has 8 node ids (3 node bits), so that a fleet can hold every
// one of them: a restarted process then has only its own node id to come
// back to, and a newcomer none. A layout's fields fill 63 bits and its
// time field, from 2024, must end within Unix nanoseconds' range (42 bits
// of milliseconds at most), so its sequence field has 18 bits: 262,144
// IDs a millisecond.
var fleetLayout = snowlab.Layout{TimeBits: 42, NodeBits: 3, SeqBits: 18, Unit: time.Millisecond, Epoch: snowlab.DefaultLayout.Epoch}

// fleetSize is fleetLayout's node ids.
const fleetSize = 8

// env is a scenario's run: its context, true time, rate and folder, and
// the leases to release when it ends.
type env struct {
	ctx      context.Context
	w        *world
	perMs    int
	restarts int
	dir      string
	leases   []*nodeid.Lease
	stores   int
}

// store opens a new lock folder (nodeid.Dir), a store of its own, under
// the scenario's folder, with claims that can crash.
func (e *env) store() (*crashStore, error) {
	e.stores++
	path := filepath.Join(e.dir, fmt.Sprintf("store-%d", e.stores))
	if err := os.MkdirAll(path, 0o755); err != nil {
		return nil, err
	}
	return &crashStore{Store: nodeid.Dir(path)}, nil
}

// hold takes n leases on store and keeps them to the end, minting
// nothing: the rest of a fleet.
func (e *env) hold(s *crashStore, layout snowlab.Layout, n int) error {
	for range n {
		l, err := nodeid.Acquire(e.ctx, s, nodeid.Options{Layout: layout, Clock: e.w.clock(0)})
		if err != nil {
			return err
		}
		e.leases = append(e.leases, l)
	}
	return nil
}

// ground is where a restart scenario's holders run: a store of their own
// with, when full, every other node id of fleetLayout held (a restart must
// come back to its own), else the default layout's 1,024 node ids, all
// free; and how a row's subject says so.
func (e *env) ground(full bool) (*crashStore, snowlab.Layout, string, error) {
	s, err := e.store()
	if err != nil {
		return nil, snowlab.Layout{}, "", err
	}
	if !full {
		return s, snowlab.Layout{}, "the default layout (1,024 node ids, all free)", nil
	}
	return s, fleetLayout, "8 node ids, 7 held by the rest of the fleet", e.hold(s, fleetLayout, fleetSize-1)
}

// leased starts a process on a lease from s: an atomicgen generator with
// policy on the lease's configuration, on a clock of its own. pred is the
// process it restarts (nil for none): its clock then reads back less than
// pred's read when pred stopped, both when it asks for a node id and when
// its generator is built, as an instant restart's would. The lease's
// durable writes take tens of milliseconds of real time on a busy disk
// (none in a bubble), which would otherwise pass on the clock and eat a
// 5 ms rollback. How far the floor was ahead, and how long the
// constructor waited, are measured on that clock.
func (e *env) leased(s *crashStore, layout snowlab.Layout, policy snowlab.Policy, pred *proc, back time.Duration) (*proc, error) {
	clk := e.w.clock(0)
	restart := func() {
		if pred != nil {
			clk.skew.Store(pred.stoppedAt - int64(back) - e.w.now())
		}
	}
	restart()
	l, err := nodeid.Acquire(e.ctx, s, nodeid.Options{Layout: layout, Clock: clk})
	if err != nil {
		return nil, err
	}
	e.leases = append(e.leases, l)
	restart()
	cfg := l.Config(snowlab.Config{Clock: clk, Policy: policy})
	g, ahead, waited, err := timedNew(clk, cfg.Fence, func() (*atomicgen.Generator, error) { return atomicgen.New(cfg) })
	if err != nil {
		return nil, err
	}
	p := generatorProc(g, l.Node(), clk)
	p.lease, p.claim, p.ahead, p.waited, p.pred = l, s.claimOf(l), ahead, waited, pred
	return p, nil
}

// restarted starts pred's successor on s (leased: its clock back less
// than pred's last reading), has it mint for d, and says where it came
// back: on pred's node id, with why (sameNode), or, passing over it, on
// another.
func (e *env) restarted(s *crashStore, layout snowlab.Layout, policy snowlab.Policy, pred *proc, back, d time.Duration, sameNode string) (*proc, string, error) {
	b, err := e.leased(s, layout, policy, pred, back)
	if err != nil {
		return nil, "", err
	}
	if err := pace(e.ctx, e.w, d, e.perMs, b); err != nil {
		return nil, "", err
	}
	if b.node == pred.node {
		return b, fmt.Sprintf("back on node %d, %s", b.node, sameNode), nil
	}
	return b, fmt.Sprintf("took node %d at once, passing over node %d, whose reservation was still ahead of the clock; "+
		"its IDs sort by time, below its predecessor's where those ran ahead (order is promised per node id)", b.node, pred.node), nil
}

// stop ends p gracefully: its lease's Release, where it has one, stores
// the end of the last tick it used.
func (e *env) stop(p *proc) error {
	p.stoppedAt = p.clk.UnixNano()
	if p.lease == nil {
		return nil
	}
	return p.lease.Release(e.ctx)
}

// crash ends p without a word: the store keeps its last reservation.
func (e *env) crash(p *proc) error {
	p.stoppedAt = p.clk.UnixNano()
	if err := p.claim.crash(e.ctx); err != nil {
		return err
	}
	_ = p.lease.Release(e.ctx) // stops its refresher; the claim writes nothing
	return nil
}

// behind is the clock of pred's restart, rolled back by back: it reads
// back less than pred's clock read when pred stopped, however long the
// restart itself takes (a lock folder's durable writes take milliseconds
// of real time, which would otherwise eat a 5 ms rollback).
func (e *env) behind(pred *proc, back time.Duration) *skewClock {
	c := e.w.clock(0)
	c.skew.Store(pred.stoppedAt - int64(back) - e.w.now())
	return c
}

// close releases every lease the scenario still holds.
func (e *env) close() {
	for _, l := range e.leases {
		_ = l.Release(context.WithoutCancel(e.ctx))
	}
}

// bare starts a process minting with atomicgen on node alone, with no
// lease and no StaticConfig: what the generator does without the
// defences around it.
func bare(node int, clk *skewClock, pred *proc) (*proc, error) {
	g, err := atomicgen.New(snowlab.Config{Node: node, Clock: clk})
	if err != nil {
		return nil, err
	}
	p := generatorProc(g, node, clk)
	p.pred = pred
	return p, nil
}

// The lengths of a scenario's steady runs, in true time.
const (
	shortRun = 20 * time.Millisecond
	leafRun  = 2500 * time.Millisecond // Leaf #216: 2 s of IDs after a report, within its 3 s interval
	afterRun = time.Second
)

// bwmarrin53 replays a 5 ms rollback. bwmarrin/snowflake v0.3.0 measures
// time on the monotonic clock from NewNode, so the rollback reaches it
// only through a restart (BwmarrinBehind); snowlab is put through the
// same restart (a bare generator, the control, and one on a lease), and
// through the rollback inside a running process, which its clock does
// see: 5 ms, within MaxWait, and 20 ms, beyond it.
func bwmarrin53(e *env) ([]subjectRow, error) {
	const back = 5 * time.Millisecond
	var rows []subjectRow

	// The peer: a node on the clock, then its restart 5 ms behind.
	m1, err := peers.BwmarrinBehind(1, 0)
	if err != nil {
		return nil, err
	}
	a := &proc{node: 1, mint: func() (int64, error) { id, err := m1.Next(); return int64(id.Lo), err }}
	if err := pace(e.ctx, e.w, shortRun, e.perMs, a); err != nil {
		return nil, err
	}
	m2, err := peers.BwmarrinBehind(1, back)
	if err != nil {
		return nil, err
	}
	b := &proc{node: 1, pred: a, mint: func() (int64, error) { id, err := m2.Next(); return int64(id.Lo), err }}
	if err := pace(e.ctx, e.w, shortRun, e.perMs, b); err != nil {
		return nil, err
	}
	rows = append(rows, subjectRow{Side: sidePeer, Subject: "bwmarrin/snowflake@v0.3.0, node 1",
		Fault:    "restart with the wall clock 5 ms behind",
		Injected: "NewNode with Epoch 5 ms later (the library reads no clock it is given; a clock 5 ms behind at NewNode gives the same IDs)",
		Expect:   expectDuplicates, Note: "the restarted node starts each millisecond's sequence at 0 with nothing to say what its predecessor used"}.with(count(a, b)))

	// The control: snowlab's generator on a bare node id, the same restart.
	c1 := e.w.clock(0)
	a, err = bare(1, c1, nil)
	if err != nil {
		return nil, err
	}
	if err := pace(e.ctx, e.w, shortRun, e.perMs, a); err != nil {
		return nil, err
	}
	if err := e.stop(a); err != nil {
		return nil, err
	}
	b, err = bare(1, e.behind(a, back), a)
	if err != nil {
		return nil, err
	}
	if err := pace(e.ctx, e.w, shortRun, e.perMs, b); err != nil {
		return nil, err
	}
	rows = append(rows, subjectRow{Side: sideControl, Subject: "atomicgen/strict on node 1 named by hand, no lease, no StaticConfig",
		Fault: "restart with the clock 5 ms behind", Injected: injectedClock,
		Expect: expectDuplicates, Note: "what the generator alone does: the defence is the lease's floor"}.with(count(a, b)))

	// snowlab on a lease: the same restart, graceful.
	s, layout, where, err := e.ground(true)
	if err != nil {
		return nil, err
	}
	a, err = e.leased(s, layout, snowlab.Strict, nil, 0)
	if err != nil {
		return nil, err
	}
	if err := pace(e.ctx, e.w, shortRun, e.perMs, a); err != nil {
		return nil, err
	}
	if err := e.stop(a); err != nil {
		return nil, err
	}
	b, note, err := e.restarted(s, layout, snowlab.Strict, a, back, shortRun, "whose floor is the end of the last tick its predecessor used")
	if err != nil {
		return nil, err
	}
	rows = append(rows, subjectRow{Side: sideSnowlab, Subject: "atomicgen/strict on a dir: lease, " + where,
		Fault: "restart with the clock 5 ms behind", Injected: injectedClock, Expect: expectNone, Note: note}.with(count(a, b)))

	inside, err := rewindsInside(e, back)
	if err != nil {
		return nil, err
	}
	return append(rows, inside...), nil
}

// rewindsInside is bwmarrin53's rollback inside a running snowlab
// process, back (within MaxWait) and 20 ms (beyond it).
func rewindsInside(e *env, back time.Duration) ([]subjectRow, error) {
	var rows []subjectRow
	for _, d := range []time.Duration{back, 20 * time.Millisecond} {
		clk := e.w.clock(0)
		p, err := bare(1, clk, nil)
		if err != nil {
			return nil, err
		}
		if err := pace(e.ctx, e.w, shortRun, e.perMs, p); err != nil {
			return nil, err
		}
		clk.step(-d)
		if err := pace(e.ctx, e.w, 2*shortRun, e.perMs, p); err != nil {
			return nil, err
		}
		note := "a rewind within MaxWait (5 ms) is waited out"
		if d > back {
			note = "a rewind beyond MaxWait (5 ms) is refused until the clock is back within it, then waited out"
		}
		rows = append(rows, subjectRow{Side: sideSnowlab, Subject: "atomicgen/strict on node 1 (MaxWait 5 ms, the default)",
			Fault: fmt.Sprintf("the clock stepped back %v while minting (which v0.3.0's monotonic clock never sees)", d), Injected: injectedClock,
			Expect: expectNone, Note: note}.with(count(p)))
	}
	return rows, nil
}

// leaf216 replays Leaf #216: a holder crashes 2.5 s into its lease (a
// refresh every second, the reservation 3 s ahead: the Window Leaf's
// report interval becomes here) and restarts with its clock 1 s back, on
// a fleet whose other node ids are held (it must come back to its own)
// and on the default layout, where others are free.
func leaf216(e *env) ([]subjectRow, error) {
	rows := []subjectRow{notRun("Meituan-Dianping/Leaf (Java)")}
	for _, full := range []bool{true, false} {
		s, layout, where, err := e.ground(full)
		if err != nil {
			return nil, err
		}
		a, err := e.leased(s, layout, snowlab.Strict, nil, 0)
		if err != nil {
			return nil, err
		}
		if err := pace(e.ctx, e.w, leafRun, e.perMs, a); err != nil {
			return nil, err
		}
		if err := e.crash(a); err != nil {
			return nil, err
		}
		b, note, err := e.restarted(s, layout, snowlab.Strict, a, time.Second, afterRun,
			"whose floor is the reservation made durable before any ID used it, ahead of every ID")
		if err != nil {
			return nil, err
		}
		rows = append(rows, subjectRow{Side: sideSnowlab, Subject: "atomicgen/strict on a dir: lease, " + where,
			Fault:    "crash 2.5 s into the lease (reservation 3 s ahead, refreshed every 1 s), restart with the clock 1 s back",
			Injected: injectedClock, Expect: expectNone, Note: note}.with(count(a, b)))
	}
	return rows, nil
}

// yitter110 replays yitter #110 on a full fleet: a holder on each of the
// eight node ids, one crashes and restarts, and a ninth asks for one.
func yitter110(e *env) ([]subjectRow, error) {
	rows := []subjectRow{notRun("yitter/IdGenerator's Redis worker-id registration")}
	s, err := e.store()
	if err != nil {
		return nil, err
	}
	fleet := make([]*proc, fleetSize)
	for i := range fleet {
		if fleet[i], err = e.leased(s, fleetLayout, snowlab.Strict, nil, 0); err != nil {
			return nil, err
		}
	}
	if err := pace(e.ctx, e.w, 1500*time.Millisecond, e.perMs, fleet...); err != nil {
		return nil, err
	}
	dead := fleet[2]
	if err := e.crash(dead); err != nil {
		return nil, err
	}
	back, err := e.leased(s, fleetLayout, snowlab.Strict, dead, 0)
	if err != nil {
		return nil, err
	}
	fleet[2] = back
	newcomer := &proc{}
	if _, err := nodeid.Acquire(e.ctx, s, nodeid.Options{Layout: fleetLayout, Clock: e.w.clock(0)}); err != nil {
		newcomer.refuse(err)
	} else {
		return nil, fmt.Errorf("yitter-110: a holder got a node id from a full fleet of %d", fleetSize)
	}
	if err := pace(e.ctx, e.w, afterRun, e.perMs, fleet...); err != nil {
		return nil, err
	}
	rows = append(rows, subjectRow{Side: sideSnowlab, Subject: "atomicgen/strict on a dir: lease, 8 holders on the 8 node ids",
		Fault:    "the fleet full; one holder crashes and restarts; a ninth holder asks for a node id",
		Injected: "none: no clock moved", Expect: expectNone,
		Note: fmt.Sprintf("the crashed holder's node id is free (its lock died with it) and it came back on node %d; "+
			"the ninth was refused instead of sharing a node id", back.node)}.with(count(append(fleet, dead, newcomer)...)))
	return rows, nil
}

// leadTicks is how far ahead of the clock baidu85's Monotonic generators
// run: they mint that many ticks' sequence space in one NextIDs call, as
// CachedUidGenerator fills its ring of UIDs from seconds still to come.
const leadTicks = 4

// burst is leadTicks ticks of layout's sequence space: 16,384 IDs in the
// default layout, 1,048,576 in fleetLayout.
func burst(layout snowlab.Layout) int { return leadTicks * (layout.OrDefault().MaxSeq() + 1) }

// baidu85 replays baidu #85: a generator that stamps future time restarts
// at once. snowlab's Monotonic policy borrows ticks ahead; the restart
// comes back on the same node id by StaticConfig (a single instance) or
// on a full fleet's lease, and on a lease where other node ids are free.
func baidu85(e *env) ([]subjectRow, error) {
	rows := []subjectRow{notRun("baidu/uid-generator (Java)")}

	// A single instance on node 0 named by hand, with StaticConfig.
	static := func(clk *skewClock, pred *proc) (*proc, error) {
		cfg, err := nodeid.StaticConfig(snowlab.Config{Node: 0, Clock: clk, Policy: snowlab.Monotonic, MaxLead: nodeid.StaticMaxLead}, 1)
		if err != nil {
			return nil, err
		}
		g, ahead, waited, err := timedNew(clk, cfg.Fence, func() (*atomicgen.Generator, error) { return atomicgen.New(cfg) })
		if err != nil {
			return nil, err
		}
		p := generatorProc(g, 0, clk)
		p.ahead, p.waited, p.pred = ahead, waited, pred
		return p, nil
	}
	a, err := static(e.w.clock(0), nil)
	if err != nil {
		return nil, err
	}
	a.mintBatch(burst(snowlab.DefaultLayout))
	b, err := static(e.w.clock(0), a)
	if err != nil {
		return nil, err
	}
	if err := pace(e.ctx, e.w, shortRun, e.perMs, b); err != nil {
		return nil, err
	}
	rows = append(rows, subjectRow{Side: sideSnowlab, Subject: "atomicgen/monotonic, MaxLead 100 ms, on node 0 named by hand with StaticConfig",
		Fault: "16,384 IDs in one NextIDs call (4 ms ahead of the clock), then an immediate restart", Injected: "none: no clock moved",
		Expect: expectNone, Note: "the restart starts past the 100 ms any predecessor can have borrowed"}.with(count(a, b)))

	for _, full := range []bool{true, false} {
		s, layout, where, err := e.ground(full)
		if err != nil {
			return nil, err
		}
		a, err := e.leased(s, layout, snowlab.Monotonic, nil, 0)
		if err != nil {
			return nil, err
		}
		a.mintBatch(burst(layout))
		if err := e.stop(a); err != nil {
			return nil, err
		}
		b, note, err := e.restarted(s, layout, snowlab.Monotonic, a, 0, shortRun, "starting past the end of the last tick its predecessor borrowed")
		if err != nil {
			return nil, err
		}
		rows = append(rows, subjectRow{Side: sideSnowlab, Subject: "atomicgen/monotonic (MaxLead 0: the lease bounds the lead) on a dir: lease, " + where,
			Fault:    "4 ms of the layout's IDs in one NextIDs call (4 ms ahead of the clock), then an immediate graceful restart",
			Injected: "none: no clock moved", Expect: expectNone, Note: note}.with(count(a, b)))
	}
	return rows, nil
}

// baidu88 replays baidu #88: a process restarted over and over on
// fleetLayout's 8 node ids, each run minting for a millisecond.
func baidu88(e *env) ([]subjectRow, error) {
	rows := []subjectRow{notRun("baidu/uid-generator (Java)")}
	s, err := e.store()
	if err != nil {
		return nil, err
	}
	last := map[int]*proc{} // the latest process on each node id
	var all []*proc
	var prev *proc
	used := map[int]bool{}
	for range e.restarts + 1 {
		if err := e.ctx.Err(); err != nil {
			return nil, err
		}
		p, err := e.leased(s, fleetLayout, snowlab.Strict, prev, 0)
		if err != nil {
			return nil, err
		}
		prev, p.pred = p, last[p.node] // its order is checked against the node id's previous holder
		last[p.node], used[p.node] = p, true
		if err := pace(e.ctx, e.w, time.Millisecond, e.perMs, p); err != nil {
			return nil, err
		}
		if err := e.stop(p); err != nil {
			return nil, err
		}
		all = append(all, p)
	}
	rows = append(rows, subjectRow{Side: sideSnowlab, Subject: "atomicgen/strict on a dir: lease, 8 node ids",
		Fault:    fmt.Sprintf("%d restarts of one process, each minting for 1 ms", e.restarts),
		Injected: "none: no clock moved", Expect: expectNone,
		Note: fmt.Sprintf("%d restarts used %d of the %d node ids: a released node id is taken again, past its floor, so restarts spend none",
			e.restarts, len(used), fleetSize)}.with(count(all...)))
	return rows, nil
}

// injectedClock says how snowlab's side was given the fault.
const injectedClock = "scripted clock (Config.Clock and the lease's Options.Clock: true time plus a skew the scenario steps; " +
	"a restarted process's clock reads the rollback less than its predecessor's last reading when its generator is built)"

func notRun(peer string) subjectRow {
	return subjectRow{Side: sidePeer, Subject: peer, Expect: expectNotRun}
}
