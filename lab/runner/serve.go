package runner

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"runtime"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Hello is the line a runner writes first under -serve.
type Hello struct {
	Protocol   string   `json:"protocol"`
	Subjects   []string `json:"subjects"`
	GOMAXPROCS int      `json:"gomaxprocs"`
	// Plant is the slowdown this build plants ("none", "calls",
	// "shared"): loadgen refuses a runner built with another.
	Plant string `json:"plant"`
	// CPU is whether CPU times are read (Linux).
	CPU bool `json:"cpu"`
}

// Answer is the runner's answer to one request, a line of JSON.
//
// To "slice NAME G WARMUP_NS DUR_NS": the subject called on G goroutines
// for WARMUP_NS unmeasured, then for DUR_NS measured: the IDs minted,
// the wall time, the CPU time (the calling thread's at G=1, the
// process's above; -1 where it is not read) and the order violations.
//
// To "check NAME G N": N IDs minted on G goroutines and kept; Duplicates
// among them and order violations (each goroutine's).
type Answer struct {
	IDs    int64 `json:"ids"`
	WallNS int64 `json:"wall_ns,omitempty"`
	CPUNS  int64 `json:"cpu_ns,omitempty"`
	// BatchNS, up to GOMAXPROCS goroutines, is the median batch's time
	// per ID times IDs (batches of stepBatch calls; the package doc says
	// why): loadgen ab decides on it where it is set.
	BatchNS    int64  `json:"batch_ns,omitempty"`
	Violations int64  `json:"order_violations,omitempty"`
	Duplicates int64  `json:"duplicates,omitempty"`
	Err        string `json:"err,omitempty"`
}

// server answers the requests one at a time: only the serve loop makes
// and reads nexts.
type server struct {
	subjects []Subject
	nexts    map[string]func() (uint64, error)
	solo     chan soloReq
}

// soloReq is a G=1 slice for the goroutine locked to its thread.
type soloReq struct {
	name       string
	next       func() (uint64, error)
	warmup, d  time.Duration
	increasing bool
	answer     chan Answer
}

func newServer(subjects []Subject) *server {
	s := &server{subjects: subjects, nexts: map[string]func() (uint64, error){}, solo: make(chan soloReq)}
	go s.soloLoop()
	return s
}

func (s *server) serve(stdin io.Reader, stdout io.Writer) error {
	// No collection while slices run: the generators allocate nothing,
	// the runner little (its answers, a lockstep slice's records once),
	// and a collector's workers would take Ps from the minting goroutines.
	debug.SetGCPercent(-1)
	enc := json.NewEncoder(stdout)
	h := Hello{Protocol: Protocol, GOMAXPROCS: runtime.GOMAXPROCS(0), Plant: Plant, CPU: threadCPU() >= 0}
	for _, sub := range s.subjects {
		h.Subjects = append(h.Subjects, sub.Name)
	}
	if err := enc.Encode(h); err != nil {
		return err
	}
	in := bufio.NewScanner(stdin)
	for in.Scan() {
		a, err := s.handle(strings.Fields(in.Text()))
		if err != nil {
			a.Err = err.Error()
		}
		if werr := enc.Encode(a); werr != nil {
			return werr
		}
		if errors.Is(err, errUsage) {
			return err
		}
	}
	return in.Err()
}

func (s *server) handle(f []string) (Answer, error) {
	bad := fmt.Errorf("%w: request %q: want \"slice NAME G WARMUP_NS DUR_NS\" or \"check NAME G N\"", errUsage, strings.Join(f, " "))
	if len(f) < 4 {
		return Answer{}, bad
	}
	nums := make([]int64, len(f)-2)
	for i, v := range f[2:] {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n < 0 {
			return Answer{}, bad
		}
		nums[i] = n
	}
	sub, err := lookup(s.subjects, f[1])
	if err != nil {
		return Answer{}, err
	}
	g := int(nums[0])
	if g < 1 || g > 1<<16 {
		return Answer{}, bad
	}
	next, err := s.next(sub)
	if err != nil {
		return Answer{}, err
	}
	switch {
	case f[0] == "slice" && len(f) == 5:
		warmup, d := time.Duration(nums[1]), time.Duration(nums[2])
		switch {
		case g == 1:
			r := soloReq{name: sub.Name, next: next, warmup: warmup, d: d, increasing: sub.Increasing, answer: make(chan Answer)}
			s.solo <- r
			return <-r.answer, nil
		case g <= runtime.GOMAXPROCS(0):
			lockstep(next, g, warmup, sub.Increasing)
			return lockstep(next, g, d, sub.Increasing), nil
		}
		return timedMany(next, g, warmup, d, sub.Increasing), nil
	case f[0] == "check" && len(f) == 4:
		return checkIDs(next, g, int(nums[1]), sub.Increasing), nil
	}
	return Answer{}, bad
}

