package faults

import (
	"time"

	"github.com/snowlab/snowlab/lab/result"
)

// experimentName names the fault lab's result files: <stem>-faults.json.
const experimentName = "faults"

// schemaVersion is the version of Result's JSON.
const schemaVersion = 1

// runResult is one run of the fault lab: every scenario run, with its figures.
type runResult struct {
	result.Header
	Config    config           `json:"config"`
	Scenarios []scenarioResult `json:"scenarios"`
	// Failures are what the run found wrong: a duplicate, an order
	// broken, a check failed, a bound exceeded, a scenario that could
	// not run to its end. The run passes when there are none.
	Failures []string `json:"failures,omitempty"`
}

// config is how the rig ran the replicas and etcd.
type config struct {
	// TTL, Window and Refresh are every replica's -ttl, -window and the
	// lease's refresh (Window/3): the bounds the design sets.
	TTL     time.Duration `json:"ttl_ns"`
	Window  time.Duration `json:"window_ns"`
	Refresh time.Duration `json:"refresh_ns"`
	// MaxFloorWait is how long a successor's generator waits for its
	// clock to pass its predecessor's reservation (snowlab's default).
	MaxFloorWait time.Duration `json:"max_floor_wait_ns"`
	// RewindHold is every replica's -rewind-hold.
	RewindHold time.Duration `json:"rewind_hold_ns"`
	// ElectionTimeout is etcd's --election-timeout (its default).
	ElectionTimeout time.Duration `json:"election_timeout_ns"`
	// Clients is how many client goroutines call the fleet, each over
	// its own connections, the protocols in turn.
	Clients int `json:"clients"`
	// AttemptTimeout bounds a client's try on one replica.
	AttemptTimeout time.Duration `json:"attempt_timeout_ns"`
	Snowidd        string        `json:"snowidd"`
	Etcd           string        `json:"etcd"`
	EtcdVersion    string        `json:"etcd_version"`
	Holders        string        `json:"holders,omitempty"`
	// Set is the scenario set asked for: short (CI's) or full.
	Set string `json:"set"`
}

// scenarioResult is one scenario's figures.
type scenarioResult struct {
	Name  string `json:"name"`
	Title string `json:"title"`
	// Fault is what the rig did, and when (from the load's start).
	Fault    []string      `json:"fault"`
	Short    bool          `json:"short,omitempty"`
	TLS      bool          `json:"tls,omitempty"`
	Skipped  string        `json:"skipped,omitempty"` // why it did not run
	Error    string        `json:"error,omitempty"`   // why it stopped short
	Duration time.Duration `json:"duration_ns"`
	Calls    callStats     `json:"calls"`
	Replicas []replicaStat `json:"replicas,omitempty"`
	// Checks are the scenario's own claims (a zombie stopped at its
	// reservation, its successor started after it), each measured.
	Checks []check `json:"checks,omitempty"`
	// History is the independent check of the scenario's recorded store
	// operations and received IDs; nil where none was recorded.
	History *historyCheck `json:"history,omitempty"`
	// Notes are what the scenario observed and claims nothing about.
	Notes   []string       `json:"notes,omitempty"`
	Holders *holdersReport `json:"holders,omitempty"`
	// Load is what else the host did while the scenario ran.
	Load *result.Load `json:"load,omitempty"`
}

// callStats count the clients' calls.
type callStats struct {
	// Calls are the calls begun; Served those a replica answered with
	// IDs; Failed those every replica refused.
	Calls  int `json:"calls"`
	Served int `json:"served"`
	Failed int `json:"failed"`
	// Attempts are tries on one replica, by outcome: "ok", a status code
	// ("unavailable", …), "transport" (no answer: refused connection, a
	// killed replica) or "timeout".
	Attempts map[string]int `json:"attempts"`
	// IDs are the IDs the clients received, every one checked.
	IDs int `json:"ids"`
	// Duplicates are IDs received more than once (must be 0).
	Duplicates int `json:"duplicates"`
	// OrderViolations are IDs a client received from a node id that were
	// not above the one it received from that node id before (must be 0).
	OrderViolations int `json:"order_violations"`
	// Failovers are served calls that one replica had refused first;
	// FailoverMax and FailoverP99 how long those took, first try to
	// answer: the time a client's call spent finding a replica that
	// serves.
	Failovers   int           `json:"failovers"`
	FailoverMax time.Duration `json:"failover_max_ns"`
	FailoverP99 time.Duration `json:"failover_p99_ns"`
	// Examples are the first duplicates and order violations, described.
	Examples []string `json:"examples,omitempty"`
}

// replicaStat is one replica's figures.
type replicaStat struct {
	Name string `json:"name"`
	Role string `json:"role"` // what the scenario did to it
	// Nodes are the node ids its IDs carry.
	Nodes []int `json:"nodes"`
	IDs   int   `json:"ids"`
	// NotReady is the longest span its /readyz did not answer 200
	// (polled every 50 ms; a killed replica counts until it is back);
	// Refusing the longest span from a refused attempt to its next
	// served one.
	NotReady time.Duration `json:"not_ready_ns"`
	Refusing time.Duration `json:"refusing_ns"`
	// Bound is what the design allows the longer of the two, and
	// BoundWhy the terms it is made of; 0: the scenario sets none.
	Bound    time.Duration `json:"bound_ns,omitempty"`
	BoundWhy string        `json:"bound_why,omitempty"`
	Restarts int           `json:"restarts,omitempty"`
}

// within says whether the replica stayed within its bound (true when it
// has none).
func (r replicaStat) within() bool { return r.Bound == 0 || max(r.NotReady, r.Refusing) <= r.Bound }

// check is one claim a scenario measured.
type check struct {
	What     string `json:"what"`
	Measured string `json:"measured"`
	OK       bool   `json:"ok"`
}

// holdersReport is what etcdholders printed: a fleet of holders starting
// at once.
type holdersReport struct {
	Holders      int            `json:"holders"`
	Members      int            `json:"members"`
	Acquired     int            `json:"acquired"`
	AllHeld      time.Duration  `json:"all_held_ns"`
	P50          time.Duration  `json:"p50_ns"`
	P99          time.Duration  `json:"p99_ns"`
	Max          time.Duration  `json:"max_ns"`
	AcquireCalls int64          `json:"acquire_calls"`
	Conflicts    int64          `json:"conflicts"`
	Failures     map[string]int `json:"failures"`
	Lost         int            `json:"lost"`
	Shared       int            `json:"shared"`
	Distinct     int            `json:"distinct"`
}
