package result

import (
	"fmt"
	"time"

	"github.com/snowlab/snowlab/lab/internal/host"
	"github.com/snowlab/snowlab/lab/internal/redact"
)

// Header opens every experiment's result file (loadgen btree,
// loadgen alternatives): which experiment and schema, when, by what command
// at which commit, on which host. An experiment's result type embeds it,
// so its JSON keys sit at the top level of the file beside the
// experiment's own.
type Header struct {
	Schema     int              `json:"schema"`
	Experiment string           `json:"experiment"`
	Started    time.Time        `json:"started"`
	Elapsed    time.Duration    `json:"elapsed_ns"`
	Command    []string         `json:"command"`
	Commit     string           `json:"commit"`
	Dirty      bool             `json:"dirty,omitempty"` // the tree had uncommitted changes
	Host       host.Fingerprint `json:"host"`
}

// NewHeader begins the header of an experiment starting now, on host h
// (probed here when nil). The command is redacted: a result file is
// committed, and a DSN's password must not be.
func NewHeader(experiment string, schema int, command []string, commit string, dirty bool, h *host.Fingerprint) Header {
	hd := Header{Schema: schema, Experiment: experiment, Started: time.Now().UTC(),
		Command: redact.Args(command), Commit: commit, Dirty: dirty}
	if h != nil {
		hd.Host = *h
	} else {
		hd.Host = host.Probe()
	}
	return hd
}

// Stem names the experiment's files: <date>-<host>-<sha>-<experiment>.
func (h *Header) Stem() string { return Stem(h.Started, h.Host, h.Commit) + "-" + h.Experiment }

// ReadExperiment reads the result file at path into v, whose Header must
// name experiment and schema: a file of another experiment or schema is
// refused, naming what it holds.
func ReadExperiment(path, experiment string, schema int, v interface{ header() *Header }) error {
	if err := ReadJSON(path, fmt.Sprintf("a %s result", experiment), v); err != nil {
		return err
	}
	h := v.header()
	if h.Experiment != experiment {
		return fmt.Errorf("%s: not a %s result (experiment %q)", path, experiment, h.Experiment)
	}
	if h.Schema != schema {
		return fmt.Errorf("%s: %s result schema %d, this lab reads %d", path, experiment, h.Schema, schema)
	}
	return nil
}

func (h *Header) header() *Header { return h }