// next is the subject's generator in this process, made on first use.
func (s *server) next(sub Subject) (func() (uint64, error), error) {
	if n, ok := s.nexts[sub.Name]; ok {
		return n, nil
	}
	n, err := sub.New()
	if err != nil {
		return nil, fmt.Errorf("%s: New: %w", sub.Name, err)
	}
	s.nexts[sub.Name] = n
	return n, nil
}

// soloLoop does every G=1 slice on one goroutine locked to its OS
// thread, so that the thread's CPU time is the calls' and nothing else's.
// Each subject keeps its worker (its last ID) across slices.
func (s *server) soloLoop() {
	runtime.LockOSThread()
	workers := map[string]*worker{}
	for r := range s.solo {
		w := workers[r.name]
		if w == nil {
			w = newWorker(0)
			workers[r.name] = w
		}
		bad0 := w.bad
		var a Answer
		_, err := mintFor(r.next, w, time.Now(), r.warmup)
		if err == nil {
			c0, t0 := threadCPU(), time.Now()
			batches := stepSpans(1)[0]
			for err == nil && len(batches) < maxGens {
				b0 := time.Since(t0)
				err = mint(r.next, stepBatch, w)
				b1 := time.Since(t0)
				batches = append(batches, [2]int64{int64(b0), int64(b1)})
				if b1 >= r.d {
					break
				}
			}
			a.WallNS, a.CPUNS = time.Since(t0).Nanoseconds(), since(c0, threadCPU())
			a.IDs = int64(len(batches) * stepBatch)
			a.BatchNS = medianBatch(batches) * int64(len(batches))
		}
		if err != nil {
			a.Err = err.Error()
		}
		if r.increasing {
			a.Violations = w.bad - bad0
		}
		r.answer <- a
	}
}

func since(c0, c1 int64) int64 {
	if c0 < 0 || c1 < 0 {
		return -1
	}
	return c1 - c0
}

// stepBatch is the calls of a lockstep batch: about 15 microseconds of
// atomicgen, long beside the barrier's hand-over (a cache line moving,
// some 100 ns), short beside the scheduler's slices (milliseconds), so
// that a batch two threads start together they mostly end together.
const stepBatch = 512

// The lockstep slice's limits: it ends after d once minCoRun batches ran
// side by side, or after maxStretch times d whatever ran; maxGens bounds
// the batches it keeps (a record each per goroutine).
const (
	minCoRun   = 16
	maxStretch = 2
	maxGens    = 1 << 15
)

// coRun is the share of a batch's span that every goroutine must have
// spent in it for the batch to count as run side by side.
const coRun = 0.8

