// loadgen export writes a lab result in the formats the tools CI users
// already run read: Go's benchmark format, one line per saturate repeat,
// so that benchstat (golang.org/x/perf) compares two lab runs like two go
// test -bench runs; and github-action-benchmark's custom JSON
// ("customBiggerIsBetter": name, unit, value, extra), with the gate's
// host-normalised ratios beside the raw IDs/s, and the costs over the
// physical limits apart ("customSmallerIsBetter"), so that a trend across
// commits is drawn from figures that hold across hosts. It only formats:
// the result is read by lab/result and the ratios computed by lab/compare.

package cli

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"golang.org/x/perf/benchfmt"

	"github.com/snowlab/snowlab/lab/compare"
	"github.com/snowlab/snowlab/lab/internal/experiment"
	"github.com/snowlab/snowlab/lab/internal/stats"
	"github.com/snowlab/snowlab/lab/result"
)

// benchName is the Go benchmark name of one saturate point, as benchfmt
// holds it (without the "Benchmark" prefix):
// Saturate/subject=<subject>/G=<n>-<GOMAXPROCS>. The subject's slashes
// become colons, since a slash separates the name's parts.
func benchName(r result.SaturateResult, procs int) benchfmt.Name {
	name := fmt.Sprintf("Saturate/subject=%s/G=%d", strings.ReplaceAll(r.Subject, "/", ":"), r.Goroutines)
	if procs > 0 {
		name += fmt.Sprintf("-%d", procs)
	}
	return benchfmt.Name(name)
}

// goBench writes run's saturate results in Go's benchmark format with
// benchfmt's Writer (what benchstat reads with benchfmt's Reader): the
// configuration lines go test writes (goos, goarch, pkg, cpu) and one line
// per repeat with the IDs minted as the iteration count, wall-clock ns/op
// per ID and IDs/s as a custom unit. The commit is left out, as go test
// leaves it out: benchstat splits its tables by every configuration key,
// and two runs to compare are of two commits.
func goBench(w io.Writer, run *result.Run) error {
	bw := benchfmt.NewWriter(w)
	h := run.Host
	res := &benchfmt.Result{}
	for _, kv := range [][2]string{
		{"goos", h.OS}, {"goarch", h.Arch}, {"pkg", "github.com/snowlab/snowlab/lab"}, {"cpu", h.CPU},
	} {
		if kv[1] != "" {
			res.Config = append(res.Config, benchfmt.Config{Key: kv[0], Value: []byte(kv[1]), File: true})
		}
	}
	for _, r := range run.Saturate {
		samples := r.Samples
		if len(samples) == 0 && r.IDsPerSec > 0 {
			samples = []float64{r.IDsPerSec}
		}
		for _, v := range samples {
			if v <= 0 {
				continue
			}
			// An int, as benchfmt holds it: 2^31-1 IDs on 32-bit
			// platforms, a 21 s repeat at 100M IDs/s, is the most a
			// line can count.
			ids := min(max(int64(v*r.Duration.Seconds()+0.5), 1), math.MaxInt)
			res.Name, res.Iters = benchName(r, h.GOMAXPROCS), int(ids)
			// Four and six significant digits, as the lines were written
			// by hand before: the repeats differ by more than that.
			res.Values = []benchfmt.Value{{Value: sig(1e9/v, 4), Unit: "ns/op"}, {Value: sig(v, 6), Unit: "IDs/s"}}
			if err := bw.Write(res); err != nil {
				return err
			}
		}
	}
	return nil
}

// sig is v rounded to n significant digits.
func sig(v float64, n int) float64 {
	r, _ := strconv.ParseFloat(strconv.FormatFloat(v, 'g', n, 64), 64)
	return r
}

// entry is one figure in github-action-benchmark's custom format.
type entry struct {
	Name  string  `json:"name"`
	Unit  string  `json:"unit"`
	Value float64 `json:"value"`
	Range string  `json:"range,omitempty"`
	Extra string  `json:"extra,omitempty"`
}

