package ab

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strings"
	"text/tabwriter"

	"github.com/snowlab/snowlab/lab/internal/instr"
	"github.com/snowlab/snowlab/lab/internal/md"
)

// Write prints the run: what was compared and how, the load, every
// workload's decision, the self-check and the verdict.
func (r *Result) Write(w io.Writer, b *Build) error {
	ew := md.NewWriter(w)
	ew.Printf("loadgen ab: base %s, head %s", name(b.BaseRev, b.BaseCommit), name(b.HeadRev, b.HeadCommit))
	if b.Seconds > 0 {
		ew.Printf(" (built in %.1f s)", b.Seconds)
	}
	ew.Printf("\n")
	if b.Identical {
		ew.Printf("note: the two runners are byte for byte the same binary: this run compares the same code\n")
	}
	ew.Printf("measured: %d rounds of %v slices (after %v unmeasured), a fresh process of each build a round, in %.1f s (seed %d); %s\n",
		r.Rounds, r.Slice, r.Warmup, r.Took.Seconds(), r.Seed, r.metric())
	ew.Printf("%s\n", r.Load)
	ew.Printf("test: Wilcoxon signed-rank on each round's log(head/base), exact, Holm-corrected over %d workloads (alpha %g); minimum effect %.0f%% at G=1, %.0f%% above\n\n",
		len(r.Rows), r.Alpha, 100*r.MinEffect, 100*r.MinEffectContended)
	tw := tabwriter.NewWriter(ew, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "workload\tbase ns/ID\thead ns/ID\tchange (%.0f%% interval)\tsd/pair\tp adj\tdecision\twall IDs/s base → head\n", 100*(1-r.Alpha))
	for _, row := range r.Rows {
		verdict := string(row.Decision)
		switch {
		case row.Worse:
			verdict += ": worse, FAIL"
		case row.Decision == Different:
			verdict += ": better"
		}
		fmt.Fprintf(tw, "%s\t%.2f\t%.2f\t%s\t%s\t%s\t%s\t%s → %s\n", row.Workload, row.BaseCost, row.NewCost, changeText(row),
			num("%.1f%%", 100*row.Spread), num("%.2g", row.PAdj), verdict, rateText(row.BaseRate), rateText(row.NewRate))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	ew.Printf("change: head's cost per ID over base's, less 1 (Hodges-Lehmann); UNKNOWN passes: more rounds (-rounds) would decide it\n")
	if sc := r.SelfCheck; sc != nil {
		ew.Printf("\n%s", sc.text(len(r.Rows)))
	}
	if len(r.Failures) > 0 {
		ew.Printf("\ncorrectness: FAIL (%d)\n", len(r.Failures))
		for _, f := range r.Failures {
			ew.Printf("  %s\n", f)
		}
	}
	if err := r.Err(); err != nil {
		ew.Printf("\ngate: FAIL (%v)\n", err)
	} else {
		ew.Printf("\ngate: PASS\n")
	}
	return ew.Err()
}

func (r *Result) metric() string {
	if !r.CPU {
		return "time per ID: up to GOMAXPROCS the median batch of 512 calls, wall time above (no CPU time on this system)"
	}
	return "time per ID: up to GOMAXPROCS the median batch of 512 calls (at G>1 of those its goroutines ran side by side), the process's CPU time above"
}

// text is the self-check's paragraph.
func (sc *selfCheck) text(family int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "self-check (this machine, now; %s, each decided as one of the gate's %d rows):\n", sc.Calls.Workload.Subject, family)
	counted := func(v *float64) string {
		if v == nil {
			return "instructions not counted: no valgrind"
		}
		return fmt.Sprintf("%+.1f%% instructions per call, counted under cachegrind", 100**v)
	}
	fmt.Fprintf(&b, "  planted %d/1024 extra calls at G=1 (%s): %s %s: %s\n", sc.PlantCalls, counted(sc.CallsInstr),
		changeText(sc.Calls), sc.Calls.Decision, caught(sc.Calls))
	gate := ""
	if sc.SharedInstr != nil {
		verdict := "passes it"
		if *sc.SharedInstr > instr.DefaultTolerance {
			verdict = "fails it"
		}
		gate = fmt.Sprintf("; the instruction gate (%.1f%%) %s", 100*instr.DefaultTolerance, verdict)
	}
	fmt.Fprintf(&b, "  a cache line every goroutine writes, at %s (%s%s): %s %s: %s\n", sc.Shared.Workload, counted(sc.SharedInstr), gate,
		changeText(sc.Shared), sc.Shared.Decision, caught(sc.Shared))
	if sc.Contention > 0 {
		fmt.Fprintf(&b, "  contention: base costs %.2fx at G=%d what it costs at G=1 (timed where its goroutines ran side by side)\n",
			sc.Contention, sc.Shared.Workload.G)
	} else {
		fmt.Fprintf(&b, "  contention: not measured: base's goroutines at G=%d never ran side by side (the host ran its threads one at a time)\n", sc.Shared.Workload.G)
	}
	diff, pairs := 0, 0
	var parts []string
	for _, r := range sc.Same {
		pairs += r.Pairs
		if r.Decision == Different {
			diff++
		}
		parts = append(parts, fmt.Sprintf("G=%d %s sd %s", r.Workload.G, changeText(r), num("%.1f%%", 100*r.Spread)))
	}
	fmt.Fprintf(&b, "  same code (a second process of base): %d of %d comparisons DIFFERENT over %d slice pairs (%s)\n", diff, len(sc.Same), pairs, strings.Join(parts, "; "))
	fmt.Fprintf(&b, "  on this machine, now: %s at G=1 and %s at G=%d; false alarms %d of %d same-code comparisons\n",
		detects(sc.Calls), detects(sc.Shared), sc.Shared.Workload.G, diff, len(sc.Same))
	for _, m := range sc.Missed {
		fmt.Fprintf(&b, "  self-check missed: %s\n", m)
	}
	return b.String()
}

