package result

import "time"

// Header opens every experiment's result file (loadgen faults,
// loadgen gates): which experiment and schema, when, by what command
// at which commit, on which host. An experiment's result type embeds it,
// so its JSON keys sit at the top level of the file beside the
// experiment's own.
type Header struct {
	Schema     int           `json:"schema"`
	Experiment string        `json:"experiment"`
	Started    time.Time     `json:"started"`
	Elapsed    time.Duration `json:"elapsed_ns"`
	Command    []string      `json:"command"`
	Commit     string        `json:"commit"`
	Dirty      bool          `json:"dirty,omitempty"` // the tree had uncommitted changes
	Host       Host          `json:"host"`
}
