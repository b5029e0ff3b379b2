package cli

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/snowlab/snowlab/lab/internal/md"
	"github.com/snowlab/snowlab/lab/internal/report"
	"github.com/snowlab/snowlab/lab/internal/resultdir"
	"github.com/snowlab/snowlab/lab/result"
)

// defaultBaseline is loadgen history's -baseline unless told otherwise:
// results/baseline/, the run whose gated ratios the page leads with.
func defaultBaseline() string { return filepath.FromSlash(resultdir.Baseline) }

// historyPage is a history page to write: the runs in Sources onto Out, the
// ratios Baseline gates first (every gated ratio when nil).
type historyPage struct {
	Out      string
	Sources  []string
	Baseline *result.Run
}

// newHistoryPage is the page loadgen history's -o (out), -baseline (base) and
// arguments (sources) name, checked: no sources reads the published and
// the local folder, and no out writes into the one folder named, else
// into the local folder. A baseline at the default path that is not
// there is none. Its errors name what is wrong in one line.
func newHistoryPage(out, base string, sources []string) (historyPage, error) {
	if len(sources) == 0 {
		for _, dir := range []string{resultdir.Published, resultdir.DefaultOut()} {
			if fi, err := os.Stat(dir); err == nil && fi.IsDir() {
				sources = append(sources, dir)
			}
		}
		if len(sources) == 0 {
			return historyPage{}, fmt.Errorf("no %s/ or %s/ folder here: name the folders or files to read", resultdir.Published, resultdir.Local)
		}
	} else if fi, err := os.Stat(sources[0]); out == "" && len(sources) == 1 && err == nil && fi.IsDir() {
		out = filepath.Join(sources[0], report.IndexName)
	}
	if out == "" {
		out = filepath.Join(resultdir.DefaultOut(), report.IndexName)
	}
	p := historyPage{Out: out, Sources: sources}
	if _, err := os.Stat(base); err == nil || base != defaultBaseline() {
		var err error
		if p.Baseline, err = resultdir.ReadBaseline(base); err != nil {
			return historyPage{}, fmt.Errorf("-baseline: %v", err)
		}
	}
	return p, nil
}

// write writes the page, and returns how many runs it shows and a line
// per change point of its gated series (ChangeLines). An error about a
// source is a *BadSource.
func (p historyPage) write() (int, []string, error) {
	h, err := drawHistoryPage(p.Out, p.Sources, p.Baseline)
	return len(h.Runs), changeLines(h), err
}

// changeLines says each change point of h's gated series in a line: the
// series, the first run at the new level (its commit and date), the
// levels before and after, the p-value; or one line saying there are
// none (nothing where no series is gated).
func changeLines(h report.History) []string {
	var out []string
	gated := 0
	for _, t := range h.Ratios {
		if !t.Gated {
			continue
		}
		gated++
		for _, c := range t.Changes {
			r := h.Runs[c.Run].Run
			out = append(out, fmt.Sprintf("change point: %s on %s at %s (%s): %.4g -> %.4g (%+.1f%%), p=%.3g",
				t.Name, c.Host, md.OrDash(r.Revision()), r.Started.Format("2006-01-02"), c.Before, c.After, 100*(c.After/c.Before-1), c.P))
		}
	}
	if len(out) == 0 && gated > 0 {
		out = append(out, fmt.Sprintf("change points: none in the %d gated series (e-divisive means, p <= %g)", gated, report.ChangePointP))
	}
	return out
}
