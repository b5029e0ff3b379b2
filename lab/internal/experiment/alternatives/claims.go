package alternatives

import (
	"math"
	"time"

	"github.com/snowlab/snowlab"
)

// The claims the schemes are chosen or rejected by (the ticket server and
// multi-master auto-increment rejected, the skew between nodes, a library
// or a service): a commit's flush costs about 240 µs, so one row
// does about 4,000 IDs/s; a 100,000/s peak then forces blocks of about 24;
// blocks and strides reorder time, Snowflake only by the clock skew.
// "Library or service": at 0.5 ms per round trip one caller making one
// call at a time cannot exceed 2,000 IDs/s, so a service's callers must
// batch, and a batch issues IDs out of time order.
const (
	docCommitLatency = 240 * time.Microsecond
	docRowRate       = 4_000
	docPeak          = 100_000
	docBlock         = 24
	docRoundTrip     = 500 * time.Microsecond
)

// Tolerances of the verdicts: a measured figure "holds" a claim of
// "about X" when it is within this factor of X either way.
const (
	ceilingTolerance = 1.5 // the row's rate against 1 / commit latency
	figureTolerance  = 2.0 // a figure against the documents' figure
)

// best is the point of a scheme with the most IDs/s.
func (s schemeResult) best() (sweepPoint, bool) {
	var best sweepPoint
	found := false
	for _, p := range s.Points {
		if p.Error == "" && p.IDs > 0 && (!found || p.IDsPerSec > best.IDsPerSec) {
			best, found = p, true
		}
	}
	return best, found
}

// point is the scheme's run with n clients, if it ran without error.
func (s schemeResult) point(n int) (sweepPoint, bool) {
	for _, p := range s.Points {
		if p.Clients == n && p.Error == "" && p.IDs > 0 {
			return p, true
		}
	}
	return sweepPoint{}, false
}

// widestWindow is the point of a scheme with the largest inversion
// window.
func (s schemeResult) widestWindow() (sweepPoint, bool) {
	var w sweepPoint
	found := false
	for _, p := range s.Points {
		if p.Error == "" && p.IDs > 0 && (!found || p.Disorder.Window > w.Disorder.Window) {
			w, found = p, true
		}
	}
	return w, found
}

// skewBound is the widest inversion snowlab's IDs can show between
// clients whose clocks differ by at most 2 × skew: the clocks' spread plus
// one tick of the time field, within which IDs sort by node id, not by
// time.
func skewBound(skew time.Duration) time.Duration {
	return 2*skew + snowlab.DefaultLayout.Unit
}

// findings are the measured figures each claim is held against. A figure
// that was not measured is zero (its Has... flag false).
type findings struct {
	// Row is the ticket scheme's best point.
	Row    sweepPoint
	HasRow bool
	// Ceiling is 1 / commit latency, the row's rate if each ID waits for
	// one flush; RowOverCeiling the row's best rate over it.
	Commit         commitTiming
	Ceiling        float64
	RowOverCeiling float64
	RowOverDoc     float64
	// ForcedBlock is the block size the documents' peak needs at the
	// row's measured rate: docPeak / rate, rounded up.
	ForcedBlock int
	// Blocks are the block schemes' widest windows, smallest step first;
	// Block24 the best point of the documents' 24-ID block (either
	// buffer), if it ran.
	Blocks     []windowFinding
	Block24    sweepPoint
	HasBlock24 bool
	Stride     windowFinding
	HasStride  bool
	Snowlab    windowFinding
	HasSnowlab bool
	// Service are the snowidd schemes that ran, in the run's order;
	// ServiceSkipped why they did not, when they were skipped.
	Service        []serviceFinding
	ServiceSkipped string
	// Nextval is sequence/cache-1 with one client: one database round
	// trip per ID, beside which the service's round trip is read.
	Nextval    sweepPoint
	HasNextval bool
	// Skew is the snowlab clients' largest clock offset, Bound snowlab's
	// skew bound for it.
	Skew, Bound time.Duration
	// Duration is each run's length, which caps a measured window.
	Duration time.Duration
	Demand   float64
}

