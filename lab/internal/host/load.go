package host

import (
	"fmt"
	"math"
	"strings"
)

// Load is what else the host did while a run measured: the load average
// as the run began and as it ended, and how the host's CPU time over the
// run was shared among the run itself (this process and the processes it
// started), every other process, and the hypervisor's other guests
// (steal). A figure measured on a busy host is partly the host's: CPU
// time others take is time the generators did not get, and a steady
// run's tail latency is then the scheduler's. Fingerprint.Load is nil in
// result files of labs that did not record it.
type Load struct {
	// Unknown says why the load was not recorded, "" when it was: off
	// Linux, or /proc could not be read. Nothing else is set then; the
	// lab does not guess.
	Unknown string `json:"unknown,omitempty"`
	// CPUs is how many CPUs /proc/stat counts: the shares below are of
	// their time together.
	CPUs  int     `json:"cpus,omitempty"`
	Start LoadAvg `json:"loadavg_start"`
	End   LoadAvg `json:"loadavg_end"`
	// Seconds is how long the measurement ran, by the kernel's count of
	// CPU time over CPUs.
	Seconds float64 `json:"seconds,omitempty"`
	// Own, Other and Steal are shares, 0 to 1, of all the CPUs' time over
	// the run: Own what this process and its descendants used (user and
	// system), Other what every other process and kernel thread used,
	// Steal what the hypervisor gave its other guests. Interrupt time and
	// idle time are in none of them.
	Own   float64 `json:"own_share"`
	Other float64 `json:"other_share"`
	Steal float64 `json:"steal_share"`
}

// LoadAvg is a reading of /proc/loadavg: the load averages over 1, 5 and
// 15 minutes, and the tasks runnable and existing at that moment. Read as
// a run ends, it counts the run's own threads.
type LoadAvg struct {
	One      float64 `json:"one"`
	Five     float64 `json:"five"`
	Fifteen  float64 `json:"fifteen"`
	Runnable int     `json:"runnable"`
	Tasks    int     `json:"tasks"`
}

// Recorded reports whether l holds a measured load: false for nil (an
// older lab's file) and for a load that could not be read.
func (l *Load) Recorded() bool { return l != nil && l.Unknown == "" }

// Taken is the share of the host's CPU time over the run that the run
// could not have had: what other processes and the hypervisor's other
// guests took. 0 when l is not recorded.
func (l *Load) Taken() float64 {
	if !l.Recorded() {
		return 0
	}
	return l.Other + l.Steal
}

// String is the load in one line, as reports and comparisons print it:
// "load: other processes 3% · steal 0% · this run 95% of 2 CPUs over 12s ·
// load average 0.12 at start, 2.05 at end"; "load not recorded" for nil,
// "load " and Unknown ("load unknown: why") for a load that could not be
// read.
func (l *Load) String() string {
	switch {
	case l == nil:
		return "load not recorded"
	case l.Unknown != "":
		return "load " + l.Unknown
	}
	s := fmt.Sprintf("load: other processes %s · steal %s · this run %s of %d CPU%s", Percent(l.Other), Percent(l.Steal),
		Percent(l.Own), l.CPUs, plural(l.CPUs))
	if l.Seconds > 0 {
		s += fmt.Sprintf(" over %.3gs", l.Seconds)
	}
	return s + fmt.Sprintf(" · load average %.2f at start, %.2f at end", l.Start.One, l.End.One)
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// Percent formats a share (0 to 1) as a whole percentage, "<1%" for a
// share above zero that would read as 0%.
func Percent(share float64) string {
	switch {
	case share > 0 && share < 0.005:
		return "<1%"
	case math.IsNaN(share):
		return "?"
	}
	return fmt.Sprintf("%.0f%%", 100*share)
}

// loadShareDiff is how far apart the shares of CPU time taken from two
// runs (Load.Taken) may be before their loads are said to differ: 10
// points of the host's CPU time. A saturate repeat at as many goroutines
// as CPUs runs on every CPU, so a share others take is about that share
// less IDs/s. 10 points is over twice the spread of repeats on a quiet
// host (in the committed runs 0f6f2b1, 9ae50bd, f912d6f and f298ad4 the
// median subject's saturate repeats at G=1 lie within 1.1% to 4.2% of
// their median; in the other eight, 18% to 78%, with no load recorded to
// say why) and under the gate's 25% tolerance: a warning marks a
// difference the figures can show and the repeats' own noise cannot
// explain.
const loadShareDiff = 0.10

// BusyShare is the share taken from a run (Load.Taken) past which the
// reports call its host busy: the same 10 points, counted from an idle
// host.
const BusyShare = loadShareDiff

// Busy reports whether others took more than BusyShare of the host's CPU
// time during the run.
func (l *Load) Busy() bool { return l.Taken() > BusyShare }

// LoadDifference says how the loads a and b of two runs differ enough
// that the runs' absolute figures may differ by it ("" when they do not,
// or when either load is not recorded: see Recorded): the shares of CPU
// time taken from them (Load.Taken) more than loadShareDiff apart.
//
// The load average is shown beside it but not ruled on: it is a decaying
// one-minute average of runnable tasks, which at a run's end counts the
// run's own threads and at its start whatever ran just before (a 2-CPU
// host reads 2 and more right after `go test -race`, idle since), so it
// cannot tell another process from the lab. The shares of CPU time,
// measured over the run itself, can.
func LoadDifference(a, b *Load) string {
	if !a.Recorded() || !b.Recorded() || math.Abs(a.Taken()-b.Taken()) <= loadShareDiff {
		return ""
	}
	parts := []string{fmt.Sprintf("other processes and steal took %s vs %s of the CPU time",
		Percent(a.Taken()), Percent(b.Taken()))}
	if a.Steal > 0 || b.Steal > 0 {
		parts = append(parts, fmt.Sprintf("steal %s vs %s", Percent(a.Steal), Percent(b.Steal)))
	}
	return strings.Join(parts, "; ")
}
