package wallgate

import (
	"testing"

	"github.com/snowlab/snowlab/lab/result"
)

// script is a Measure that returns runs in order and counts the calls.
type script struct {
	runs  []*result.Run
	calls int
	full  []bool
}

func (s *script) measure(full bool) (*result.Run, error) {
	s.full = append(s.full, full)
	r := s.runs[min(s.calls, len(s.runs)-1)]
	s.calls++
	return r, nil
}

// spreadRun is run with every repeat's cost scaled by its own factor:
// a noisy host.
func spreadRun(cost float64, spread []float64) *result.Run {
	r := run(cost, cost)
	for i := range r.Saturate {
		s := &r.Saturate[i]
		if s.Subject != "atomicgen/monotonic" {
			continue
		}
		s.Samples, s.CPUSamples = s.Samples[:len(spread)], nil
		for k, f := range spread {
			s.Samples[k] /= f
		}
	}
	for i := range r.Saturate {
		if s := &r.Saturate[i]; s.Subject != "atomicgen/monotonic" {
			s.Samples, s.CPUSamples = s.Samples[:len(spread)], nil
		}
	}
	return r
}

func TestSequentialSamePassesAtOnce(t *testing.T) {
	s := &script{runs: []*result.Run{run(1.05, 1.05)}}
	out, err := Sequential(run(1.05, 1.05), s.measure, Options{}, DefaultMoreRounds)
	if err != nil || out.Err() != nil {
		t.Fatalf("err %v, gate %v", err, out.Err())
	}
	if s.calls != 1 || out.Rounds != 1 || out.Confirm != nil {
		t.Errorf("calls %d, rounds %d, confirm %v: want one run", s.calls, out.Rounds, out.Confirm)
	}
}

// TestSequentialMoreRepeatsWhileUnknown: a ratio about 17% worse on a
// noisy host (its spread's median is 1.1) is UNKNOWN after one run;
// pooled runs narrow it, up to the cap. One about 8% worse (under half
// the 25% minimum effect) pools nothing.
func TestSequentialMoreRepeatsWhileUnknown(t *testing.T) {
	mild := spreadRun(0.99, []float64{1, 1.3, 0.8, 1.25, 0.85, 1.2})
	s := &script{runs: []*result.Run{mild}}
	out, err := Sequential(run(1, 1), s.measure, Options{}, DefaultMoreRounds)
	if err != nil || out.Rounds != 1 || out.Rows[0].Decision != Unknown {
		t.Fatalf("an 8%% loss: %d rounds, %+v, %v: want one UNKNOWN run", out.Rounds, out.Rows[0], err)
	}
	noisy := spreadRun(1.1, []float64{1, 1.3, 0.8, 1.25, 0.85, 1.2})
	first, err := Decide(run(1, 1), noisy, Options{})
	if err != nil || !leansWorse(first) {
		t.Fatalf("the planted run must be UNKNOWN and lean worse: %+v, %v", first.Rows, err)
	}
	for _, more := range []int{0, 1, 2} {
		s := &script{runs: []*result.Run{noisy}}
		out, err := Sequential(run(1, 1), s.measure, Options{}, more)
		if err != nil || out.Err() != nil {
			t.Fatalf("more %d: err %v, gate %v", more, err, out.Err())
		}
		if out.Rounds != 1+more || s.calls != 1+more {
			t.Errorf("more %d: %d rounds, %d calls: want %d", more, out.Rounds, s.calls, 1+more)
		}
		if n := out.Rows[0].NNew; n != 6*(1+more) {
			t.Errorf("more %d: %d repeats pooled, want %d", more, n, 6*(1+more))
		}
	}
}

func TestSequentialConfirms(t *testing.T) {
	slow, same := run(2, 2), run(1, 1)
	s := &script{runs: []*result.Run{slow, slow}}
	out, err := Sequential(same, s.measure, Options{}, DefaultMoreRounds)
	if err != nil {
		t.Fatal(err)
	}
	if s.calls != 2 || out.Confirm == nil {
		t.Fatalf("calls %d, confirm %v: want the run and a confirmation", s.calls, out.Confirm)
	}
	if len(out.Confirm.Rows) != len(out.Failed()) {
		t.Errorf("the confirmation decides the %d failed ratios only, got %d rows", len(out.Failed()), len(out.Confirm.Rows))
	}
	if len(s.full) != 2 || !s.full[1] {
		t.Errorf("the confirmation run must be full-length (full: %v)", s.full)
	}
	if err := out.Err(); err == nil {
		t.Error("a confirmed regression must fail")
	}

	// A regression the confirmation run does not see: a fluke, passed.
	s = &script{runs: []*result.Run{slow, same}}
	out, err = Sequential(same, s.measure, Options{}, DefaultMoreRounds)
	if err != nil {
		t.Fatal(err)
	}
	if out.Confirm == nil || out.Report.Err() == nil || out.Err() != nil {
		t.Errorf("an unconfirmed failure passes: first %v, outcome %v", out.Report.Err(), out.Err())
	}
}

func TestPool(t *testing.T) {
	a, b := run(1, 1), run(1, 1)
	b.Failures = []string{"x: FAIL"}
	b.Saturate[0].CPUSamples = nil
	p := Pool(a, b)
	if len(a.Saturate[0].Samples) != 6 || len(a.Failures) != 0 {
		t.Fatal("Pool changed a")
	}
	unpaired := b.Saturate[0] // run builds its points in map order
	for _, s := range p.Saturate {
		i := 1
		if s.Subject == unpaired.Subject && s.Goroutines == unpaired.Goroutines {
			i = 0
		}
		if len(s.Samples) != 12 {
			t.Errorf("%s G=%d: %d samples, want 12", s.Subject, s.Goroutines, len(s.Samples))
		}
		if want := map[bool]int{true: 0, false: 12}[i == 0]; len(s.CPUSamples) != want {
			t.Errorf("%s G=%d: %d CPU samples, want %d", s.Subject, s.Goroutines, len(s.CPUSamples), want)
		}
	}
	if len(p.Failures) != 1 {
		t.Errorf("failures %v", p.Failures)
	}
}
