package cli

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"

	"github.com/snowlab/snowlab/lab/internal/workload"
	"github.com/snowlab/snowlab/lab/result"
)

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