// windowFinding is a scheme's widest inversion window.
type windowFinding struct {
	Name  string
	Point sweepPoint
	// Capped is set when the window is as long as the run (90% or more):
	// the scheme would reorder by more in a longer one.
	Capped bool
	// OverBound is the window over snowlab's skew bound.
	OverBound float64
	// KeptUp is whether any of the scheme's runs kept up with the demand.
	KeptUp bool
}

// capped reports whether a window is as long as the run that measured it
// (90% or more), and so only a lower bound: the scheme would reorder by
// more in a longer run.
func capped(window, run time.Duration) bool { return window >= run*9/10 }

// serviceFinding is one snowidd scheme (its Size the NextIDs count, 0
// for NextID per ID, and MaxAge the batch's age bound, 0 for none): Best
// its best point, OneCaller its point with one client, Window its widest
// inversion window.
type serviceFinding struct {
	Name         string
	Scheme       schemeSpec
	Best         sweepPoint
	OneCaller    sweepPoint
	HasOneCaller bool
	Window       windowFinding
}

// find computes the findings of a run.
func find(run *runResult) findings {
	f := findings{Commit: run.CommitLatency, Skew: run.Config.Skew, Bound: skewBound(run.Config.Skew), Duration: run.Config.Duration,
		Demand: run.Config.Demand}
	window := func(s schemeResult) (windowFinding, bool) {
		p, ok := s.widestWindow()
		if !ok {
			return windowFinding{}, false
		}
		w := windowFinding{Name: s.Name, Point: p, Capped: capped(p.Disorder.Window, run.Config.Duration),
			OverBound: float64(p.Disorder.Window) / float64(f.Bound)}
		for _, q := range s.Points {
			w.KeptUp = w.KeptUp || q.KeptUp
		}
		return w, true
	}
	for _, s := range run.Schemes {
		switch s.Scheme.Kind {
		case ticket:
			f.Row, f.HasRow = s.best()
		case block:
			if w, ok := window(s); ok {
				f.Blocks = append(f.Blocks, w)
			}
			if s.Scheme.Size == docBlock {
				if p, ok := s.best(); ok && (!f.HasBlock24 || p.IDsPerSec > f.Block24.IDsPerSec) {
					f.Block24, f.HasBlock24 = p, true
				}
			}
		case stride:
			f.Stride, f.HasStride = window(s)
		case snowlabScheme:
			f.Snowlab, f.HasSnowlab = window(s)
		case sequence:
			if s.Scheme.Size == 1 {
				f.Nextval, f.HasNextval = s.point(1)
			}
		case snowidd:
			if s.Skipped != "" {
				f.ServiceSkipped = s.Skipped
				continue
			}
			best, ok := s.best()
			if !ok {
				continue
			}
			sf := serviceFinding{Name: s.Name, Scheme: s.Scheme, Best: best}
			sf.Window, _ = window(s)
			sf.OneCaller, sf.HasOneCaller = s.point(1)
			f.Service = append(f.Service, sf)
		}
	}
	if f.Commit.measured() {
		f.Ceiling = float64(time.Second) / float64(f.Commit.PerOp)
	}
	if f.HasRow && f.Row.IDsPerSec > 0 {
		if f.Ceiling > 0 {
			f.RowOverCeiling = f.Row.IDsPerSec / f.Ceiling
		}
		f.RowOverDoc = f.Row.IDsPerSec / docRowRate
		f.ForcedBlock = int(math.Ceil(docPeak / f.Row.IDsPerSec))
	}
	return f
}

// within reports whether v is within factor tol of want either way.
func within(v, want, tol float64) bool { return v >= want/tol && v <= want*tol }
