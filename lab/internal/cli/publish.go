package cli

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/snowlab/snowlab/lab/internal/experiment"
	"github.com/snowlab/snowlab/lab/internal/report"
	"github.com/snowlab/snowlab/lab/internal/resultdir"
	"github.com/snowlab/snowlab/lab/internal/workload"
	"github.com/snowlab/snowlab/lab/result"
)

// publishCmd copies runs into the published folder (results/) and
// refreshes its history page: committing a run is this deliberate step,
// never a side effect of running the lab, whose runs land in the ignored
// results/local/.
func publishCmd(fs *flag.FlagSet) command {
	to := fs.String("to", resultdir.Published, "the folder to publish into; its "+report.IndexName+" is refreshed")
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "usage: loadgen publish [-to DIR] [RUN.json ...]\n\n"+
			"Copies each run's files (RUN.json, its .md and .html and its charts' folder) into the published\n"+
			"folder, to be committed, and refreshes its history page. With no RUN, the newest run in %s/.\n"+
			"A run of an older lab whose latency histograms are arrays of bucket counts is written with them\n"+
			"compressed: the same buckets, a fraction of the size.\n\n", resultdir.Local)
		fs.PrintDefaults()
	}
	return func(args []string, stdout, _ io.Writer) error {
		plan, err := preparePublish(args)
		if err != nil {
			return experiment.Usage(err)
		}
		return plan.into(*to, stdout)
	}
}

// publishPlan is the runs loadgen publish copies into the published
// folder, each checked and compacted where it must be (committable)
// before anything is copied.
type publishPlan struct {
	runs      []string
	compacted []*result.Run
}

// preparePublish checks the result files runs names (none: the newest in the
// local folder). Its errors are about what was named, in one line.
func preparePublish(runs []string) (publishPlan, error) {
	if len(runs) == 0 {
		newest, err := resultdir.NewestJSON(resultdir.DefaultOut())
		if err != nil {
			return publishPlan{}, fmt.Errorf("nothing to publish: %v (run the lab first: make lab)", err)
		}
		runs = []string{newest}
	}
	p := publishPlan{runs: runs, compacted: make([]*result.Run, len(runs))}
	for i, f := range runs {
		run, err := committable(f)
		if err != nil {
			return publishPlan{}, err
		}
		p.compacted[i] = run
	}
	return p, nil
}

// into copies the runs into dir, saying each file written on w, and
// refreshes dir's history page, the ratios of the baseline in
// dir/baseline first (every gated ratio when there is none).
func (p publishPlan) into(dir string, w io.Writer) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for i, f := range p.runs {
		paths, err := publishRun(f, dir, p.compacted[i])
		for _, path := range paths {
			fmt.Fprintln(w, "wrote", path)
		}
		if err != nil {
			return err
		}
	}
	index := filepath.Join(dir, report.IndexName)
	base, _ := resultdir.ReadBaseline(filepath.Join(dir, "baseline")) // none there: every gated ratio leads
	h, err := historyPage{index, []string{dir}, base}.write()
	if err != nil {
		return fmt.Errorf("the history page was not refreshed: %w", err)
	}
	fmt.Fprintf(w, "wrote %s (%d runs)\n", index, len(h.Runs))
	return nil
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
			err = resultdir.WriteJSON(to, compacted)
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
	return resultdir.WriteFile(to, data)
}

// committable checks the result file at path before it is published and
// returns the run to write in its place, or nil to copy the file as it
// is: an experiment's result, or a suite run whose histograms are stored
// compressed already. A run of an older lab that stored them as arrays
// of bucket counts (13 MB a suite run) is returned with them compressed
// (workload.Compact: the same buckets, a few hundred bytes each), so
// that what is committed stays small. Rewriting the file keeps only the
// fields this lab knows, so a file holding any other is refused rather
// than published with them dropped.
func committable(path string) (*result.Run, error) {
	run, err := result.Read(path)
	if errors.Is(err, result.ErrExperiment) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	n, err := workload.Compact(run)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if n == 0 {
		return nil, nil
	}
	if err := knownFields(path); err != nil {
		return nil, err
	}
	return run, nil
}

// knownFields reports an error naming the first field of the suite run
// at path that result.Run does not hold.
func knownFields(path string) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(new(result.Run)); err != nil {
		return fmt.Errorf("%s: its histograms need compacting, and rewriting it would drop what this lab does not read: %v", path, err)
	}
	return nil
}
