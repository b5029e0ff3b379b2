package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/snowlab/snowlab/cmd/loadgen/internal/report"
	"github.com/snowlab/snowlab/lab/result"
)

// runPublish copies runs into the published folder (results/) and
// refreshes its history page: committing a run is this deliberate step,
// never a side effect of running the lab, whose runs land in the ignored
// results/local/.
func runPublish(args []string, stdout, stderr io.Writer) int {
	fset := flag.NewFlagSet("loadgen publish", flag.ContinueOnError)
	fset.SetOutput(stderr)
	to := fset.String("to", publishedDir, "the folder to publish into; its "+report.IndexName+" is refreshed")
	fset.Usage = func() {
		fmt.Fprintf(stderr, "usage: loadgen publish [-to DIR] [RUN.json ...]\n\n"+
			"Copies each run's files (RUN.json, its .md and .html and its charts' folder) into the published\n"+
			"folder, to be committed, and refreshes its history page. With no RUN, the newest run in %s/.\n"+
			"A run of an older lab whose latency histograms are arrays of bucket counts is written with them\n"+
			"compressed: the same buckets, a fraction of the size.\n\n", localDir)
		fset.PrintDefaults()
	}
	if code := parseFlags(fset, args); code >= 0 {
		return code
	}
	runs := fset.Args()
	if len(runs) == 0 {
		newest, err := newestJSON(defaultOut())
		if err != nil {
			fmt.Fprintf(stderr, "loadgen publish: nothing to publish: %v (run the lab first: make lab)\n", err)
			return exitUsage
		}
		runs = []string{newest}
	}
	// Every run is checked, and compacted where it must be, before
	// anything is copied.
	compacted := make([]*result.Run, len(runs))
	for i, f := range runs {
		run, err := committable(f)
		if err != nil {
			fmt.Fprintf(stderr, "loadgen publish: %v\n", err)
			return exitUsage
		}
		compacted[i] = run
	}
	if err := os.MkdirAll(*to, 0o755); err != nil {
		fmt.Fprintf(stderr, "loadgen publish: %v\n", err)
		return exitFailure
	}
	for i, f := range runs {
		paths, err := publishRun(f, *to, compacted[i])
		for _, p := range paths {
			fmt.Fprintln(stdout, "wrote", p)
		}
		if err != nil {
			fmt.Fprintf(stderr, "loadgen publish: %v\n", err)
			return exitFailure
		}
	}
	index := filepath.Join(*to, report.IndexName)
	base, _ := readBaseline(filepath.Join(*to, "baseline")) // none there: every gated ratio leads
	n, err := writeHistory(index, []string{*to}, base)
	if err != nil {
		fmt.Fprintf(stderr, "loadgen publish: the history page was not refreshed: %v\n", err)
		return exitFailure
	}
	fmt.Fprintf(stdout, "wrote %s (%d runs)\n", index, n)
	return exitOK
}

// publishRun copies the files of the run whose JSON is at path into dir:
// <stem>.json (compacted instead, when not nil: see committable),
// <stem>.md and <stem>.html where they are, and the charts' folder
// <stem>/. It returns the paths written. A run already in dir is left as
// it is.
func publishRun(path, dir string, compacted *result.Run) ([]string, error) {
	src := filepath.Dir(path)
	if same, err := sameDir(src, dir); err != nil || same {
		return nil, err
	}
	stem := strings.TrimSuffix(filepath.Base(path), ".json")
	var written []string
	for _, ext := range []string{".json", ".md", ".html"} {
		from := filepath.Join(src, stem+ext)
		if ext != ".json" {
			if _, err := os.Stat(from); errors.Is(err, fs.ErrNotExist) {
				continue
			}
		}
		to := filepath.Join(dir, stem+ext)
		var err error
		if ext == ".json" && compacted != nil {
			err = result.WriteJSON(to, compacted)
		} else {
			err = copyFile(from, to)
		}
		if err != nil {
			return written, err
		}
		written = append(written, to)
	}
	charts := filepath.Join(src, stem)
	if fi, err := os.Stat(charts); err != nil || !fi.IsDir() {
		return written, nil
	}
	err := filepath.WalkDir(charts, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, p)
		if err != nil {
			return err
		}
		to := filepath.Join(dir, rel)
		if d.IsDir() {
			return os.MkdirAll(to, 0o755)
		}
		if err := copyFile(p, to); err != nil {
			return err
		}
		written = append(written, to)
		return nil
	})
	return written, err
}

// sameDir reports whether a and b are one folder.
func sameDir(a, b string) (bool, error) {
	fa, err := os.Stat(a)
	if err != nil {
		return false, err
	}
	fb, err := os.Stat(b)
	if err != nil {
		return false, err
	}
	return os.SameFile(fa, fb), nil
}

// copyFile copies from to to, through a temporary file renamed into place.
func copyFile(from, to string) error {
	data, err := os.ReadFile(from)
	if err != nil {
		return err
	}
	return result.WriteFile(to, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}