// lockstep is a slice on g goroutines, g at most GOMAXPROCS, that times
// only what they did side by side. A host busy with other work runs a
// process's threads one at a time most of the time: on this repository's
// 2-core VM at load averages of 12 to 39, atomicgen cost 1.02x at G=2 what
// it cost at G=1, free-running, and two threads hammering one word
// interleaved in under 0.1% of their adds. Their goroutines then contend
// for nothing, and neither would a regression that makes them contend.
// Here each goroutine, locked to its OS thread and the thread bound to a
// CPU of its own (left alone, the kernel put both spinning threads on the
// CPU another process did not hold: at a load average of 5, with one
// other process busy, no batch in five slices ran side by side), waits at
// a spin barrier for the others, then makes a batch of calls between two reads of the
// monotonic clock; a batch counts where every goroutine's interval covers
// coRun of the batch's whole span (so none was descheduled in it, or
// started late), and the answer's CPU time is the sum of those intervals
// (a thread running throughout spends its wall time on the CPU), its IDs
// theirs: the cost per ID of goroutines contending as on an idle host,
// whatever else runs. Batches that did not run side by side, and the time
// at the barrier, are in no figure; wall_ns is the slice's.
func lockstep(next func() (uint64, error), g int, d time.Duration, increasing bool) Answer {
	x := &stepRun{g: g, spans: stepSpans(g)}
	var (
		stop = new(atomic.Bool)
		wg   sync.WaitGroup
		bad  = make([]int64, g)
		errs = make([]error, g)
	)
	x.b.n, x.b.full = int64(g), x.count
	start := time.Now()
	for k := range g {
		wg.Go(func() {
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			defer pin(k)()
			w, sense := newWorker(k), false
			for !x.b.wait(&sense, stop) {
				t0 := time.Since(start)
				err := mint(next, stepBatch, w)
				t1 := time.Since(start)
				x.spans[k] = append(x.spans[k], [2]int64{int64(t0), int64(t1)})
				if err != nil {
					errs[k] = err
					stop.Store(true)
				}
				if k == 0 && (t1 >= d && x.gens >= minCoRun || t1 >= maxStretch*d || len(x.spans[k]) == maxGens) {
					stop.Store(true)
				}
			}
			bad[k] = w.bad
		})
	}
	wg.Wait()
	ids, ns, med := x.total()
	a := Answer{WallNS: time.Since(start).Nanoseconds(), IDs: ids, CPUNS: ns, BatchNS: med * ids / int64(g*stepBatch)}
	for k := range g {
		if increasing {
			a.Violations += bad[k]
		}
		if errs[k] != nil && a.Err == "" {
			a.Err = errs[k].Error()
		}
	}
	return a
}

// spans holds the lockstep intervals, reused from slice to slice (a
// runner measures one slice at a time).
var spans [][][2]int64

// stepSpans returns g empty interval records of capacity maxGens.
func stepSpans(g int) [][][2]int64 {
	for len(spans) < g {
		spans = append(spans, make([][2]int64, 0, maxGens))
	}
	for k := range g {
		spans[k] = spans[k][:0]
	}
	return spans[:g]
}

// stepRun is a lockstep slice's record: every goroutine's batch intervals
// and which batches ran side by side.
type stepRun struct {
	b     barrier
	g     int
	spans [][][2]int64 // [goroutine][batch]{start, end}, ns since the slice began
	done  int          // batches judged
	gens  int          // of them, run side by side
	side  []bool       // by batch: run side by side
}

// count judges the batches every goroutine has finished: it runs in the
// barrier's last arrival, when no goroutine is writing its intervals.
func (x *stepRun) count() {
	for ; x.done < len(x.spans[0]); x.done++ {
		j := x.done
		lo, hi := x.spans[0][j][0], x.spans[0][j][1]
		for k := range x.g {
			lo, hi = max(lo, x.spans[k][j][0]), min(hi, x.spans[k][j][1])
		}
		side := float64(hi-lo) >= coRun*float64(x.span(j))
		x.side = append(x.side, side)
		if side {
			x.gens++
		}
	}
}

// total is what the batches run side by side add up to: their IDs, the
// sum of their intervals, and the median of those sums (one batch's
// time). A batch whose span is more than twice the median of theirs is
// left out: every goroutine of it was held up together (the hypervisor
// took both CPUs, say), which the intervals alone cannot tell from
// running side by side.
func (x *stepRun) total() (ids, ns, median int64) {
	var spans []int64
	for j, side := range x.side {
		if side {
			spans = append(spans, x.span(j))
		}
	}
	if len(spans) == 0 {
		return 0, 0, 0
	}
	limit := 2 * middle(spans)
	var sums []int64
	for j, side := range x.side {
		if !side || x.span(j) > limit {
			continue
		}
		ids += int64(x.g * stepBatch)
		var sum int64
		for k := range x.g {
			sum += x.spans[k][j][1] - x.spans[k][j][0]
		}
		ns += sum
		sums = append(sums, sum)
	}
	return ids, ns, middle(sums)
}

// medianBatch is the median of the batches' intervals.
func medianBatch(spans [][2]int64) int64 {
	if len(spans) == 0 {
		return 0
	}
	d := make([]int64, len(spans))
	for i, s := range spans {
		d[i] = s[1] - s[0]
	}
	return middle(d)
}

