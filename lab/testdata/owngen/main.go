// Command owngen is your own ID generator under snowlab's two regression
// gates, the way to gate it in your CI: copy this file into your
// repository as bench/main.go (a module that requires
// github.com/snowlab/snowlab/lab), put your generator behind
// newGenerator, and copy workflow.yml beside your workflows. On every
// pull request the workflow builds this program from the pull request's
// merge base and from its head, and:
//
//   - loadgen ab -pkg ./bench BASE HEAD measures the two builds
//     interleaved (CPU time per ID at G = 1, GOMAXPROCS and twice that,
//     fresh processes every round) and fails the job on a workload shown
//     slower by its minimum effect (3% at G=1, 10% above), or on an ID out
//     of order or repeated; it also says what it could detect on that
//     runner, at that moment, from two slowdowns it plants in base;
//   - loadgen instr -target head -against base counts each build's
//     instructions per call under valgrind's cachegrind and fails the
//     job on one 1.5% dearer: a slowdown too small for any clock.
//
// It is lab/runner's main: runner.Main serves loadgen ab (-serve) and
// loadgen instr (-list, -path NAME -n N). lab/owngen_test.go builds it
// from two commits of a throwaway repository, as the workflow does, and
// gates them.
package main

import (
	"sync/atomic"
	"time"

	"github.com/snowlab/snowlab"
	"github.com/snowlab/snowlab/lab/runner"
)

// newGenerator is the generator under test: replace it with yours. This
// one is a counter seeded from the clock in snowlab's layout, one
// fetch-and-add per ID.
func newGenerator() (func() (uint64, error), error) {
	var last atomic.Uint64
	last.Store(uint64(time.Since(snowlab.DefaultLayout.Epoch).Milliseconds()) << 22)
	return func() (uint64, error) { return last.Add(1), nil }, nil
}

func main() {
	runner.Main(runner.Subject{
		Name: "mine/counter",
		New:  newGenerator,
		// Each goroutine's IDs increase: the runner checks it on every ID.
		Increasing: true,
		// A generator that reads the clock on every call takes another
		// path when a tick turns: give Fixed the same generator on a
		// clock that stands still, so that instruction counts repeat.
		// This one reads it once, in newGenerator.
	})
}
