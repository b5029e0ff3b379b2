package contention

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/snowlab/snowlab"
	"github.com/snowlab/snowlab/atomicgen"
	"github.com/snowlab/snowlab/clocksrc"
	"github.com/snowlab/snowlab/lab/internal/host"
	"github.com/snowlab/snowlab/lab/internal/limit"
	"github.com/snowlab/snowlab/lab/internal/perfevent"
	"github.com/snowlab/snowlab/lab/internal/stats"
	"github.com/snowlab/snowlab/lab/result"
)

// The layouts of the padding A/B, each with G goroutines:
//   - shared: every goroutine calls one atomicgen generator (Monotonic,
//     which never waits for a tick): true sharing of its one word, the
//     cost the placement sweep reads across distances;
//   - adjacent: each goroutine moves a word of its own with the limit's
//     loop body (clock read, one CAS to max(old+1, now): the generator's
//     hot path), the words side by side in one 64-byte line: false
//     sharing, every CAS invalidating the others' line;
//   - padded: the same words, each alone on its 128 bytes (limit.Word,
//     laid out as the generators' engine.Cell is).
//
// The production generators' word is already padded (engine.Cell fills
// whole cache lines); the A/B says what that padding is worth, so that a
// layout change is argued from a figure.
var layouts = []string{"shared", "adjacent", "padded"}

// maxAdjacent is how many 8-byte words fit one 64-byte line: the
// placement sweep runs at most this many goroutines, so that "adjacent"
// is one line.
const maxAdjacent = 8

// placementPoint is one layout at one placement.
type placementPoint struct {
	Placement  string `json:"placement"`
	Layout     string `json:"layout"`
	Goroutines int    `json:"goroutines"`
	CPUs       []int  `json:"cpus,omitempty"`
	// Skipped says why the host could not give this placement; nothing
	// was measured.
	Skipped string `json:"skipped,omitempty"`
	// NsPerOp is the median over the repeats of the time one goroutine
	// took per operation (wall time × G / operations).
	NsPerOp float64   `json:"ns_per_op,omitempty"`
	Repeats []float64 `json:"repeats_ns_per_op,omitempty"`
	// Events are the hardware counters per operation where a PMU is
	// there (cache-misses is the generic event nearest a cache-to-cache
	// transfer: HITM needs model-specific events).
	Events result.Events `json:"events"`
}

// placement runs every layout at every placement (with "unplaced", the
// scheduler's choice, first).
func placement(ctx context.Context, o options, top *result.Topology, allowed []int, progress func(string)) ([]placementPoint, error) {
	ev := perfevent.Open()
	defer ev.Close()
	var out []placementPoint
	for _, pl := range append([]string{"unplaced"}, placements...) {
		var cpus []int
		var skip string
		if pl != "unplaced" {
			var err error
			if cpus, err = place(top, pl, o.PlaceG, allowed); err != nil {
				skip = err.Error()
			}
		}
		for _, l := range layouts {
			pt := placementPoint{Placement: pl, Layout: l, Goroutines: o.PlaceG, CPUs: cpus, Skipped: skip}
			if skip == "" {
				if progress != nil {
					progress(fmt.Sprintf("placement: %s %s (G=%d, CPUs %v)", pl, l, o.PlaceG, cpus))
				}
				if err := measureLayout(ctx, o, &pt, ev); err != nil {
					return out, err
				}
			}
			out = append(out, pt)
		}
	}
	return out, nil
}

// measureLayout runs pt's repeats.
func measureLayout(ctx context.Context, o options, pt *placementPoint, ev *perfevent.Counter) error {
	var ops int64
	ev.Start()
	for range o.Repeats {
		if err := ctx.Err(); err != nil {
			return err
		}
		n, el, err := layoutRun(pt.Layout, pt.CPUs, pt.Goroutines, o.PlaceDuration)
		if err != nil {
			if errors.Is(err, errCannotPlace) {
				pt.Skipped = err.Error()
				return nil
			}
			return err
		}
		ops += n
		pt.Repeats = append(pt.Repeats, float64(el.Nanoseconds())*float64(pt.Goroutines)/float64(max(n, 1)))
	}
	pt.Events = ev.Stop(int(min(ops, 1<<40)))
	pt.NsPerOp = stats.Median(pt.Repeats)
	return nil
}

// words is the adjacent layout: G words in one 64-byte line (the block
// is 128 bytes, aligned to 64 by the start index).
type words struct{ w [24]atomic.Uint64 }

func (b *words) line() []atomic.Uint64 {
	off := (64 - int(uintptr(unsafe.Pointer(&b.w[0]))%64)) % 64 / 8
	return b.w[off : off+maxAdjacent]
}

// layoutRun runs g goroutines (pinned to cpus when given) on layout for
// d and returns the operations done and the wall time.
func layoutRun(layout string, cpus []int, g int, d time.Duration) (int64, time.Duration, error) {
	gen, err := atomicgen.New(snowlab.Config{Node: 1, Policy: snowlab.Monotonic})
	if err != nil {
		return 0, 0, err
	}
	clock := clocksrc.Default()
	var adj words
	line := adj.line()
	pads := make([]limit.Word, g)
	body := func(i int) {
		switch layout {
		case "shared":
			_, _ = gen.NextID()
		case "adjacent":
			advance(&line[i], uint64(clock.UnixNano()))
		default:
			pads[i].Advance(uint64(clock.UnixNano()))
		}
	}
	return runPinned(cpus, g, d, body)
}

// advance is limit.Word.Advance on a bare word.
func advance(w *atomic.Uint64, now uint64) {
	for {
		old := w.Load()
		if w.CompareAndSwap(old, max(old+1, now)) {
			return
		}
	}
}

// runPinned runs body(i) in goroutine i until d has passed, goroutine i
// pinned to cpus[i] when cpus is given.
func runPinned(cpus []int, g int, d time.Duration, body func(i int)) (int64, time.Duration, error) {
	var stop atomic.Bool
	var ready, wg sync.WaitGroup
	release := make(chan struct{})
	counts := make([]int64, g)
	errs := make([]error, g)
	for i := range g {
		ready.Add(1)
		wg.Go(func() {
			if cpus != nil {
				restore, err := host.BindThread(cpus[i : i+1])
				if err != nil {
					errs[i] = fmt.Errorf("%w: %w", errCannotPlace, err)
					ready.Done()
					return
				}
				defer restore()
			}
			ready.Done()
			<-release
			for !stop.Load() {
				for range 64 {
					body(i)
				}
				counts[i] += 64
			}
		})
	}
	ready.Wait()
	start := time.Now()
	close(release)
	time.Sleep(d) // the run's length, not a wait for an outcome
	stop.Store(true)
	wg.Wait()
	el := time.Since(start)
	var n int64
	for i := range g {
		if errs[i] != nil {
			return 0, 0, errs[i]
		}
		n += counts[i]
	}
	return n, el, nil
}
