package wallgate

import (
	"errors"
	"fmt"
	"slices"

	"github.com/snowlab/snowlab/lab/internal/stats"
	"github.com/snowlab/snowlab/lab/result"
)

// DefaultMoreRounds is how many more runs Sequential pools while a ratio
// is UNKNOWN and leans worse: each costs loadgen check about 3.3 s of
// measuring on two cores (11 subjects x 2 goroutine counts x 3 repeats x
// 50 ms), so a pass costs at most about 7 s more than one run.
const DefaultMoreRounds = 2

// ErrNotConfirmed is a first decision that failed and a confirmation run
// that did not fail on any of the same ratios: the gate passes, saying so.
var ErrNotConfirmed = errors.New("wallgate: the confirmation run did not confirm the failure")

// Measure runs the suite once more and returns its run; full is true for
// the first run and the confirmation run, false for the runs pooled into
// the first (which a caller may make shorter). The confirmation run is
// decided alone, so it must be as long as the first: with 3 repeats
// against 6 the U test's least p is 2/C(9,3) = 0.024, 0.33 after Holm's
// correction over 14 ratios, and it could never confirm anything.
type Measure func(full bool) (*result.Run, error)

// Outcome is Sequential's finding: the decision over the pooled runs, how
// many were pooled, and the confirmation run's decision where the pooled
// one failed.
type Outcome struct {
	Report
	Rounds  int
	Confirm *Report
}

// Err is nil when the gate passes. A failure stands only when the
// confirmation run also finds a ratio of the failed ones DIFFERENT and
// worse, or has correctness failures of its own; a correctness failure of
// the pooled runs or no shared ratio stands at once.
func (o Outcome) Err() error {
	err := o.Report.Err()
	if err == nil || o.Confirm == nil || len(o.CorrectnessFailures) > 0 || len(o.Rows) == 0 {
		return err
	}
	if len(o.Confirm.CorrectnessFailures) > 0 {
		return err
	}
	for _, c := range o.Confirm.Failed() {
		if slices.ContainsFunc(o.Failed(), func(r Row) bool { return r.Name == c.Name }) {
			return fmt.Errorf("%w (confirmed by a second run)", err)
		}
	}
	return nil
}

// Sequential is the gate that adds repeats while it is unsure, as
// Chromium's Pinpoint does: it decides the first run against base, and
// while a ratio is UNKNOWN with its loss estimate at least half the
// minimum effect (a regression the repeats so far can neither show nor
// rule out) pools up to moreRounds
// more runs into it and decides again; a decision that fails is then
// checked by a fresh confirmation run, decided alone against base on the
// failed ratios only (Holm's correction over those: they are the
// hypotheses it tests, and over all 14 a run of 6 repeats against 6 that
// overlap in one pair reads p 0.056 for a 47% loss), and stands only
// when that fails on one of them (Outcome.Err).
// The pooled tests use more repeats, so the U test's power grows; the
// confirmation run is independent of the pooled ones, so a fluke in them
// (the host busy for one run) does not fail the gate alone.
func Sequential(base *result.Run, measure Measure, o Options, moreRounds int) (Outcome, error) {
	cur, err := measure(true)
	if err != nil {
		return Outcome{}, err
	}
	out := Outcome{Rounds: 1}
	for {
		if out.Report, err = Decide(base, cur, o); err != nil {
			return out, err
		}
		if out.Rounds > moreRounds || !leansWorse(out.Report) {
			break
		}
		more, err := measure(false)
		if err != nil {
			return out, err
		}
		cur = Pool(cur, more)
		out.Rounds++
	}
	if out.Report.Err() == nil || len(out.Failed()) == 0 || len(out.CorrectnessFailures) > 0 {
		return out, nil
	}
	again, err := measure(true)
	if err != nil {
		return out, err
	}
	failed := map[string]bool{}
	for _, r := range out.Failed() {
		failed[r.Name] = true
	}
	c, err := decideOnly(base, again, o, failed)
	if err != nil {
		return out, err
	}
	out.Confirm = &c
	return out, nil
}

// leansWorse reports whether a row is UNKNOWN with its loss estimate at
// least half the minimum effect: more repeats could make it DIFFERENT
// and fail, which takes an estimate of the whole minimum effect. A row
// leaning better, or worse by less than half of it (the estimate would
// have to double on more repeats of the same code), costs no more runs:
// on a pass, most checks then make one run only.
func leansWorse(r Report) bool {
	for _, row := range r.Rows {
		if row.Decision == Unknown && row.Loss >= r.MinEffect/2 {
			return true
		}
	}
	return false
}

// Pool is a with b's saturate repeats appended, point by point (subject
// and goroutine count), and b's correctness failures added: one run with
// the repeats of both. A point's CPU samples are kept only where both
// runs have them for every repeat, so that they stay paired with Samples.
// a is not changed.
func Pool(a, b *result.Run) *result.Run {
	out := *a
	out.Saturate = slices.Clone(a.Saturate)
	out.Failures = append(slices.Clone(a.Failures), b.Failures...)
	for i := range out.Saturate {
		p := &out.Saturate[i]
		j := slices.IndexFunc(b.Saturate, func(q result.SaturateResult) bool {
			return q.Subject == p.Subject && q.Goroutines == p.Goroutines
		})
		if j < 0 {
			continue
		}
		q := b.Saturate[j]
		paired := len(p.CPUSamples) == len(p.Samples) && len(q.CPUSamples) == len(q.Samples)
		p.Samples = append(slices.Clone(p.Samples), q.Samples...)
		p.CPUSamples = append(slices.Clone(p.CPUSamples), q.CPUSamples...)
		if !paired {
			p.CPUSamples = nil
		}
		p.TickFill = append(slices.Clone(p.TickFill), q.TickFill...)
		p.IDsPerSec = stats.Median(p.Samples)
		p.Check = mergeCheck(p.Check, q.Check)
	}
	return &out
}

// mergeCheck is the check over both runs' IDs of a point (as the
// workloads merge their repeats').
func mergeCheck(a, b result.Check) result.Check {
	a.IDs += b.IDs
	a.Duplicates += b.Duplicates
	a.OrderViolations += b.OrderViolations
	a.MaxPerTickNode = max(a.MaxPerTickNode, b.MaxPerTickNode)
	a.CeilingExceeded = a.CeilingExceeded || b.CeilingExceeded
	a.Errors += b.Errors
	if a.FirstError == "" {
		a.FirstError = b.FirstError
	}
	return a
}
