package result

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/snowlab/snowlab/lab/internal/host"
)

// ErrExperiment is wrapped by Read's error about an experiment's result
// file (loadgen btree's, loadgen alternatives'): it parses as a suite run with
// nothing measured, and would compare as one.
var ErrExperiment = errors.New("the result of an experiment, not of a suite run")

// Read reads one suite run's result file. It refuses a file of a schema
// version it does not know (its figures may mean something else), and an
// experiment's result (ErrExperiment, naming the experiment).
func Read(path string) (*Run, error) {
	var file struct {
		Run
		Experiment string `json:"experiment"`
	}
	if err := ReadJSON(path, "a lab result", &file); err != nil {
		return nil, err
	}
	if file.Experiment != "" {
		return nil, fmt.Errorf("%s: %w (experiment %q)", path, ErrExperiment, file.Experiment)
	}
	run := file.Run
	if !slices.Contains(readableSchemas, run.Schema) {
		return nil, fmt.Errorf("%s: result schema version %d, this lab reads version %d (and %v); re-run it or compare it with the lab that wrote it",
			path, run.Schema, SchemaVersion, readableSchemas)
	}
	return &run, nil
}

// ReadJSON reads the JSON file at path into v; what names the kind of
// file expected in the error when it does not parse.
func ReadJSON(path, what string, v any) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(data, v); err != nil {
		return fmt.Errorf("%s: not %s: %w", path, what, err)
	}
	return nil
}

// WriteJSON writes v as indented JSON to path, through a temporary file
// renamed into place so that a crash never leaves half a result.
func WriteJSON(path string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, append(b, '\n'), 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

// WriteFile writes what write writes to path, through a temporary file
// renamed into place, as WriteJSON does.
func WriteFile(path string, write func(io.Writer) error) error {
	tmp := path + ".tmp"
	f, err := os.Create(tmp)
	if err != nil {
		return err
	}
	err = write(f)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		os.Remove(tmp)
	}
	return err
}

// Stem names a run's files: <date>-<host>-<short sha>. Whether the tree
// was dirty is in the file, not its name (a commit recorded by an older
// lab as "<sha>+dirty" is named "<sha>-dirty", no sha "nosha"). An
// experiment with files of its own (loadgen btree) appends a suffix.
func Stem(started time.Time, h host.Fingerprint, commit string) string {
	sha := commit
	if sha == "" {
		sha = "nosha"
	}
	sha = strings.NewReplacer("+", "-", "/", "-").Replace(sha)
	return fmt.Sprintf("%s-%s-%s", started.UTC().Format("20060102T150405Z"), h.Slug(), sha)
}

// Stem names the run's files (see the function Stem).
func (r *Run) Stem() string { return Stem(r.Started, r.Host, r.Commit) }

// WriteFiles writes one run of the lab or of an experiment into dir:
// v as <stem>.json, what markdown writes as <stem>.md, and what charts
// draws into the folder <stem>/ (charts creates it when it has something
// to draw; nil for none). It returns the paths written, also those
// written before an error.
func WriteFiles(dir, stem string, v any, markdown func(io.Writer) error, charts func(dir string) ([]string, error)) ([]string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	base := filepath.Join(dir, stem)
	var paths []string
	if err := WriteJSON(base+".json", v); err != nil {
		return nil, err
	}
	paths = append(paths, base+".json")
	if err := WriteFile(base+".md", markdown); err != nil {
		return paths, err
	}
	paths = append(paths, base+".md")
	if charts == nil {
		return paths, nil
	}
	written, err := charts(base)
	return append(paths, written...), err
}
