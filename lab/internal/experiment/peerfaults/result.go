package peerfaults

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/snowlab/snowlab/lab/internal/host"
	"github.com/snowlab/snowlab/lab/internal/resultdir"
	"github.com/snowlab/snowlab/lab/result"
)

// schema is the peerfaults result's schema version.
const schema = 1

// The sides of a row.
const (
	sidePeer    = "peer"    // the peer library, or the peer named where it is not run
	sideControl = "control" // snowlab's generator without the defence, under the same fault
	sideSnowlab = "snowlab" // a documented snowlab composition
)

// What a row must show.
const (
	expectDuplicates = "duplicates" // the fault reproduces: at least one duplicate
	expectNone       = "none"       // no duplicate, no order break snowlab promises
	expectNotRun     = "not run"    // the peer is not a Go library the lab measures
)

// subjectRow is one subject under one scenario's fault.
type subjectRow struct {
	Scenario string `json:"scenario"`
	// Side is "peer", "control" or "snowlab".
	Side string `json:"side"`
	// Subject is what ran: the library at its version, or snowlab's
	// composition (generator, policy, where its node id comes from).
	Subject string `json:"subject"`
	// Fault is the fault as this row replays it; Injected how its time
	// reached the subject.
	Fault    string `json:"fault,omitempty"`
	Injected string `json:"injected,omitempty"`
	// IDs are the IDs received; Duplicates those received more than once.
	IDs        int `json:"ids"`
	Duplicates int `json:"duplicates"`
	// OrderBreaks are IDs not above the one their process minted before;
	// RestartBreaks are a restarted process's IDs not above the last its
	// predecessor minted (monotonicity across the restart), and SameNode
	// whether it restarted on its predecessor's node id, where snowlab
	// promises that order.
	OrderBreaks   int  `json:"order_breaks"`
	RestartBreaks int  `json:"restart_breaks"`
	SameNode      bool `json:"same_node"`
	// Refused counts the calls (and lease requests) refused, by the
	// sentinel error they wrapped.
	Refused map[string]int `json:"refused,omitempty"`
	// FloorAhead is how far the node ids' floor (what their previous
	// holder can have used) was ahead of the restarted processes' clocks
	// when their generators were built (summed over the restarts, one but
	// in baidu-88): what a Strict one must wait, a Monotonic one borrows.
	// Waited is how long those constructors took where it was ahead, by
	// the same clocks; RewindWaits the rewinds the generators waited out
	// (Stats.RewindWaits).
	FloorAhead  time.Duration `json:"floor_ahead_ns"`
	Waited      time.Duration `json:"waited_ns"`
	RewindWaits uint64        `json:"rewind_waits"`
	// Note says what the subject did instead of repeating IDs.
	Note string `json:"note,omitempty"`
	// Expect is what the row must show ("duplicates", "none" or "not
	// run"); Check is "OK", or FAIL with why.
	Expect string `json:"expect"`
	Check  string `json:"check"`
}

// with fills r's figures from t.
func (r subjectRow) with(t tally) subjectRow {
	r.IDs, r.Duplicates, r.OrderBreaks, r.RestartBreaks, r.SameNode = t.IDs, t.Duplicates, t.OrderBreaks, t.RestartBreaks, t.SameNode
	r.Refused, r.FloorAhead, r.Waited, r.RewindWaits = t.Refused, t.FloorAhead, t.Waited, t.RewindWaits
	return r
}

// check says whether r shows what it must: a replay of the fault that
// reproduces it (the peer, the control), or a snowlab composition with no
// duplicate and no order break it promises (within a process; across a
// restart on the same node id).
func (r subjectRow) check() string {
	switch r.Expect {
	case expectNotRun:
		return "not run"
	case expectDuplicates:
		if r.Duplicates == 0 {
			return "FAIL: no duplicate: the replay did not reproduce the fault"
		}
		return "OK: reproduced"
	case expectNone:
		switch {
		case r.IDs == 0:
			return "FAIL: no ID minted"
		case r.Duplicates > 0:
			return fmt.Sprintf("FAIL: %d duplicates", r.Duplicates)
		case r.OrderBreaks > 0:
			return fmt.Sprintf("FAIL: %d order breaks within a process", r.OrderBreaks)
		case r.SameNode && r.RestartBreaks > 0:
			return fmt.Sprintf("FAIL: %d IDs after the restart not above the predecessor's on the same node id", r.RestartBreaks)
		}
		return "OK"
	}
	return "FAIL: unknown expectation " + r.Expect
}

// runResult is one run of loadgen peerfaults.
type runResult struct {
	result.Header
	// PerMs is the IDs each process asked for per millisecond of its
	// steady runs; Restarts baidu-88's restarts.
	PerMs    int `json:"per_ms"`
	Restarts int `json:"restarts"`
	// Clock says what time the run was played in.
	Clock     string       `json:"clock"`
	Scenarios []scenario   `json:"scenarios"`
	Rows      []subjectRow `json:"rows"`
	// Failures lists every row whose check failed.
	Failures []string `json:"failures,omitempty"`
}

// options configure a run.
type options struct {
	// Scenarios are the names to play, in scenarios()' order; none is all.
	Scenarios []string
	// PerMs is the IDs each process asks for per millisecond (1 to 4,096:
	// bwmarrin's node spins for the next millisecond past 4,096).
	PerMs int
	// Restarts is baidu-88's restarts.
	Restarts int
	// Dir is the folder for the lock-folder stores; "" is a temporary
	// folder, removed at the end.
	Dir string
	// Clock says what time the run is played in, for the record: "real"
	// (the machine's time, with scripted skews) or, from the tests,
	// "virtual".
	Clock string
	// Host, when set, is recorded instead of host.Probe() (tests).
	Host *result.Host

	Command  []string
	Commit   string
	Dirty    bool
	Progress func(string)
}

// execute plays the scenarios of o. A run cut short returns what it has
// with the error.
func execute(ctx context.Context, o options) (*runResult, error) {
	r := &runResult{Header: resultdir.NewHeader("peerfaults", schema, o.Command, o.Commit, o.Dirty, o.Host),
		PerMs: o.PerMs, Restarts: o.Restarts, Clock: o.Clock}
	start, meter := time.Now(), host.StartLoad()
	defer func() { r.Elapsed, r.Host.Load = time.Since(start), meter.Stop() }()
	dir := o.Dir
	if dir == "" {
		tmp, err := os.MkdirTemp("", "peerfaults-")
		if err != nil {
			return r, err
		}
		defer os.RemoveAll(tmp)
		dir = tmp
	}
	for i, sc := range scenarios() {
		if len(o.Scenarios) > 0 && !slices.Contains(o.Scenarios, sc.Name) {
			continue
		}
		if o.Progress != nil {
			o.Progress("peerfaults: " + sc.Name)
		}
		e := &env{ctx: ctx, w: newWorld(), perMs: o.PerMs, restarts: o.Restarts, dir: fmt.Sprintf("%s/%d-%s", dir, i, sc.Name)}
		rows, err := sc.run(e)
		e.close()
		if err != nil {
			return r, fmt.Errorf("%s: %w", sc.Name, err)
		}
		r.Scenarios = append(r.Scenarios, sc)
		for _, row := range rows {
			row.Scenario = sc.Name
			row.Check = row.check()
			if strings.HasPrefix(row.Check, "FAIL") {
				r.Failures = append(r.Failures, fmt.Sprintf("%s, %s: %s", sc.Name, row.Subject, row.Check))
			}
			r.Rows = append(r.Rows, row)
		}
	}
	return r, nil
}
