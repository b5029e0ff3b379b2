// Command owngen benchmarks your own ID generator with snowlab's lab, the
// way to gate it in your CI: copy this file into your repository, put
// your generator behind next, and run it from the workflow beside it
// (workflow.yml), which keeps a baseline and fails the job on a
// regression with loadgen gate.
//
// It measures next (and the physical limit it is read against) saturated
// at 1 and 2 goroutines, six interleaved repeats each, and writes the
// run into -out as loadgen writes its own: result JSON, Markdown report,
// charts, HTML page. loadgen gate -baseline BASELINE_DIR OUT/*.json then
// judges the ratios of the two runs (your generator's time per ID over
// the limit's, at G=1 and G=2), never absolute IDs/s, so the baseline
// holds across runners. It is built and run by lab/owngen_test.go.
//
// Usage:
//
//	go run . [-out DIR] [-duration D]
package main

import (
	"flag"
	"fmt"
	"os"
	"sync/atomic"
	"time"

	"github.com/snowlab/snowlab"
	"github.com/snowlab/snowlab/lab"
	"github.com/snowlab/snowlab/lab/subject"
)

// newGenerator is the generator under test: replace it with yours. This
// one is a counter seeded from the clock in snowlab's layout, one
// fetch-and-add per ID (so its limit is subject.LimitClockAdd).
func newGenerator() func() (uint64, error) {
	var last atomic.Uint64
	last.Store(uint64(time.Since(snowlab.DefaultLayout.Epoch).Milliseconds()) << 22)
	return func() (uint64, error) { return last.Add(1), nil }
}

func main() {
	out := flag.String("out", "bench-out", "the folder to write the run into")
	dur := flag.Duration("duration", 50*time.Millisecond, "how long each repeat saturates the generator")
	flag.Parse()
	if flag.NArg() > 0 || *dur <= 0 {
		fmt.Fprintln(os.Stderr, "usage: owngen [-out DIR] [-duration D>0]")
		os.Exit(2)
	}
	mine := subject.Func("mine/counter", newGenerator(), nil)
	mine.Order = subject.OrderCaller   // each goroutine's IDs increase: the lab checks it
	mine.Limit = subject.LimitClockAdd // a clock read and one fetch-and-add: what it must do at least
	mine.Library = "example.com/mine"
	subjects := []subject.Subject{mine}
	for _, l := range subject.Limits() {
		if l.Name == mine.Limit { // only the limit it is read against
			subjects = append(subjects, l)
		}
	}
	suite := lab.Suite{
		Subjects:  subjects,
		Workloads: lab.Workloads{Saturate: true},
		Saturate:  lab.SaturateConfig{Goroutines: []int{1, 2}, Duration: *dur, Repeats: 6},
	}
	run, err := suite.Measure()
	if err != nil {
		fmt.Fprintln(os.Stderr, "owngen:", err)
		os.Exit(2)
	}
	paths, err := lab.WriteFiles(*out, run)
	if err != nil {
		fmt.Fprintln(os.Stderr, "owngen:", err)
		os.Exit(1)
	}
	for _, p := range paths {
		fmt.Println("wrote", p)
	}
	if len(run.Failures) > 0 {
		fmt.Fprintln(os.Stderr, "owngen: correctness failures:", run.Failures)
		os.Exit(1)
	}
}
