package btree

import "github.com/snowlab/snowlab/lab/internal/resultdir"

// What only this package's tests call, kept out of the build.

func (s *keySet) len() int {
	if s.kind.wide() {
		return len(s.wide)
	}
	return len(s.ints)
}

// readResult reads a B-tree result file, refusing one of another schema.
func readResult(path string) (*runResult, error) {
	var run runResult
	if err := resultdir.ReadExperiment(path, experimentName, schemaVersion, &run); err != nil {
		return nil, err
	}
	return &run, nil
}