// actionBenchmark is run as github-action-benchmark's
// "customBiggerIsBetter" entries: every saturate point's median IDs/s
// (with its spread over the repeats), then every ratio the gate reads
// (lab/compare.Ratios) for which higher is better, marked "gated" or "not
// gated" in extra. The costs (ns/ID over a limit, lower is better:
// ratioEntries(run, true)) are apart: the action reads one direction per
// file.
func actionBenchmark(run *result.Run) []entry {
	var out []entry
	for _, r := range run.Saturate {
		e := entry{Name: fmt.Sprintf("saturate %s G=%d", r.Subject, r.Goroutines), Unit: "IDs/s", Value: r.IDsPerSec,
			Extra: fmt.Sprintf("%d repeats; %s", len(r.Samples), hostText(run))}
		if len(r.Samples) > 1 {
			e.Value = stats.Median(r.Samples)
			e.Range = spread(r.Samples)
		}
		if e.Value > 0 {
			out = append(out, e)
		}
	}
	return append(out, ratioEntries(run, false)...)
}

// ratioEntries are the entries of run's ratios that are LowerIsBetter (a
// generator's ns/ID over its limit, 1× being the limit), or that are not.
func ratioEntries(run *result.Run, lower bool) []entry {
	var out []entry
	for _, r := range compare.Ratios(run) {
		if r.LowerIsBetter != lower {
			continue
		}
		gated := "gated"
		if r.Informational {
			gated = "not gated: " + r.Why
		}
		unit := "ratio"
		if lower {
			unit = "× the limit"
		}
		e := entry{Name: "ratio " + r.Name, Unit: unit, Value: r.Value,
			Extra: fmt.Sprintf("%s; %d repeats; %s", gated, len(r.Samples), hostText(run))}
		if len(r.Samples) > 1 {
			e.Range = spread(r.Samples)
		}
		out = append(out, e)
	}
	return out
}

func hostText(run *result.Run) string {
	return fmt.Sprintf("host %s, %s", run.Host.Hostname, run.Host.String())
}

// writeEntries writes entries as the JSON array the action reads.
func writeEntries(w io.Writer, entries []entry) error {
	if entries == nil {
		entries = []entry{}
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(entries)
}

// spread is v's range, "lo..hi".
func spread(v []float64) string {
	return fmt.Sprintf("%.4g..%.4g", slices.Min(v), slices.Max(v))
}

// The formats loadgen export writes.
const (
	formatGoBench              = "gobench"
	formatActionBenchmark      = "benchmark-action"
	formatActionBenchmarkCosts = "benchmark-action-costs"
)

// formatHelp says what each format is, for -format.
const formatHelp = formatGoBench + ": Go's benchmark format, one line per saturate repeat, for benchstat; " +
	formatActionBenchmark + ": github-action-benchmark's customBiggerIsBetter JSON (IDs/s and the gate's ratios where higher is better); " +
	formatActionBenchmarkCosts + ": its customSmallerIsBetter JSON (the gate's costs: ns/ID over a limit, 1× being the limit)"

// exportWriter is the function that writes a run in format; an unknown format
// is an error naming it and the formats there are.
func exportWriter(format string) (func(io.Writer, *result.Run) error, error) {
	switch format {
	case formatGoBench:
		return goBench, nil
	case formatActionBenchmark:
		return func(w io.Writer, run *result.Run) error { return writeEntries(w, actionBenchmark(run)) }, nil
	case formatActionBenchmarkCosts:
		return func(w io.Writer, run *result.Run) error { return writeEntries(w, ratioEntries(run, true)) }, nil
	}
	return nil, fmt.Errorf("-format %q: want %s, %s or %s", format, formatGoBench, formatActionBenchmark, formatActionBenchmarkCosts)
}

// exportCmd is `loadgen export [-format F] RUN.json`.
func exportCmd(fs *flag.FlagSet) command {
	format := fs.String("format", formatGoBench, formatHelp)
	return func(args []string, stdout, _ io.Writer) error {
		if len(args) != 1 {
			return usageLine("usage: loadgen export [-format gobench|benchmark-action|benchmark-action-costs] RUN.json")
		}
		write, err := exportWriter(*format)
		if err != nil {
			return experiment.Usage(err)
		}
		run, err := result.Read(args[0])
		if err != nil {
			return experiment.Usage(err)
		}
		return write(stdout, run)
	}
}
