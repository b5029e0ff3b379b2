package instr

import (
	"fmt"
	"io"
	"math"
	"text/tabwriter"
)

// DefaultTolerance is how much dearer than its baseline a path may count
// before the gate fails: 1.5%. Measured on the CI machine kind (2 vCPUs,
// load average 15 to 22 from other builds, valgrind 3.19, go1.26.8): a
// baseline and 10 gate runs of the same code, 11 counts of every path, put
// each path's per-call counts within a band of at most 0.67% (the widest:
// shardedgen/node-per-shard/strict/nextids64, 901.7 to 907.7), and no run
// moved any path more than 0.62% from the baseline, so 0 of 200 path
// comparisons and 0 of the 55 pairs of counts came near 1.5%. The band is
// what cachegrind counts besides the path: it counts the whole process,
// and the runtime's background thread, sysmon, wakes on the wall clock.
// 1.5% is more than twice the widest band and half the 3% slowdown the
// gate must catch: loadgen instr -inject 3 sizes each path's steps to 3%
// of its count (a step is 4.0 instructions, so the cheapest path, 123,
// gets one), and with the loop's own entry the paths then counted 3.1% to
// 6.9% more; the gate failed all 20. Since instrpath counts through
// lab/runner's loop (5 to 20 instructions a call more; re-baselined), 5
// gate runs of the same code at a load average of 9 to 16 moved no path
// more than 0.55%, and -inject 3 counted 3.8% to 19.3% more (the cheapest
// path, now 129, gets one step and the call wrapping it, some 20
// instructions); the gate failed all 20.
const DefaultTolerance = 0.015

// Row is one path's comparison.
type Row struct {
	Name    string
	Base    float64 // instructions per call in the baseline
	Now     float64
	Change  float64 // Now/Base - 1
	Verdict string  // "worse", "better" or "same"
	Steps   int     // spin steps planted after each call, 0 when none
}

// Compare checks cur against base at tol. It refuses (errBaseline) a
// baseline taken with another toolchain, valgrind or architecture, or
// whose paths differ from cur's: the answer is to re-baseline (make
// instr-baseline) and commit the file.
func Compare(base, cur *File, tol float64) ([]Row, error) {
	if base.Go != cur.Go || base.Valgrind != cur.Valgrind || base.GOARCH != cur.GOARCH || base.GOOS != cur.GOOS {
		return nil, fmt.Errorf("%w: recorded with %s, %s, %s/%s; this run is %s, %s, %s/%s: counts differ across toolchains, so re-baseline (make instr-baseline) and commit %s",
			errBaseline, base.Go, base.Valgrind, base.GOOS, base.GOARCH, cur.Go, cur.Valgrind, cur.GOOS, cur.GOARCH, baselinePath)
	}
	if len(base.Paths) != len(cur.Paths) {
		return nil, fmt.Errorf("%w: it counts %d paths, this run %d: re-baseline (make instr-baseline)", errBaseline, len(base.Paths), len(cur.Paths))
	}
	byName := make(map[string]PathCount, len(base.Paths))
	for _, p := range base.Paths {
		byName[p.Name] = p
	}
	rows := make([]Row, 0, len(cur.Paths))
	for _, p := range cur.Paths {
		b, ok := byName[p.Name]
		if !ok || b.PerCall <= 0 {
			return nil, fmt.Errorf("%w: no count for path %s: re-baseline (make instr-baseline)", errBaseline, p.Name)
		}
		r := Row{Name: p.Name, Base: b.PerCall, Now: p.PerCall, Change: p.PerCall/b.PerCall - 1, Verdict: "same", Steps: p.InjectSteps}
		switch {
		case r.Change > tol:
			r.Verdict = "worse"
		case r.Change < -tol:
			r.Verdict = "better"
		}
		rows = append(rows, r)
	}
	return rows, nil
}

// Worse counts the rows that failed.
func Worse(rows []Row) int {
	n := 0
	for _, r := range rows {
		if r.Verdict == "worse" {
			n++
		}
	}
	return n
}

// writeRows prints rows as a table, and a line of what they mean.
func writeRows(w io.Writer, rows []Row, tol float64) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "path\tbaseline\tnow\tchange\tverdict\tplanted steps\t")
	maxAbs := 0.0
	for _, r := range rows {
		planted := "-"
		if r.Steps > 0 {
			planted = fmt.Sprint(r.Steps)
		}
		fmt.Fprintf(tw, "%s\t%.1f\t%.1f\t%+.2f%%\t%s\t%s\t\n", r.Name, r.Base, r.Now, 100*r.Change, r.Verdict, planted)
		maxAbs = math.Max(maxAbs, math.Abs(r.Change))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	_, err := fmt.Fprintf(w, "instructions per call, %d paths: %d worse than +%.1f%%; largest change %.2f%%\n",
		len(rows), Worse(rows), 100*tol, 100*maxAbs)
	return err
}
