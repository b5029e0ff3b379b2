package cli

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

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

// write reads the suite results in p.Sources (folders, whose *.json files
// are read, or files) and writes their history page to p.Out, the ratios
// p.Baseline gates (every gated ratio when nil) first. It returns the
// history the page shows. An error about a source is a *badSource.
func (p historyPage) write() (report.History, error) {
	runs, err := readHistory(p.Sources, filepath.Dir(p.Out))
	if err != nil {
		return report.History{}, err
	}
	if filepath.Dir(p.Out) == resultdir.DefaultOut() {
		// The lab's own folder may not be there yet when only published
		// runs are; any other folder named must be.
		if err := os.MkdirAll(resultdir.DefaultOut(), 0o755); err != nil {
			return report.History{}, err
		}
	}
	h := report.NewHistory(runs, p.Baseline)
	var page bytes.Buffer
	if err := report.WriteIndex(&page, h); err != nil {
		return h, err
	}
	return h, resultdir.WriteFile(p.Out, page.Bytes())
}

// badSource is an error about one of the history's sources: missing, or
// not a suite result.
type badSource struct{ Err error }

func (e *badSource) Error() string { return e.Err.Error() }
func (e *badSource) Unwrap() error { return e.Err }

// readHistory reads the suite results in sources. A folder's files of an
// experiment (faults', gates', which name it in "experiment") are
// not suite runs and are passed over; any other file that is not a result
// is an error naming it. Each run's page (<stem>.html beside its JSON) is
// addressed relative to pageDir, where the index goes.
func readHistory(sources []string, pageDir string) ([]report.HistoryRun, error) {
	var runs []report.HistoryRun
	seen := map[string]bool{}
	for _, src := range sources {
		fi, err := os.Stat(src)
		if err != nil {
			return nil, &badSource{err}
		}
		files := []string{src}
		if fi.IsDir() {
			if files, err = filepath.Glob(filepath.Join(src, "*.json")); err != nil {
				return nil, &badSource{err}
			}
			slices.Sort(files)
		}
		for _, f := range files {
			abs, _ := filepath.Abs(f)
			if seen[abs] {
				continue
			}
			seen[abs] = true
			run, err := result.Read(f)
			if errors.Is(err, result.ErrExperiment) && fi.IsDir() {
				continue
			}
			if err != nil {
				return nil, &badSource{err}
			}
			runs = append(runs, historyRun(run, f, pageDir))
		}
	}
	return runs, nil
}

// historyRun is run, read from the file f, with its page addressed from
// pageDir where the page is there.
func historyRun(run *result.Run, f, pageDir string) report.HistoryRun {
	hr := report.HistoryRun{Run: run}
	page := strings.TrimSuffix(f, ".json") + ".html"
	if _, err := os.Stat(page); err == nil {
		if rel, err := filepath.Rel(pageDir, page); err == nil {
			hr.Page = filepath.ToSlash(rel)
		}
	}
	return hr
}

// changeLines are the change points of h's gated series as the page says
// them, a line each, or one line saying there are none (nothing where no
// series is gated).
func changeLines(h report.History) []string {
	var out []string
	for _, line := range report.ChangeLines(h) {
		out = append(out, "change point: "+line)
	}
	gated := 0
	for _, t := range h.Ratios {
		if t.Gated {
			gated++
		}
	}
	if len(out) == 0 && gated > 0 {
		out = append(out, fmt.Sprintf("change points: none in the %d gated series (e-divisive means, p <= %g)", gated, report.ChangePointP))
	}
	return out
}
