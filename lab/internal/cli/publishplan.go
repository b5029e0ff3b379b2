package cli

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/snowlab/snowlab/lab/internal/report"
	"github.com/snowlab/snowlab/lab/internal/resultdir"
	"github.com/snowlab/snowlab/lab/result"
)

// publishPlan is the runs loadgen publish copies into the published
// folder, refreshing its history page (committing a run is this
// deliberate step, never a side effect of running the lab, whose runs
// land in the ignored local folder), each checked and compacted where it
// must be (committable) before anything is copied.
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
