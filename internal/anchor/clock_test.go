package anchor

import (
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// testResync is clocksrc.DefaultResync: the tests run the clock as Default
// makes it.
const testResync = 100 * time.Millisecond

// realWall is the wall clock, for a Clock on the real monotonic source.
func realWall() int64 { return time.Now().UnixNano() }

const (
	msNs    = int64(time.Millisecond)
	usNs    = int64(time.Microsecond)
	sNs     = int64(time.Second)
	resync  = int64(testResync)
	readGap = 37 * usNs // simulated time between reads in the long runs
	// startWall is the simulated Unix time at monotonic startMono.
	startMono = 7 * sNs
	startWall = 1_700_000_000 * sNs
)

// fakeTime is a monotonic and a wall clock under the test's control. Every
// monotonic read advances monotonic time by tick, so a sample bracketing a
// wall read has a spread of tick/2 (tick even); the wall clock runs with the
// monotonic one, wallOff ahead of it, until the test steps wallOff.
type fakeTime struct {
	mono    atomic.Int64
	wallOff atomic.Int64
	tick    int64
}

func newFakeTime(tick int64) *fakeTime {
	f := &fakeTime{tick: tick}
	f.mono.Store(startMono)
	f.wallOff.Store(startWall - startMono)
	return f
}

func (f *fakeTime) monoNow() int64 { return f.mono.Add(f.tick) }
func (f *fakeTime) wallNow() int64 { return f.mono.Load() + f.wallOff.Load() }
func (f *fakeTime) spread() int64  { return f.tick / 2 }

func abs(v int64) int64 {
	if v < 0 {
		return -v
	}
	return v
}

// sim drives one anchored clock from one goroutine and checks every read
// against the one before: the clock never decreases, and its offset from
// monotonic time shrinks by at most MaxSlewPPM of the monotonic time
// between the reads, plus 1 ns of rounding.
type sim struct {
	t *testing.T
	f *fakeTime
	c *Clock

	reads   int
	last    int64 // last clock reading
	lastM   int64 // monotonic reading it was mapped from
	lastOff int64 // last - lastM
	lastSeg *Segment
	resyncs int // segments installed since the sim began
}

func newSim(t *testing.T, tick int64) *sim {
	t.Helper()
	f := newFakeTime(tick)
	s := &sim{t: t, f: f, c: New(f.monoNow, f.wallNow, testResync)}
	s.lastSeg = s.c.seg.Load()
	return s
}

// read advances monotonic time by d and reads the clock once.
func (s *sim) read(d int64) int64 {
	s.f.mono.Add(d)
	v := s.c.UnixNano()
	// Single goroutine: the last monotonic read, whichever path UnixNano
	// took, is the one it mapped.
	m := s.f.mono.Load()
	off := v - m
	if s.reads > 0 {
		if v < s.last {
			s.t.Helper()
			s.t.Fatalf("read %d at mono %d: clock went back %d ns (%d -> %d)", s.reads, m, s.last-v, s.last, v)
		}
		elapsed := m - s.lastM
		if shrink := s.lastOff - off; shrink*1_000_000 > elapsed*MaxSlewPPM+1_000_000 {
			s.t.Helper()
			s.t.Fatalf("read %d at mono %d: offset shrank %d ns in %d ns, faster than %d ppm",
				s.reads, m, shrink, elapsed, MaxSlewPPM)
		}
	}
	if seg := s.c.seg.Load(); seg != s.lastSeg {
		s.resyncs++
		s.lastSeg = seg
	}
	s.reads++
	s.last, s.lastM, s.lastOff = v, m, off
	return v
}

// run reads every gap ns of monotonic time for span ns, calling each (if
// not nil) after every read.
func (s *sim) run(span, gap int64, each func()) {
	for end := s.f.mono.Load() + span; s.f.mono.Load() < end; {
		s.read(gap)
		if each != nil {
			each()
		}
	}
}

// ahead is how far the last reading was ahead of the wall clock at the
// monotonic time it was mapped from.
func (s *sim) ahead() int64 { return s.last - (s.lastM + s.f.wallOff.Load()) }

var ticks = []int64{0, 2, 1000}

func TestClockStartsAtWall(t *testing.T) {
	for _, tick := range []int64{0, 2, 1000, 100_000} {
		t.Run(fmt.Sprintf("tick=%d", tick), func(t *testing.T) {
			f := newFakeTime(tick)
			c := New(f.monoNow, f.wallNow, testResync)
			seg := c.seg.Load()
			assert.Zero(t, seg.debt)
			assert.Equal(t, seg.m0+resync, seg.next)

			v := c.UnixNano()
			wall := f.wallNow()
			assert.LessOrEqual(t, abs(v-wall), f.spread(), "clock %d, wall %d", v, wall)
			assert.InDelta(t, startWall, v, float64(4*tick+f.spread()))
		})
	}
}

func TestClockSteadyState(t *testing.T) {
	for _, tick := range ticks {
		t.Run(fmt.Sprintf("tick=%d", tick), func(t *testing.T) {
			s := newSim(t, tick)
			s.run(3*sNs, readGap, func() {
				if a := s.ahead(); abs(a) > s.f.spread() {
					t.Fatalf("read %d: clock %d ns off the wall clock", s.reads, a)
				}
			})
			// 3 s at one resync per 100 ms, give or take the one in flight.
			assert.GreaterOrEqual(t, s.resyncs, 29)
			assert.LessOrEqual(t, s.resyncs, 31)
			assert.Zero(t, s.c.seg.Load().debt)
		})
	}
}

func TestClockForwardStep(t *testing.T) {
	const step = 500 * msNs
	for _, tick := range ticks {
		t.Run(fmt.Sprintf("tick=%d", tick), func(t *testing.T) {
			s := newSim(t, tick)
			s.run(250*msNs, readGap, nil)
			seg := s.c.seg.Load()
			require.Greater(t, seg.next-s.f.mono.Load(), 10*readGap, "test needs to step mid-segment")

			s.f.wallOff.Add(step)
			// Until the resync is due the clock follows monotonic time
			// through the old offset, now 500 ms behind the wall.
			for s.f.mono.Load()+readGap+4*tick < seg.next {
				s.read(readGap)
				require.Same(t, seg, s.c.seg.Load())
				require.Equal(t, seg.off0, s.lastOff)
				require.InDelta(t, -step, s.ahead(), float64(s.f.spread()))
			}
			before := s.last
			// The first read past the resync point takes the new wall clock
			// at once.
			s.f.mono.Store(seg.next)
			v := s.read(0)
			assert.NotSame(t, seg, s.c.seg.Load())
			assert.LessOrEqual(t, abs(s.ahead()), s.f.spread(), "clock should be on the wall after the resync")
			assert.GreaterOrEqual(t, v-before, step)
			assert.Zero(t, s.c.seg.Load().debt)

			s.run(2*sNs, readGap, func() {
				if a := s.ahead(); abs(a) > s.f.spread() {
					t.Fatalf("read %d: clock %d ns off the wall clock after the forward step", s.reads, a)
				}
			})
		})
	}
}

func TestClockBackwardStep(t *testing.T) {
	const step = 10 * msNs
	// 10 ms at 500 ppm is 20 s of slewing.
	const slewTime = step * 1_000_000 / MaxSlewPPM
	for _, tick := range ticks {
		t.Run(fmt.Sprintf("tick=%d", tick), func(t *testing.T) {
			s := newSim(t, tick)
			s.run(1*sNs+13*msNs, readGap, nil)
			s.f.wallOff.Add(-step)
			stepAt := s.f.mono.Load()

			notBehind := func() {
				if a := s.ahead(); a < -s.f.spread() {
					t.Fatalf("read %d: clock %d ns behind the wall clock while slewing", s.reads, -a)
				}
			}
			// Halfway: the resync that noticed the step came at most one
			// interval late, and the slew runs at 500 ppm, no faster (the sim
			// checks that at every read) and not much slower.
			s.run(slewTime/2, readGap, notBehind)
			elapsed := s.lastM - stepAt
			maxSlewed := elapsed * MaxSlewPPM / 1_000_000
			minSlewed := (elapsed-resync)*MaxSlewPPM/1_000_000 - int64(s.resyncs) - s.f.spread()
			slewed := step - s.ahead()
			assert.GreaterOrEqual(t, slewed, minSlewed)
			assert.LessOrEqual(t, slewed, maxSlewed+s.f.spread()+1)
			assert.Positive(t, s.c.seg.Load().debt)

			// Just short of the full slew time the clock is still ahead.
			s.run(slewTime/2-10*msNs-(s.lastM-stepAt-slewTime/2), readGap, notBehind)
			assert.Greater(t, s.ahead(), s.f.spread())

			// After the slew time plus the resync delays it is back on the
			// wall clock, and stays there.
			s.run(10*msNs+2*resync, readGap, notBehind)
			assert.LessOrEqual(t, abs(s.ahead()), s.f.spread(), "clock should have slewed onto the wall")
			s.run(2*sNs, readGap, func() {
				if a := s.ahead(); abs(a) > s.f.spread() {
					t.Fatalf("read %d: clock %d ns off the wall clock after the slew", s.reads, a)
				}
			})
			assert.Greater(t, s.reads, 500_000, "reads every 37 µs over more than 20 s")
		})
	}
}

func TestClockStepDuringSlew(t *testing.T) {
	tests := []struct {
		name string
		// the wall step made while about 8 ms of a 10 ms slew remain, given
		// how far the clock is then ahead of the wall clock
		second func(ahead int64) int64
		// how far the clock is ahead of the wall clock once resyncs have
		// seen the second step, up to the slew over those resyncs
		want func(ahead int64) int64
	}{
		{"second backward step accumulates",
			func(int64) int64 { return -5 * msNs }, func(a int64) int64 { return a + 5*msNs }},
		{"small forward step shrinks the debt",
			func(int64) int64 { return 3 * msNs }, func(a int64) int64 { return a - 3*msNs }},
		{"forward step past the debt cancels it",
			func(int64) int64 { return 20 * msNs }, func(int64) int64 { return 0 }},
		{"forward step equal to the debt cancels it",
			func(a int64) int64 { return a }, func(int64) int64 { return 0 }},
	}
	for _, tt := range tests {
		for _, tick := range ticks {
			t.Run(fmt.Sprintf("%s/tick=%d", tt.name, tick), func(t *testing.T) {
				s := newSim(t, tick)
				s.run(300*msNs, readGap, nil)
				s.f.wallOff.Add(-10 * msNs)
				s.run(4*sNs, readGap, nil) // 2 ms slewed
				before := s.ahead()
				require.InDelta(t, 8*msNs, before, float64(resync/2000+100))
				s.f.wallOff.Add(tt.second(before))
				want := tt.want(before)
				prevOff := s.lastOff
				s.run(2*resync, readGap, func() {
					// The offset from monotonic time rises only when the clock
					// jumps onto a wall clock found ahead of it.
					if s.lastOff > prevOff && (want != 0 || abs(s.ahead()) > s.f.spread()) {
						t.Fatalf("read %d: clock jumped forward %d ns to %d ns from the wall clock",
							s.reads, s.lastOff-prevOff, s.ahead())
					}
					prevOff = s.lastOff
				})
				// The run ends up to one read gap past its span.
				slack := (2*resync+readGap)*MaxSlewPPM/1_000_000 + s.f.spread() + 2
				assert.LessOrEqual(t, s.ahead(), want+s.f.spread())
				assert.GreaterOrEqual(t, s.ahead(), want-slack)
				if want == 0 {
					assert.Zero(t, s.c.seg.Load().debt, "remaining debt should be cancelled")
				} else {
					assert.InDelta(t, s.ahead(), s.c.seg.Load().debt, float64(slack))
				}

				// Whatever is left is slewed off in its time, never going
				// behind the wall clock on the way.
				s.run(s.ahead()*1_000_000/MaxSlewPPM+2*resync, msNs-3*usNs, func() {
					if a := s.ahead(); a < -s.f.spread() {
						t.Fatalf("read %d: clock %d ns behind the wall clock", s.reads, -a)
					}
				})
				assert.LessOrEqual(t, abs(s.ahead()), s.f.spread())
			})
		}
	}
}

// A reader that finds the segment expired while another caller is between
// reading the monotonic clock for the next segment and installing it must
// not return a time the new segment then undercuts. The fake monotonic
// clock holds the resyncing caller at exactly that point (as a preemption
// would) while a second goroutine reads.
func TestClockReaderDuringPendingResync(t *testing.T) {
	for _, step := range []int64{-10 * msNs, -sNs, 0, 5 * msNs} {
		for _, gap := range []int64{0, 1, 1999, 2000, 10 * usNs, msNs, 50 * msNs} {
			t.Run(fmt.Sprintf("step=%v/preempted=%v", time.Duration(step), time.Duration(gap)), func(t *testing.T) {
				f := newFakeTime(0)
				var c *Clock
				sinceWall := -1 // monotonic reads since the resyncer's wall read; -1: disarmed
				var stale int64
				monoNow := func() int64 {
					if sinceWall < 0 {
						return f.monoNow()
					}
					sinceWall++
					if sinceWall < 2 {
						return f.monoNow()
					}
					// The resyncer's reading for the new segment's start.
					sinceWall = -1
					now := f.monoNow()
					f.mono.Add(gap)
					done := make(chan struct{})
					go func() { defer close(done); stale = c.UnixNano() }()
					<-done
					return now
				}
				armed := false
				wallNow := func() int64 {
					if armed {
						armed, sinceWall = false, 0
					}
					return f.wallNow()
				}
				c = New(monoNow, wallNow, testResync)
				seg := c.seg.Load()

				f.mono.Store(seg.next - 1)
				prev := c.UnixNano()
				f.wallOff.Add(step)
				f.mono.Store(seg.next)
				armed = true
				v := c.UnixNano() // resyncs, letting the stale reader in
				require.False(t, armed, "the resync did not happen")
				require.NotSame(t, seg, c.seg.Load())

				assert.GreaterOrEqual(t, stale, prev, "stale reader went back")
				assert.GreaterOrEqual(t, v, stale, "clock went back %d ns after the resync", stale-v)
				for _, d := range []int64{1, 1, 1000, 1999, 2000, msNs, resync} {
					f.mono.Add(d)
					w := c.UnixNano()
					assert.GreaterOrEqual(t, w, stale, "clock went back %d ns behind the stale read", stale-w)
					assert.GreaterOrEqual(t, w, v)
					v = w
				}
			})
		}
	}
}

// A reader that loaded a segment, was held up before reading the monotonic
// clock, and then found that segment expired must not map its late reading
// through it: here a resync took a wall clock 500 ms ahead meanwhile, and a
// third caller is in the middle of the next resync, so the reader cannot
// resync itself.
func TestClockReaderHoldingReplacedSegment(t *testing.T) {
	for _, step := range []int64{500 * msNs, -10 * msNs, 0} {
		for _, gap := range []int64{0, 10 * usNs, msNs} {
			t.Run(fmt.Sprintf("step=%v/gap=%v", time.Duration(step), time.Duration(gap)), func(t *testing.T) {
				f := newFakeTime(0)
				var c *Clock
				var holdReader, holdResyncer atomic.Bool
				resyncerWaiting, releaseResyncer, resyncerDone := make(chan struct{}), make(chan struct{}), make(chan struct{})
				var first, third int64
				monoNow := func() int64 {
					if holdReader.CompareAndSwap(true, false) {
						// The reader has loaded the segment. Another caller
						// resyncs past it...
						f.wallOff.Add(step)
						f.mono.Store(c.seg.Load().next)
						done := make(chan struct{})
						go func() { defer close(done); first = c.UnixNano() }()
						<-done
						// ...and a third starts the next resync and stalls
						// in it.
						f.mono.Store(c.seg.Load().next)
						holdResyncer.Store(true)
						go func() { defer close(resyncerDone); third = c.UnixNano() }()
						<-resyncerWaiting
						f.mono.Add(gap)
					}
					return f.monoNow()
				}
				wallNow := func() int64 {
					if holdResyncer.CompareAndSwap(true, false) {
						close(resyncerWaiting)
						<-releaseResyncer
					}
					return f.wallNow()
				}
				c = New(monoNow, wallNow, testResync)
				start := c.seg.Load()

				holdReader.Store(true)
				late := c.UnixNano()
				require.False(t, holdReader.Load(), "the reader was not held up")
				require.NotSame(t, start, c.seg.Load(), "no resync while the reader was held up")
				assert.GreaterOrEqual(t, late, first, "late reader went back %d ns", first-late)

				close(releaseResyncer)
				<-resyncerDone
				assert.GreaterOrEqual(t, third, late, "clock went back %d ns after the late read", late-third)
				prev := third
				for _, d := range []int64{0, 1, 2000, msNs, resync} {
					f.mono.Add(d)
					v := c.UnixNano()
					assert.GreaterOrEqual(t, v, prev)
					prev = v
				}
			})
		}
	}
}

func TestClockConcurrent(t *testing.T) {
	const (
		readers = 8
		perG    = 20_000
		tick    = 1_000 // every monotonic read moves time 1 µs
	)
	var counter, wallOff atomic.Int64
	counter.Store(startMono)
	wallOff.Store(startWall - startMono)
	monoNow := func() int64 { return counter.Add(tick) }
	wallNow := func() int64 { return counter.Load() + wallOff.Load() }
	// Resync every 50 reads or so, so that readers often race a resync.
	c := New(monoNow, wallNow, 50*time.Microsecond)

	first := c.seg.Load()
	stop := make(chan struct{})
	var bg sync.WaitGroup
	bg.Go(func() { // wall clock steps both ways, some larger than any slew
		steps := []int64{-3 * msNs, msNs, -20 * usNs, 7 * msNs, -sNs, 2 * sNs, -500 * msNs, 1}
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			wallOff.Add(steps[i%len(steps)])
			runtime.Gosched()
		}
	})
	var wg sync.WaitGroup
	errs := make(chan string, readers)
	for g := range readers {
		wg.Go(func() {
			prev := c.UnixNano()
			for i := range perG {
				v := c.UnixNano()
				if v < prev {
					errs <- fmt.Sprintf("goroutine %d read %d: clock went back %d ns", g, i, prev-v)
					return
				}
				prev = v
			}
		})
	}
	wg.Wait()
	close(stop)
	bg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
	// Every read moves the fake monotonic clock 1 µs, so 160,000 reads
	// pass the 50 µs resync point thousands of times.
	assert.NotSame(t, first, c.seg.Load(), "no resync happened while reading")
}

