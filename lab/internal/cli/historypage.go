package cli

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/snowlab/snowlab/lab/internal/report"
	"github.com/snowlab/snowlab/lab/internal/resultdir"
	"github.com/snowlab/snowlab/lab/result"
)

// writeHistory writes the history page of runs to out, the ratios baseline
// gates (every gated ratio when nil) first.
func writeHistory(out string, runs []report.HistoryRun, baseline *result.Run) (report.History, error) {
	h := report.NewHistory(runs, baseline)
	var page bytes.Buffer
	if err := report.WriteIndex(&page, h); err != nil {
		return h, err
	}
	return h, resultdir.WriteFile(out, page.Bytes())
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
			if fi.IsDir() && experimentOf(f) != "" {
				continue
			}
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

// experimentOf is the experiment the result file at path names in its
// header, "" for a suite run or a file it cannot tell. It reads the
// leading keys only: an experiment's result opens with its header
// (result.Header: "schema", then "experiment"), and a suite run's first
// key past "schema" is another, so the answer is known after a few bytes
// of a file that can hold megabytes of samples. result.Read stays the
// judge of a file this passes: it refuses an experiment with the key
// elsewhere.
func experimentOf(path string) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	dec := json.NewDecoder(bufio.NewReader(f))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return ""
	}
	for dec.More() {
		key, err := dec.Token()
		if err != nil {
			return ""
		}
		switch key {
		case "experiment":
			var name string
			if dec.Decode(&name) != nil {
				return ""
			}
			return name
		case "schema":
			var skip json.RawMessage
			if dec.Decode(&skip) != nil {
				return ""
			}
		default:
			return ""
		}
	}
	return ""
}

// writeHistoryPage reads the suite results in sources (folders, whose *.json
// files are read, or files) and writes their history page to out, the
// ratios baseline gates (every gated ratio when nil) first. It returns
// how many runs the page shows. An error about a source is a *BadSource.
func writeHistoryPage(out string, sources []string, baseline *result.Run) (int, error) {
	h, err := drawHistoryPage(out, sources, baseline)
	return len(h.Runs), err
}

// drawHistoryPage is WritePage returning the history it drew.
func drawHistoryPage(out string, sources []string, baseline *result.Run) (report.History, error) {
	runs, err := readHistory(sources, filepath.Dir(out))
	if err != nil {
		return report.History{}, err
	}
	if filepath.Dir(out) == resultdir.DefaultOut() {
		// The lab's own folder may not be there yet when only published
		// runs are; any other folder named must be.
		if err := os.MkdirAll(resultdir.DefaultOut(), 0o755); err != nil {
			return report.History{}, err
		}
	}
	return writeHistory(out, runs, baseline)
}
