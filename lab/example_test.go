package lab_test

import (
	"fmt"
	"sync/atomic"
	"time"

	"github.com/snowlab/snowlab"
	"github.com/snowlab/snowlab/lab"
	"github.com/snowlab/snowlab/lab/compare"
	"github.com/snowlab/snowlab/lab/subject"
)

// Benchmark your own generator: wrap it as a subject with subject.Func
// (one ID per call, and a batch call if it has one), put the physical
// limit it is read against beside it, and run the standard workloads. The
// result is what `loadgen run` writes (lab.WriteFiles); compare.Ratios
// reads its host-normalised ratios. To gate a change in CI, put the
// generator behind lab/runner instead and run loadgen ab on base and
// head (testdata/owngen). This suite is cut short to run in a test; a zero Burst or
// Saturate configuration runs the lab's defaults.
func Example() {
	// The generator under test: a counter seeded from the clock in
	// snowlab's layout (it runs ahead of the clock when it must).
	var last atomic.Uint64
	last.Store(uint64(time.Since(snowlab.DefaultLayout.Epoch).Milliseconds()) << 22)
	next := func() (uint64, error) { return last.Add(1), nil }
	fill := func(dst []uint64) (int, error) {
		end := last.Add(uint64(len(dst)))
		for i := range dst {
			dst[i] = end - uint64(len(dst)-1-i)
		}
		return len(dst), nil
	}
	mine := subject.Func("mine/counter", next, fill)
	mine.Order = subject.OrderCaller   // each goroutine's IDs increase: the lab checks it
	mine.Limit = subject.LimitClockAdd // its path is a fetch-and-add: read it against a clock read + one
	mine.Library = "example.com/mine"

	suite := lab.Suite{
		Subjects:  append([]subject.Subject{mine}, subject.Limits()...),
		Workloads: lab.Workloads{Burst: true, Saturate: true},
		Burst:     lab.BurstConfig{IDs: 10_000, Goroutines: 4, Repeats: 2},
		Saturate:  lab.SaturateConfig{Goroutines: []int{1, 2}, Duration: 20 * time.Millisecond, Repeats: 2},
	}
	run, err := suite.Measure()
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("checks passed:", len(run.Failures) == 0)
	for _, s := range run.Subjects {
		fmt.Println("measured:", s.Name)
	}
	for _, r := range compare.Ratios(run) {
		fmt.Println("ratio:", r.Name)
	}
	// Output:
	// checks passed: true
	// measured: mine/counter
	// measured: limit/clock+cas
	// measured: limit/per-p
	// measured: limit/clock+add
	// measured: limit/per-p+add
	// ratio: mine/counter ns/ID over limit/clock+add @G=1
}