func TestNextSegment(t *testing.T) {
	const (
		now    = 50 * sNs
		every  = resync
		off    = 1_000_000
		spread = 300
	)
	steady := &Segment{m0: now - every, off0: off, next: now}
	// Slewing 4000 ns, 1000 ns of it done by now: offsetAt(now) == off-1000.
	slewing := &Segment{m0: now - 1000*slewDiv, off0: off, debt: 4000, next: now}
	// Slewed 500 ns, all of it done long ago: offsetAt(now) == off-500.
	slewed := &Segment{m0: now - 1000*slewDiv, off0: off, debt: 500, next: now}
	// Steady on an offset from a sample taken across a 10 µs preemption.
	loose := &Segment{m0: now - every, off0: off, next: now, unc: 5000}

	tests := []struct {
		name     string
		s        *Segment
		wall     int64 // sampled offset
		wantOff  int64
		wantDebt int64
		wantUnc  int64
		wantStep int64 // the step nextSegment reports
	}{
		{"on the wall", steady, off, off, 0, 0, 0},
		{"ahead within spread", steady, off + spread, off, 0, 0, 0},
		{"behind within spread", steady, off - spread, off, 0, 0, 0},
		// Beyond the spread, the clock follows; a step needs 1 ns more,
		// for the midpoint's rounding.
		{"wall ahead by more than spread", steady, off + spread + 1, off + spread + 1, 0, spread, 0},
		{"wall ahead by more than spread and rounding", steady, off + spread + 2, off + spread + 2, 0, spread, spread + 2},
		{"wall far ahead", steady, off + 500*msNs, off + 500*msNs, 0, spread, 500 * msNs},
		{"wall behind by more than spread", steady, off - spread - 1, off, spread + 1, spread, 0},
		{"wall behind by more than spread and rounding", steady, off - spread - 2, off, spread + 2, spread, -spread - 2},
		{"wall far behind", steady, off - 10*msNs, off, 10 * msNs, spread, -10 * msNs},
		{"slewing: wall where the slew is heading", slewing, off - 4000, off - 1000, 3000, spread, 0},
		{"slewing: wall within spread of the slew's end", slewing, off - 4000 - spread, off - 1000, 3000 + spread, spread, 0},
		{"slewing: wall stepped back again", slewing, off - 4000 - 5000, off - 1000, 8000, spread, -5000},
		{"slewing: wall within spread of the clock drops the rest", slewing, off - 1000 - spread, off - 1000, 0, 2 * spread, 0},
		{"slewing: wall ahead of the clock cancels the debt", slewing, off, off, 0, spread, 1000},
		{"slewing: wall ahead of the slew's end but behind the clock", slewing, off - 2000, off - 1000, 1000, spread, 0},
		{"slewed: on the wall", slewed, off - 500, off - 500, 0, 0, 0},
		{"slewed: wall behind again", slewed, off - 500 - 7000, off - 500, 7000, spread, -7000},
		{"slewed: wall ahead", slewed, off + 7000, off + 7000, 0, spread, 7500},
		// A tight sample after a loose one: the clock moves onto it, but
		// only a disagreement past both bounds is a step.
		{"loose: wall 5 µs behind is noise", loose, off - 5000, off, 5000, spread, 0},
		{"loose: wall 6 µs behind is a step", loose, off - 6000, off, 6000, spread, -6000},
		{"loose: wall 5 µs ahead is noise", loose, off + 5000, off + 5000, 0, spread, 0},
		{"loose: a tight sample that agrees tightens the bound", loose, off + 100, off, 0, 2 * spread, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := *tt.s
			a := Sample{Mono: now - 2*spread, Offset: tt.wall, Spread: spread}
			got, step := nextSegment(tt.s, a, now, every)
			assert.Equal(t, before, *tt.s, "the old segment must not change")
			assert.Equal(t, &Segment{m0: now, off0: tt.wantOff, debt: tt.wantDebt, next: now + every, unc: tt.wantUnc}, got)
			assert.Equal(t, tt.wantStep, step, "step")
			// The new segment continues the old one without a step back.
			assert.GreaterOrEqual(t, got.offsetAt(now), tt.s.offsetAt(now))
		})
	}
}

