package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/snowlab/snowlab/cmd/loadgen/internal/history"
	"github.com/snowlab/snowlab/cmd/loadgen/internal/report"
	"github.com/snowlab/snowlab/lab/result"
)

// runHistory writes the history page of the result files named or found
// in the folders named: by default the published runs (results/) and the
// local ones (results/local/), onto results/local/index.html, which git
// ignores; loadgen publish refreshes the published page.
func runHistory(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("loadgen history", flag.ContinueOnError)
	fs.SetOutput(stderr)
	out := fs.String("o", "", "the page to write (default: "+report.IndexName+" in the one folder named, else in "+localDir+")")
	defaultBase := filepath.Join("results", "baseline")
	base := fs.String("baseline", defaultBase, "the baseline loadgen check compares against, a .json file or a folder (its newest .json): "+
		"the page leads with the ratios it gates (none at the default path: every ratio the gate would check)")
	fs.Usage = func() {
		fmt.Fprintf(stderr, "usage: loadgen history [-o FILE] [-baseline FILE.json|DIR] [DIR|FILE.json ...]\n\n"+
			"Writes one self-contained HTML page with every suite result in the folders (by default "+publishedDir+"/, the\n"+
			"published runs, and "+localDir+"/, the lab's own) and files named: trend charts of the ratios the gate\n"+
			"checks against the baseline, the runs by date and commit with the load each ran under, then the ratios\n"+
			"only reported and IDs/s per subject, a line per host.\n\n")
		fs.PrintDefaults()
	}
	if code := parseFlags(fs, args); code >= 0 {
		return code
	}
	sources := fs.Args()
	if len(sources) == 0 {
		for _, dir := range []string{publishedDir, defaultOut()} {
			if fi, err := os.Stat(dir); err == nil && fi.IsDir() {
				sources = append(sources, dir)
			}
		}
		if len(sources) == 0 {
			fmt.Fprintf(stderr, "loadgen history: no %s/ or %s/ folder here: name the folders or files to read\n", publishedDir, localDir)
			return exitUsage
		}
	} else if fi, err := os.Stat(sources[0]); *out == "" && len(sources) == 1 && err == nil && fi.IsDir() {
		*out = filepath.Join(sources[0], report.IndexName)
	}
	if *out == "" {
		*out = filepath.Join(defaultOut(), report.IndexName)
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
		// What was named is at fault (a folder that is not there, a
		// file that is no suite run) unless the page could not be
		// written.
		var bad *history.BadSource
		if errors.As(err, &bad) {
			return exitUsage
		}
		return exitFailure
	}
	fmt.Fprintf(stdout, "wrote %s (%d runs)\n", *out, n)
	return exitOK
}

// readBaseline reads the baseline run at path: a result file, or the
// newest .json in a folder (baselineFile, as loadgen check reads it).
func readBaseline(path string) (*result.Run, error) {
	file, err := baselineFile(path)
	if err != nil {
		return nil, err
	}
	return result.Read(file)
}

// writeHistory reads the suite results in sources (folders, whose *.json
// files are read, or files) and writes their history page to out, the
// ratios baseline gates (every gated ratio when nil) first. It returns
// how many runs the page shows. An error about a source is a
// *history.BadSource.
func writeHistory(out string, sources []string, baseline *result.Run) (int, error) {
	runs, err := history.Read(sources, filepath.Dir(out))
	if err != nil {
		return 0, err
	}
	if filepath.Dir(out) == defaultOut() {
		// The lab's own folder may not be there yet when only published
		// runs are; any other folder named must be.
		if err := os.MkdirAll(defaultOut(), 0o755); err != nil {
			return 0, err
		}
	}
	return len(runs), history.Write(out, runs, baseline)
}
