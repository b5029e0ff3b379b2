// Package resultdir writes the lab's result files and says where they go:
// an experiment's header with the host probed and the command redacted
// (NewHeader), the files' names (Stem, ExperimentStem), JSON and reports
// written whole or not at all (WriteJSON, WriteFile), and the folders,
// relative to the folder loadgen runs in (the checkout's root, as make
// runs it), with the runs in them. Every run lands in Local, which .gitignore leaves out, so
// that running the lab never dirties the checkout; Published holds the
// runs committed on purpose (loadgen publish copies one there and
// refreshes its history page), and Baseline the run the regression gate
// compares with.
package resultdir

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"

	"github.com/snowlab/snowlab/lab/result"
)

// The folders, slash-separated.
const (
	Published = "results"
	Local     = "results/local"
	Baseline  = "results/baseline"
)

// DefaultOut is the folder a subcommand writes its result files into
// unless told otherwise (-out): the ignored local folder.
func DefaultOut() string { return filepath.FromSlash(Local) }

// HistorySources are the folders whose runs the history page of out
// shows: the local folder's page also shows the published runs, so that
// it is the whole history; any other folder's shows its own.
func HistorySources(out string) []string {
	if fi, err := os.Stat(Published); err == nil && fi.IsDir() && filepath.Clean(out) == DefaultOut() {
		return []string{Published, out}
	}
	return []string{out}
}

// ReadBaseline reads the baseline run at path: a result file, or the
// newest .json in a folder.
func ReadBaseline(path string) (*result.Run, error) {
	fi, err := os.Stat(path)
	if err == nil && fi.IsDir() {
		path, err = NewestJSON(path)
	}
	if err != nil {
		return nil, err
	}
	return result.Read(path)
}

// NewestJSON is the most recently named .json file in dir (result names
// start with a UTC timestamp, so name order is time order).
func NewestJSON(dir string) (string, error) {
	matches, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil {
		return "", err
	}
	if len(matches) == 0 {
		return "", fmt.Errorf("no .json run in %s: %w", dir, fs.ErrNotExist)
	}
	return slices.Max(matches), nil
}