func TestSegmentOffsetAt(t *testing.T) {
	s := &Segment{m0: 1000, off0: 5000, debt: 3}
	tests := []struct{ m, want int64 }{
		{1000, 5000},
		{1000 + slewDiv - 1, 5000},
		{1000 + slewDiv, 4999},
		{1000 + 2*slewDiv + 7, 4998},
		{1000 + 3*slewDiv, 4997},
		{1000 + 1000*slewDiv, 4997}, // debt paid: no further
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, s.offsetAt(tt.m), "offsetAt(%d)", tt.m)
	}
	assert.Equal(t, int64(5000), (&Segment{m0: 0, off0: 5000}).offsetAt(1<<40))
	assert.EqualValues(t, 2000, slewDiv, "500 ppm is 1 ns per 2 µs")

	// m + offsetAt(m) never decreases, ns by ns, across the slew and its end.
	prev := int64(-1 << 62)
	for m := s.m0; m < s.m0+5*slewDiv; m++ {
		v := m + s.offsetAt(m)
		require.GreaterOrEqual(t, v, prev, "at m=%d", m)
		prev = v
	}
}

// Current and Map are UnixNano's fast case, split for the engine's hot
// path: they map a reading through the current segment and hand every
// other case (a scripted source, a resync due, a replaced segment) back.
func TestClockCurrentMap(t *testing.T) {
	f := newFakeTime(0)
	scripted := New(f.monoNow, f.wallNow, testResync)
	assert.Nil(t, scripted.Current(), "a scripted monotonic source has no fast read")
	_, ok := scripted.Map(nil, 0)
	assert.False(t, ok)

	c := New(nil, realWall, testResync)
	seg := c.Current()
	require.NotNil(t, seg)
	m := seg.m0 + 1000
	ns, ok := c.Map(seg, m)
	require.True(t, ok)
	assert.Equal(t, m+seg.offsetAt(m), ns)

	_, ok = c.Map(seg, seg.next)
	assert.False(t, ok, "a resync is due: UnixNano's work")

	c.seg.Store(&Segment{m0: seg.m0, off0: seg.off0 + 1, next: seg.next})
	_, ok = c.Map(seg, m)
	assert.False(t, ok, "the segment was replaced after it was loaded")
	ns, ok = c.Map(c.Current(), m)
	require.True(t, ok)
	assert.Equal(t, m+seg.off0+1, ns)
}
