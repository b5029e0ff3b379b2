package report

import (
	"cmp"
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"

	"github.com/snowlab/snowlab/lab/internal/resultdir"

	"github.com/snowlab/snowlab/lab/compare"
	"github.com/snowlab/snowlab/lab/internal/host"
	"github.com/snowlab/snowlab/lab/result"
)

// HistoryRun is one run of a history: the run, and the address of its
// page relative to the index ("" when it has none).
type HistoryRun struct {
	Run  *result.Run
	Page string
}

// History is the runs of a results folder in the order they ran, with the
// trends the index draws: each cross-machine ratio (compare.Ratios) and
// each subject's IDs/s, one series per host so that runs from different
// machines are never joined by a line.
type History struct {
	Runs []HistoryRun
	// Ratios are the gated ones first (those the wall-time gate failed on,
	// before loadgen ab replaced it),
	// then those it reports only, each in the order compare.Ratios gives
	// them.
	Ratios []trend
	Rates  []trend // one per subject, in the order of the newest run's subjects
	// Fairness is one per subject, in the order of Rates: the deviation
	// of the goroutines' shares (result.Fairness.DeviationPct) at the
	// largest goroutine count each run judged, a series per host and
	// count ("<host> G=4").
	Fairness []trend
	// LoadChanges are the runs whose host's load differs from that of the
	// run before them on the same host (host.LoadDifference): a step
	// between the two in a trend may be the host's.
	LoadChanges []loadChange
}

// loadChange is a run whose load differs from the previous run's on the
// same host: both index History.Runs.
type loadChange struct {
	Run, Previous int
	Host          string // hostKey of both
	Difference    string // host.LoadDifference of the previous run's and this one's
}

// trend is one figure across runs.
type trend struct {
	Name string
	// Informational is set for a ratio the gate reports but does not
	// check (compare.Ratio.Informational in any run).
	Informational bool
	// Gated is set for a ratio the wall-time gate failed on: not
	// Informational, and gated in the baseline where the history has one
	// (a ratio the baseline lacks is reported, not gated).
	Gated  bool
	Series []trendSeries
	// Changes are the change points of a gated trend's series
	// (findChanges, e-divisive means), in series then run
	// order; none for a trend not gated.
	Changes []change
}

// change is a change point of one series of a trend: Run (indexing
// History.Runs) is the first run at the new level; Before and After are
// the levels' means, P the permutation test's p-value.
type change struct {
	Host          string
	Run           int
	Before, After float64
	P             float64
}

// changes are the change points of t's series.
func changes(t trend) []change {
	var out []change
	for _, s := range t.Series {
		var xs []float64
		var runs []int
		for _, p := range s.Points {
			if !math.IsNaN(p.Value) && !math.IsInf(p.Value, 0) {
				xs, runs = append(xs, p.Value), append(runs, p.Run)
			}
		}
		for _, c := range findChanges(xs, 1) {
			out = append(out, change{Host: s.Host, Run: runs[c.Index], Before: c.Before, After: c.After, P: c.P})
		}
	}
	return out
}

// trendSeries is a trend's points from one host, in run order.
type trendSeries struct {
	Host   string // hostKey of the runs
	Points []point
}

// point is one run's value: Run indexes History.Runs.
type point struct {
	Run   int
	Value float64
}

// hostKey names the machine a run's figures belong to: the host's slug,
// GOMAXPROCS (the same host run with fewer Ps is another machine as far as
// its throughput goes) and the CPU model, short (a host name is reused by
// machines of other kinds: "vm" named an Intel and an AMD guest here).
func hostKey(run *result.Run) string {
	key := fmt.Sprintf("%s ×%d", resultdir.Slug(run.Host), run.Host.GOMAXPROCS)
	if cpu := shortCPU(run.Host.CPU); cpu != "" {
		key += " · " + cpu
	}
	return key
}

// shortCPU is a CPU model without its trademarks, clock and the words
// every model has.
func shortCPU(model string) string {
	if i := strings.Index(model, "@"); i >= 0 {
		model = model[:i]
	}
	var words []string
	for _, w := range strings.Fields(strings.NewReplacer("(R)", "", "(r)", "", "(TM)", "", "(tm)", "").Replace(model)) {
		if w != "Processor" && w != "CPU" {
			words = append(words, w)
		}
	}
	return strings.Join(words, " ")
}

