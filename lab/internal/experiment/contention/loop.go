package contention

import (
	"cmp"
	"math"
	"sync/atomic"
	"time"

	"github.com/snowlab/snowlab/lab/internal/limit"
	"github.com/snowlab/snowlab/lab/internal/workload"
	"github.com/snowlab/snowlab/lab/result"
	"github.com/snowlab/snowlab/lab/subject"
)

// sampleEvery times one call in 64, as the suite's saturate does: two
// clock reads on every call would halve the rate being measured.
const sampleEvery = 64

// keepTotal bounds the IDs the goroutines keep for the check:
// 1<<20 in all at 8×GOMAXPROCS goroutines of a 16-CPU host is 16 MiB,
// and a goroutine that mints more only counts them.
const keepTotal = 1 << 20

// tally is one repeat of a closed loop: each goroutine's count of IDs,
// the wall time from release to the last goroutine's end, the sampled
// latencies and what the check found.
type tally struct {
	counts  []int64
	elapsed time.Duration
	recs    []*workload.Recorder
	check   result.Check
}

// closedLoop runs g goroutines calling m's callers for d, each counting
// its own calls (its share) and keeping its first IDs for the check.
func closedLoop(s subject.Subject, m subject.Minter, g int, d time.Duration) tally {
	callers := subject.Callers(m, g)
	t := tally{counts: make([]int64, g), recs: workload.NewRecorders(g)}
	kept := make([][]subject.ID, g)
	errs := make([]error, g)
	errN := make([]int, g)
	for i := range g {
		kept[i] = make([]subject.ID, 0, max(keepTotal/g, 1))
	}
	var stop atomic.Bool
	t0 := workload.FanOut(g, func() {
		time.Sleep(d) // the run's length, not a wait for an outcome
		stop.Store(true)
	}, func(i int, _ int64) {
		t.counts[i], errN[i], errs[i] = spin(callers[i], &stop, t.recs[i], &kept[i])
	})
	t.elapsed = time.Duration(limit.Now() - t0)
	t.check = check(s, m, kept, errN, errs)
	return t
}

// spin is one goroutine's loop until stop.
func spin(m subject.Minter, stop *atomic.Bool, rec *workload.Recorder, kept *[]subject.ID) (n int64, errN int, first error) {
	for !stop.Load() {
		var id subject.ID
		var err error
		if n%sampleEvery == 0 {
			t0 := time.Now()
			id, err = m.Next()
			rec.Record(int64(time.Since(t0)))
		} else {
			id, err = m.Next()
		}
		if err != nil {
			errN++
			if first == nil {
				first = err
			}
			continue
		}
		n++
		if len(*kept) < cap(*kept) {
			*kept = append(*kept, id)
		}
	}
	return n, errN, first
}

// check is the suite's check (workload.Check) of the kept IDs, with each
// goroutine's failed calls and first error summed: a goroutine whose
// call failed goes on calling, so that the shares stay its own.
func check(s subject.Subject, m subject.Minter, kept [][]subject.ID, errN []int, errs []error) result.Check {
	n := 0
	for _, e := range errN {
		n += e
	}
	return workload.Check(s, m, kept, n, cmp.Or(errs...))
}

// goroutineShares is how evenly the goroutines were served: each one's IDs over
// the fair share (total/G), so 1 is fair, 0 starved.
type goroutineShares struct {
	Min float64 `json:"min"`
	Max float64 `json:"max"`
	// CV is the counts' standard deviation over their mean (0: even).
	CV float64 `json:"cv"`
	// Starved counts goroutines that got no ID at all.
	Starved int `json:"starved"`
}

// shares of counts.
func shares(counts []int64) goroutineShares {
	var sum float64
	for _, n := range counts {
		sum += float64(n)
	}
	if sum == 0 || len(counts) == 0 {
		return goroutineShares{Starved: len(counts)}
	}
	mean := sum / float64(len(counts))
	sh := goroutineShares{Min: math.Inf(1)}
	var ss float64
	for _, n := range counts {
		f := float64(n) / mean
		sh.Min, sh.Max = min(sh.Min, f), max(sh.Max, f)
		ss += (float64(n) - mean) * (float64(n) - mean)
		if n == 0 {
			sh.Starved++
		}
	}
	sh.CV = math.Sqrt(ss/float64(len(counts))) / mean
	return sh
}