func caught(r Row) string {
	if r.Worse {
		return "caught"
	}
	return "not caught"
}

func detects(r Row) string {
	if math.IsNaN(float64(r.Change)) {
		return "could not measure"
	}
	if r.Worse {
		return fmt.Sprintf("detects %+.1f%%", 100*r.Change)
	}
	return fmt.Sprintf("does not detect %+.1f%%", 100*r.Change)
}

func name(rev, commit string) string {
	if commit == "" || strings.HasPrefix(commit, rev) {
		return rev
	}
	return fmt.Sprintf("%s (%.12s)", rev, commit)
}

func changeText(r Row) string {
	if math.IsNaN(float64(r.Change)) {
		return "-"
	}
	return fmt.Sprintf("%+.1f%% (%s, %s)", 100*r.Change, pct1(r.ChangeLo), pct1(r.ChangeHi))
}

func pct1(v Number) string {
	if math.IsInf(float64(v), 0) {
		return fmt.Sprintf("%.0f", v)
	}
	return num("%+.1f%%", 100*v)
}

// num is v in format, "-" where v is NaN.
func num(format string, v Number) string {
	if math.IsNaN(float64(v)) {
		return "-"
	}
	return fmt.Sprintf(format, v)
}

func rateText(v Number) string {
	if v <= 0 || math.IsNaN(float64(v)) {
		return "-"
	}
	return fmt.Sprintf("%.3gM", v/1e6)
}

// WriteJSON writes the run and what was compared as one JSON object.
func (r *Result) WriteJSON(w io.Writer, b *Build) error {
	v := struct {
		Pass  bool   `json:"pass"`
		Error string `json:"error,omitempty"`
		*Build
		*Result
	}{Pass: r.Err() == nil, Build: b, Result: r}
	if err := r.Err(); err != nil {
		v.Error = err.Error()
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}
