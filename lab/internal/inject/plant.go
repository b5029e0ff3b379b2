package inject

import (
	"fmt"
	"math"
	"strings"
	"sync/atomic"
	"time"

	"github.com/snowlab/snowlab/lab/subject"
)

// Planting is a wall-time regression of a chosen size (loadgen gates'
// detection trials): every atomicgen subject does Work after each ID, as
// many steps as make about Pct percent of its own cost per ID.
type Planting struct {
	// Pct is the slowdown asked for, in percent of a subject's cost per
	// ID (above 0, at most 100).
	Pct float64
	// StepNs is what one Work step costs on this host (StepCost).
	StepNs float64
	// NsPerID is each atomicgen subject's clean cost per ID, measured on
	// this host at one goroutine; a subject missing from it is refused.
	NsPerID map[string]float64
}

// PlantNote is what a planted subject's note says, so that no result of
// a planted run can pass for a real one.
const PlantNote = "REGRESSION PLANTED (loadgen gates): extra work after every ID"

// fracBits is the fixed point of a planted subject's fractional steps:
// steps per call are held in 1/1024ths.
const fracBits = 10

// Plant returns all with every atomicgen subject slowed by p (batching
// off, as Slow does); the others are left as they are. A slowdown below
// one step per ID is planted as one step on that fraction of IDs, chosen
// by the ID's low sequence bits: a strict generator's sequence and a
// monotonic one's cycle through them thousands of times a second, and
// the choice needs no state that two goroutines would share (a shared
// counter would add a contended cache line, a regression of its own at
// G=2).
func Plant(all []subject.Subject, p Planting) ([]subject.Subject, error) {
	if !(p.Pct > 0 && p.Pct <= 100) || !(p.StepNs > 0) {
		return nil, fmt.Errorf("inject: planting %v%% at %v ns a step: want a percentage above 0 up to 100 and a step cost above 0", p.Pct, p.StepNs)
	}
	out := make([]subject.Subject, len(all))
	for i, s := range all {
		if Planted(s.Name) {
			ns := p.NsPerID[s.Name]
			if !(ns > 0) {
				return nil, fmt.Errorf("inject: no clean cost per ID for %s to size its planted steps by", s.Name)
			}
			q := int(math.Round(p.Pct / 100 * ns / p.StepNs * (1 << fracBits)))
			s = planted(s, max(q, 1))
		}
		out[i] = s
	}
	return out, nil
}

// Planted is whether Plant (and Slow) slow the subject named name:
// atomicgen's.
func Planted(name string) bool { return strings.HasPrefix(name, "atomicgen/") }

func planted(s subject.Subject, q int) subject.Subject {
	inner := s.New
	s.New = func() (subject.Minter, error) {
		m, err := inner()
		return plantedMinter{m, q >> fracBits, uint64(q & (1<<fracBits - 1))}, err
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
	if id.Lo&(1<<fracBits-1) < p.frac {
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

// StepCost measures one Work step on this host: the least time per step
// over five runs of 2^22 steps.
func StepCost() float64 {
	const steps = 1 << 22
	best := math.Inf(1)
	for range 5 {
		t := time.Now()
		if Work(steps, uint64(t.UnixNano())) == math.MaxUint64 {
			workSink.Add(1)
		}
		best = min(best, float64(time.Since(t).Nanoseconds())/steps)
	}
	return best
}