// NewHistory orders runs by start time (then commit) and collects their
// trends. IDs/s is taken from the saturate sweep at one goroutine and at
// the largest count the run measured for the subject, as two series per
// host ("<host> G=1", "<host> G=max (n)"): a sweep that changed its
// largest count starts a new series. baseline, when not nil, is the run
// the history leads with (results/baseline/): only the ratios it gates are Gated.
func NewHistory(runs []HistoryRun, baseline *result.Run) History {
	h := History{Runs: slices.Clone(runs)}
	slices.SortStableFunc(h.Runs, func(a, b HistoryRun) int {
		return cmp.Or(a.Run.Started.Compare(b.Run.Started), cmp.Compare(a.Run.Commit, b.Run.Commit))
	})
	for i, hr := range h.Runs {
		host := hostKey(hr.Run)
		for _, r := range compare.Ratios(hr.Run) {
			t := trendOf(&h.Ratios, r.Name)
			t.Informational = t.Informational || r.Informational
			t.add(host, i, r.Value)
		}
		for name, byG := range saturateByG(hr.Run) {
			gmax := slices.Max(slices.Collect(maps.Keys(byG)))
			t := trendOf(&h.Rates, name)
			if v, ok := byG[1]; ok {
				t.add(host+" G=1", i, v)
			}
			if gmax > 1 {
				t.add(fmt.Sprintf("%s G=max (%d)", host, gmax), i, byG[gmax])
			}
		}
	}
	var inBase map[string]bool
	if baseline != nil {
		inBase = map[string]bool{}
		for _, r := range compare.Ratios(baseline) {
			inBase[r.Name] = !r.Informational
		}
	}
	for i := range h.Ratios {
		t := &h.Ratios[i]
		t.Gated = !t.Informational && (inBase == nil || inBase[t.Name])
		if t.Gated {
			t.Changes = changes(*t)
		}
	}
	// The gated ratios lead: they are what a regression fails on.
	slices.SortStableFunc(h.Ratios, func(a, b trend) int { return cmp.Compare(btoi(!a.Gated), btoi(!b.Gated)) })
	h.LoadChanges = loadChanges(h.Runs)
	// Subjects in the order of the newest run that names them, then the
	// rest by name.
	order := map[string]int{}
	for i := len(h.Runs) - 1; i >= 0; i-- {
		for _, s := range h.Runs[i].Run.Subjects {
			if _, ok := order[s.Name]; !ok {
				order[s.Name] = len(order)
			}
		}
	}
	h.Fairness = fairnessTrends(h.Runs)
	bySubject := func(a, b trend) int {
		oa, okA := order[a.Name]
		ob, okB := order[b.Name]
		return cmp.Or(cmp.Compare(btoi(!okA), btoi(!okB)), cmp.Compare(oa, ob), cmp.Compare(a.Name, b.Name))
	}
	slices.SortStableFunc(h.Rates, bySubject)
	slices.SortStableFunc(h.Fairness, bySubject)
	return h
}

// fairnessTrends is each subject's fairness across runs: its deviation at
// the largest goroutine count the run judged (no more goroutines than
// GOMAXPROCS), a series per host and count.
func fairnessTrends(runs []HistoryRun) []trend {
	var ts []trend
	for i, hr := range runs {
		best := map[string]result.SaturateResult{}
		for _, r := range hr.Run.Saturate {
			if r.Fairness.Judged() && r.Goroutines > best[r.Subject].Goroutines {
				best[r.Subject] = r
			}
		}
		for _, name := range slices.Sorted(maps.Keys(best)) {
			r := best[name]
			trendOf(&ts, name).add(fmt.Sprintf("%s G=%d", hostKey(hr.Run), r.Goroutines), i, r.Fairness.DeviationPct)
		}
	}
	return ts
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// loadChanges are the runs whose load differs from the previous run's on
// the same host.
func loadChanges(runs []HistoryRun) []loadChange {
	var out []loadChange
	last := map[string]int{}
	for i, hr := range runs {
		key := hostKey(hr.Run)
		if prev, ok := last[key]; ok {
			if d := host.LoadDifference(runs[prev].Run.Host.Load, hr.Run.Host.Load); d != "" {
				out = append(out, loadChange{Run: i, Previous: prev, Host: key, Difference: d})
			}
		}
		last[key] = i
	}
	return out
}

// saturateByG is each subject's median IDs/s by goroutine count.
func saturateByG(run *result.Run) map[string]map[int]float64 {
	out := map[string]map[int]float64{}
	for _, r := range run.Saturate {
		if r.Goroutines <= 0 || !(r.IDsPerSec > 0) {
			continue
		}
		if out[r.Subject] == nil {
			out[r.Subject] = map[int]float64{}
		}
		out[r.Subject][r.Goroutines] = r.IDsPerSec
	}
	return out
}

// trendOf is the trend of ts named name, appended when new (the pointer
// holds until the next append).
func trendOf(ts *[]trend, name string) *trend {
	i := slices.IndexFunc(*ts, func(t trend) bool { return t.Name == name })
	if i < 0 {
		*ts, i = append(*ts, trend{Name: name}), len(*ts)
	}
	return &(*ts)[i]
}

// add appends run i's value to the host's series, a new series for a host
// not seen before.
func (t *trend) add(host string, i int, v float64) {
	k := slices.IndexFunc(t.Series, func(s trendSeries) bool { return s.Host == host })
	if k < 0 {
		t.Series = append(t.Series, trendSeries{Host: host})
		k = len(t.Series) - 1
	}
	t.Series[k].Points = append(t.Series[k].Points, point{Run: i, Value: v})
}
