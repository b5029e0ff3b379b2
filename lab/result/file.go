package result

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"slices"
)

// ErrExperiment is wrapped by Read's error about an experiment's result
// file (loadgen faults', loadgen gates'): it parses as a suite run with
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
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	if err := json.Unmarshal(data, &file); err != nil {
		return nil, fmt.Errorf("%s: not a lab result: %w", path, err)
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
