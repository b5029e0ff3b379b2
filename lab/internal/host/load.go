package host

import (
	"fmt"
	"math"
	"strings"

	"github.com/snowlab/snowlab/lab/result"
)

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
// time during the run l measured.
func Busy(l *result.Load) bool { return l.Taken() > BusyShare }

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
func LoadDifference(a, b *result.Load) string {
	if !a.Recorded() || !b.Recorded() || math.Abs(a.Taken()-b.Taken()) <= loadShareDiff {
		return ""
	}
	parts := []string{fmt.Sprintf("other processes and steal took %s vs %s of the CPU time",
		result.Percent(a.Taken()), result.Percent(b.Taken()))}
	if a.Steal > 0 || b.Steal > 0 {
		parts = append(parts, fmt.Sprintf("steal %s vs %s", result.Percent(a.Steal), result.Percent(b.Steal)))
	}
	return strings.Join(parts, "; ")
}