// middle is v's middle value (the upper of the middle two), v sorted in
// place.
func middle(v []int64) int64 {
	slices.Sort(v)
	return v[len(v)/2]
}

// span is batch j's span: from the first start to the last end.
func (x *stepRun) span(j int) int64 {
	first, last := x.spans[0][j][0], x.spans[0][j][1]
	for k := range x.g {
		first, last = min(first, x.spans[k][j][0]), max(last, x.spans[k][j][1])
	}
	return last - first
}

// barrier is a sense-reversing spin barrier for n goroutines; full, when
// set, runs in the last arrival before the others are let go.
type barrier struct {
	n     int64
	full  func()
	count atomic.Int64
	_     [56]byte
	sense atomic.Bool
	stop  bool // the generation's decision, written by its last arrival
}

// wait returns when all n goroutines have called it, and whether they
// stop: whether stop was set when the last of them arrived (so that all
// decide alike, however late one of them reads it); sense is the
// caller's own, false at first. A goroutine waiting for a peer the
// scheduler took away spins on, so that its thread is on a CPU when the
// peer's comes back: yielding (runtime.Gosched) parked the locked thread,
// and waking it took longer than a batch.
func (b *barrier) wait(sense *bool, stop *atomic.Bool) bool {
	*sense = !*sense
	if b.count.Add(1) == b.n {
		if b.full != nil {
			b.full()
		}
		b.count.Store(0)
		b.stop = stop.Load()
		b.sense.Store(*sense)
		return b.stop
	}
	for b.sense.Load() != *sense {
	}
	return b.stop
}

// timedMany is a slice on g goroutines, more than GOMAXPROCS: a warm-up,
// then the measured part, the process's CPU time read around it (the
// goroutines share the Ps, so no thread's time is one goroutine's).
func timedMany(next func() (uint64, error), g int, warmup, d time.Duration, increasing bool) Answer {
	if _, _, _, err := many(next, g, warmup); err != nil {
		return Answer{Err: err.Error()}
	}
	c0 := processCPU()
	ids, bad, wall, err := many(next, g, d)
	a := Answer{IDs: ids, WallNS: wall.Nanoseconds(), CPUNS: since(c0, processCPU())}
	if err != nil {
		a.Err = err.Error()
	}
	if increasing {
		a.Violations = bad
	}
	return a
}

// many runs g goroutines minting for d, started together.
func many(next func() (uint64, error), g int, d time.Duration) (ids, bad int64, wall time.Duration, err error) {
	var wg sync.WaitGroup
	start := make(chan struct{})
	n, b, errs := make([]int64, g), make([]int64, g), make([]error, g)
	var t0 time.Time
	for k := range g {
		wg.Go(func() {
			w := newWorker(k)
			<-start
			n[k], errs[k] = mintFor(next, w, t0, d)
			b[k] = w.bad
		})
	}
	t0 = time.Now()
	close(start)
	wg.Wait()
	wall = time.Since(t0)
	for k := range g {
		ids, bad = ids+n[k], bad+b[k]
		if err == nil {
			err = errs[k]
		}
	}
	return ids, bad, wall, err
}

// checkIDs mints n IDs on g goroutines, keeps them, and counts the
// duplicates among them and each goroutine's order violations.
func checkIDs(next func() (uint64, error), g, n int, increasing bool) Answer {
	per := max(1, n/g)
	got := make([][]uint64, g)
	errs := make([]error, g)
	var wg sync.WaitGroup
	for k := range g {
		wg.Go(func() {
			ids := make([]uint64, per)
			for i := range ids {
				id, err := next()
				if err != nil {
					errs[k] = err
					return
				}
				ids[i] = id
			}
			got[k] = ids
		})
	}
	wg.Wait()
	var a Answer
	all := make([]uint64, 0, g*per)
	for k := range g {
		if errs[k] != nil && a.Err == "" {
			a.Err = errs[k].Error()
		}
		for i, id := range got[k] {
			if increasing && i > 0 && id <= got[k][i-1] {
				a.Violations++
			}
		}
		all = append(all, got[k]...)
	}
	slices.Sort(all)
	a.IDs = int64(len(all))
	a.Duplicates = a.IDs - int64(len(slices.Compact(all)))
	return a
}
