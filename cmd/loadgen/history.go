package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/snowlab/snowlab/lab/report"
	"github.com/snowlab/snowlab/lab/result"
)

// runHistory writes the history page of the result files named or found
// in the folders named (results/ by default).
func runHistory(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("loadgen history", flag.ContinueOnError)
	fs.SetOutput(stderr)
	out := fs.String("o", "", "the page to write (default: "+report.IndexName+" in the one folder read, else results/"+report.IndexName+")")
	defaultBase := filepath.Join("results", "baseline")
	base := fs.String("baseline", defaultBase, "the baseline loadgen check compares against, a .json file or a folder (its newest .json): "+
		"the page leads with the ratios it gates (none at the default path: every ratio the gate would check)")
	fs.Usage = func() {
		fmt.Fprintf(stderr, "usage: loadgen history [-o FILE] [-baseline FILE.json|DIR] [DIR|FILE.json ...]\n\n"+
			"Writes one self-contained HTML page with every suite result in the folders (results/ by default)\n"+
			"and files named: trend charts of the ratios the gate checks against the baseline, the runs by date\n"+
			"and commit with the load each ran under, then the ratios only reported and IDs/s per subject, a\n"+
			"line per host.\n\n")
		fs.PrintDefaults()
	}
	if code := parseFlags(fs, args); code >= 0 {
		return code
	}
	sources := fs.Args()
	if len(sources) == 0 {
		sources = []string{"results"}
	}
	if *out == "" {
		*out = filepath.Join("results", report.IndexName)
		if fi, err := os.Stat(sources[0]); len(sources) == 1 && err == nil && fi.IsDir() {
			*out = filepath.Join(sources[0], report.IndexName)
		}
	}
	var baseline *result.Run
	if _, err := os.Stat(*base); err == nil || *base != defaultBase {
		var err error
		if baseline, err = readBaseline(*base); err != nil {
			fmt.Fprintf(stderr, "loadgen history: -baseline: %v\n", err)
			return exitUsage
		}
	}
	n, err := writeHistory(*out, sources, baseline)
	if err != nil {
		fmt.Fprintf(stderr, "loadgen history: %v\n", err)
		return exitFailure
	}
	fmt.Fprintf(stdout, "wrote %s (%d runs)\n", *out, n)
	return exitOK
}

// readBaseline reads the baseline run at path: a result file, or the
// newest .json in a folder.
func readBaseline(path string) (*result.Run, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if fi.IsDir() {
		if path, err = newestJSON(path); err != nil {
			return nil, err
		}
	}
	return result.Read(path)
}

// writeHistory reads the suite results in sources (folders, whose *.json
// files are read, or files) and writes their history page to out, the
// ratios baseline gates (every gated ratio when nil) first. It returns
// how many runs the page shows.
func writeHistory(out string, sources []string, baseline *result.Run) (int, error) {
	runs, err := readHistory(sources, filepath.Dir(out))
	if err != nil {
		return 0, err
	}
	h := report.NewHistory(runs, baseline)
	return len(runs), result.WriteFile(out, func(w io.Writer) error { return report.WriteIndex(w, h) })
}

// readHistory reads the suite results in sources. A folder's files of an
// experiment (lab/btree's, which name it in "experiment") are not suite
// runs and are passed over; any other file that is not a result is an
// error naming it. Each run's page (<stem>.html beside its JSON) is
// addressed relative to pageDir, where the index goes.
func readHistory(sources []string, pageDir string) ([]report.HistoryRun, error) {
	var runs []report.HistoryRun
	seen := map[string]bool{}
	for _, src := range sources {
		fi, err := os.Stat(src)
		if err != nil {
			return nil, err
		}
		files := []string{src}
		if fi.IsDir() {
			if files, err = filepath.Glob(filepath.Join(src, "*.json")); err != nil {
				return nil, err
			}
			slices.Sort(files)
		}
		for _, f := range files {
			abs, _ := filepath.Abs(f)
			if seen[abs] {
				continue
			}
			seen[abs] = true
			if exp := experiment(f); exp != "" {
				if fi.IsDir() {
					continue
				}
				return nil, fmt.Errorf("%s: the result of the %s experiment, not of a suite run", f, exp)
			}
			run, err := result.Read(f)
			if err != nil {
				return nil, err
			}
			hr := report.HistoryRun{Run: run}
			page := strings.TrimSuffix(f, ".json") + ".html"
			if _, err := os.Stat(page); err == nil {
				if rel, err := filepath.Rel(pageDir, page); err == nil {
					hr.Page = filepath.ToSlash(rel)
				}
			}
			runs = append(runs, hr)
		}
	}
	return runs, nil
}

// experiment is the experiment the JSON file at path is the result of
// (lab/btree's name one in "experiment"), "" for a suite run's or a file
// that is not JSON (result.Read says what is wrong with that).
func experiment(path string) string {
	var head struct {
		Experiment string `json:"experiment"`
	}
	data, err := os.ReadFile(path)
	if err != nil || json.Unmarshal(data, &head) != nil {
		return ""
	}
	return head.Experiment
}
