package inject

import (
	"fmt"
	"math"
	"strings"
	"sync/atomic"

	"github.com/snowlab/snowlab/lab/subject"
)

// PlantNote is what a planted subject's note says, so that no result of
// a planted run can pass for a real one.
const PlantNote = "REGRESSION PLANTED (loadgen gates): extra work after every ID"

// FracBits is the fixed point of a planted subject's steps: Plant takes
// steps per call in 1/1024ths.
const FracBits = 10

// Plant returns all with every atomicgen subject doing q/1024 Work steps
// after each ID on average (batching off, as Slow does); the others are
// left as they are. A fraction of a step is planted as one step on that
// fraction of IDs, chosen by the ID's low sequence bits: a strict
// generator's sequence and a monotonic one's cycle through them thousands
// of times a second, and the choice needs no state that two goroutines
// would share (a shared counter would add a contended cache line, a
// regression of its own at G=2).
//
// What q steps cost is not q times a step's cost alone: the CPU runs the
// steps beside the next call's clock read (out of order, up to its
// reorder window), so a few steps cost next to nothing and more cost
// their full price; loadgen gates measures the slowdown each q gives and
// picks q from that.
func Plant(all []subject.Subject, q int) ([]subject.Subject, error) {
	if q < 1 || q > 1<<30 {
		return nil, fmt.Errorf("inject: planting %d/1024 steps a call: want 1 to 2^30", q)
	}
	out := make([]subject.Subject, len(all))
	for i, s := range all {
		if Planted(s.Name) {
			s = planted(s, q)
		}
		out[i] = s
	}
	return out, nil
}

// PlantMinter is m doing q/1024 Work steps after each ID, as Plant's
// subjects do.
func PlantMinter(m subject.Minter, q int) subject.Minter {
	return plantedMinter{m, q >> FracBits, uint64(q & (1<<FracBits - 1))}
}

// Planted is whether Plant (and Slow) slow the subject named name:
// atomicgen's.
func Planted(name string) bool { return strings.HasPrefix(name, "atomicgen/") }

func planted(s subject.Subject, q int) subject.Subject {
	inner := s.New
	s.New = func() (subject.Minter, error) {
		m, err := inner()
		return PlantMinter(m, q), err
	}
	s.Batch = false
	s.Note = PlantNote
	return s
}

// workSink is added to only if Work returns MaxUint64.
var workSink atomic.Uint64

type plantedMinter struct {
	m     subject.Minter
	whole int    // steps every call
	frac  uint64 // of every 1,024 IDs (by their low bits), these take one step more
}

func (p plantedMinter) Next() (subject.ID, error) {
	id, err := p.m.Next()
	n := p.whole
	if id.Lo&(1<<FracBits-1) < p.frac {
		n++
	}
	if Work(n, id.Lo) == math.MaxUint64 {
		workSink.Add(1) // never in practice; keeps Work from being elided
	}
	return id, err
}

// Work is the wall-time planting's extra work: steps rounds of a
// multiply and an add on a value in a register, a dependency chain the
// CPU cannot overlap (about 4 cycles a step). Unlike Spin it touches no
// shared memory, so two goroutines planting at once do not contend.
func Work(steps int, x uint64) uint64 {
	for i := 0; i < steps; i++ {
		x = x*0x9e3779b97f4a7c15 + uint64(i)
	}
	return x
}
