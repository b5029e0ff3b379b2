package gates

import (
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/snowlab/snowlab/lab/internal/inject"
	"github.com/snowlab/snowlab/lab/subject"
)

// CalPoint is one point of the planting's calibration: q/1024 Work steps
// a call made measured atomicgen/monotonic this much slower.
type CalPoint struct {
	Q        int     `json:"q"`
	Slowdown float64 `json:"slowdown_pct"`
}

// PlantedLevel is the q each asked-for slowdown was planted with, and
// whether the calibration reached it (false: the largest q measured).
type PlantedLevel struct {
	Pct     float64 `json:"pct"`
	Q       int     `json:"q"`
	Reached bool    `json:"reached"`
}

// calGrid is the calibration's q: 1/16 of a step a call to 128 steps,
// doubling. A step is about 1.1 ns on this repository's VM and a call of
// atomicgen/monotonic about 40 ns, so 128 steps is several times the
// largest slowdown asked for, out-of-order overlap included.
func calGrid() []int {
	var g []int
	for q := 64; q <= 128<<inject.FracBits; q *= 2 {
		g = append(g, q)
	}
	return g
}

// calibrate measures the slowdown each q of calGrid gives (the least of
// calReps tight loops of the measured subject, over the least of the
// clean loops interleaved with them) and sizes each level's q from it.
func calibrate(levels []float64, cost func(q int) float64) ([]CalPoint, []PlantedLevel) {
	const calReps = 5
	clean := math.Inf(1)
	var pts []CalPoint
	best := 0.0
	for _, q := range calGrid() {
		c, p := math.Inf(1), math.Inf(1)
		for range calReps {
			c = min(c, cost(0))
			p = min(p, cost(q))
		}
		clean = min(clean, c)
		// A cost is never below a smaller q's: the running maximum
		// irons out the noise of one loop.
		best = max(best, 100*(p/clean-1))
		pts = append(pts, CalPoint{Q: q, Slowdown: best})
	}
	var out []PlantedLevel
	for _, pct := range levels {
		out = append(out, sizeQ(pct, pts))
	}
	return pts, out
}

// plantedQ is the q level pct was planted with (calibrate), 0 for a
// level not sized, which inject.Plant refuses.
func (r *Result) plantedQ(pct float64) int {
	for _, p := range r.Planted {
		if p.Pct == pct {
			return p.Q
		}
	}
	return 0
}

// sizeQ interpolates the q that gives pct between the calibration's
// points (from 0 below the first).
func sizeQ(pct float64, pts []CalPoint) PlantedLevel {
	prevQ, prevS := 0, 0.0
	for _, p := range pts {
		if p.Slowdown >= pct {
			q := float64(prevQ) + (pct-prevS)/(p.Slowdown-prevS)*float64(p.Q-prevQ)
			return PlantedLevel{Pct: pct, Q: max(1, int(math.Round(q))), Reached: true}
		}
		prevQ, prevS = p.Q, p.Slowdown
	}
	return PlantedLevel{Pct: pct, Q: pts[len(pts)-1].Q}
}

// loopCost is the measured subject's cost per ID in a tight loop on one
// goroutine, q/1024 planted steps after each ID (none when q is 0).
func loopCost(q int) (float64, error) {
	own := subject.Own(1)
	i := slices.IndexFunc(own, func(s subject.Subject) bool { return s.Name == measured })
	if i < 0 {
		return 0, fmt.Errorf("no subject %s to calibrate the planting on", measured)
	}
	m, err := own[i].New()
	if err != nil {
		return 0, err
	}
	if q > 0 {
		m = inject.PlantMinter(m, q)
	}
	const n = 1 << 18 // about 10 ms clean
	for range 1024 {
		if _, err := m.Next(); err != nil {
			return 0, err
		}
	}
	start := time.Now()
	for range n {
		if _, err := m.Next(); err != nil {
			return 0, err
		}
	}
	return float64(time.Since(start).Nanoseconds()) / n, nil
}
