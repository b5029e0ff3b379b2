package alternatives

import (
	"time"

	"github.com/snowlab/snowlab/lab/result"
)

// schemaVersion is the version of the alternatives result file format
// (its own, apart from result.SchemaVersion). Bump it when a field changes
// meaning.
const schemaVersion = 1

// experimentName is the value of runResult.Experiment, which tells an alternatives
// result file from the lab's other results.
const experimentName = "alternatives"

// runResult is one alternatives experiment. The file
// results/<date>-<host>-<sha>-alternatives.json holds one.
type runResult struct {
	result.Header
	Config config `json:"config"`
	Server server `json:"server"`
	// CommitLatency is the data folder's flush cost, beside which the
	// ticket row's rate is read.
	CommitLatency commitTiming   `json:"commit_latency"`
	Schemes       []schemeResult `json:"schemes"`
	Crash         crashRun       `json:"crash"`
}

// config is what every scheme was asked to do.
type config struct {
	Clients  []int         `json:"clients"`
	Duration time.Duration `json:"duration_ns"`
	// Demand is the fleet's IDs/s, shared evenly by the clients; 0: every
	// client as fast as it can.
	Demand float64 `json:"demand_per_sec"`
	// MaxIDs caps the IDs recorded per run (a faster run stops early).
	MaxIDs int `json:"max_ids"`
	// Skew is the largest clock offset of a snowlab client: offsets are
	// spread evenly over [-Skew, +Skew].
	Skew          time.Duration `json:"skew_ns"`
	PrefetchShare float64       `json:"prefetch_share"`
	Schemes       []string      `json:"schemes"`
	CrashClients  int           `json:"crash_clients"`
	CrashAfter    time.Duration `json:"crash_after_ns"`
	FsyncSeconds  int           `json:"fsync_seconds"`
	// Snowidd is the base URL of the replica the snowidd schemes called
	// ("" when there was none), SnowiddNote what it was.
	Snowidd     string `json:"snowidd,omitempty"`
	SnowiddNote string `json:"snowidd_note,omitempty"`
}

// schemeResult is one scheme at every number of clients.
type schemeResult struct {
	Scheme schemeSpec   `json:"scheme"`
	Name   string       `json:"name"`
	Points []sweepPoint `json:"points"`
	// Skipped says why the scheme did not run (it has no points then).
	Skipped string `json:"skipped,omitempty"`
}
