package faults

import (
	"bufio"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"os"
	"slices"
	"time"

	"github.com/anishathalye/porcupine"
)

// errHistory: a store history file that cannot be read.
var errHistory = errors.New("faults: bad store history")

// storeOp is one operation a replica's lease made on its store, as a
// fault-injection build of snowidd records it (SNOWIDD_FAULT_HISTORY: a
// JSON line when the operation is called, another with the same id when
// it returns): which, on which node ids, with what, when it was called
// and when it returned (Unix nanoseconds on the host's wall clock, which
// every process of the rig shares), and how it ended.
type storeOp struct {
	Replica string `json:"replica,omitempty"` // set by the rig
	ID      string `json:"id"`
	// Op is acquire, reserve, release, or renew: a keep-alive answer
	// of etcd's for the claim's etcd lease (etcdlease.Renewal: called at
	// an instant before etcd renewed it, answered when the answer came),
	// which happens inside the store, unseen through nodeid.Store.
	Op    string `json:"op,omitempty"`
	First int    `json:"first"`
	Count int    `json:"count"`
	Token int64  `json:"token,omitempty"`
	Floor int64  `json:"floor,omitempty"` // acquire's answer
	Value int64  `json:"value,omitempty"` // reserve's or release's until; renew's TTL (ns)
	Call  int64  `json:"call,omitempty"`
	// Return is when the answer came; math.MaxInt64 when none did (the
	// replica was killed in the call).
	Return int64 `json:"return,omitempty"`
	// Outcome is ok, lost (the store refused: the claim is gone), nofree
	// (acquire found no free node id), or error (no verdict from the
	// store, or no answer: the operation may or may not have happened).
	Outcome string `json:"outcome,omitempty"`
}

// The outcomes of a storeOp.
const (
	storeOutcomeOK     = "ok"
	storeOutcomeLost   = "lost"
	storeOutcomeNoFree = "nofree"
	storeOutcomeError  = "error"
)

// readStoreOps reads a replica's history file: each call line, with
// what its return line (the line with the same id) adds, in the order
// called. An operation never answered returns at math.MaxInt64 with
// outcome error.
func readStoreOps(r io.Reader, replica string) ([]storeOp, error) {
	var ops []storeOp
	byID := map[string]int{}
	sc := bufio.NewScanner(r)
	for line := 1; sc.Scan(); line++ {
		var l storeOp
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			return nil, fmt.Errorf("%w: %s line %d: %v", errHistory, replica, line, err)
		}
		i, ok := byID[l.ID]
		switch {
		case l.Op != "" && !ok:
			l.Replica, l.Return, l.Outcome = replica, math.MaxInt64, storeOutcomeError
			byID[l.ID] = len(ops)
			ops = append(ops, l)
		case l.Op == "" && ok && ops[i].Return == math.MaxInt64:
			op := &ops[i]
			op.Return, op.Outcome = l.Return, l.Outcome
			if op.Op == "acquire" {
				op.First, op.Count, op.Token, op.Floor = l.First, l.Count, l.Token, l.Floor
			}
		default:
			return nil, fmt.Errorf("%w: %s line %d: id %q: a call seen twice, or a return without its call", errHistory, replica, line, l.ID)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%w: %s: %v", errHistory, replica, err)
	}
	return ops, nil
}

// storeState is what the sequential store keeps for one node id: the
// generation (token) of its last holder, whether that holder still holds
// it, the floor that holder was handed and the reserved-until.
type storeState struct {
	known    bool // false until the history's first acquire of the id
	token    int64
	held     bool
	floor    int64
	reserved int64
}

// storeModel is the store nodeid.Store describes, for one node id
// (Porcupine partitions the history by node id), nondeterministic where
// the store may act unseen: a hold can expire at any moment (so a claim
// may be lost, and a new acquire may succeed on a held id), and an
// operation without a verdict may or may not have happened. What it
// insists on is what uniqueness rests on: an acquire hands out a newer
// token and, as the floor, the reserved-until the store holds then; a
// reserve, release or renewal succeeds only for the current holder;
// reserve only moves reserved-until forward.
var storeModel = porcupine.NondeterministicModel{
	Partition: partitionByNode,
	Init:      func() []any { return []any{storeState{}} },
	Step: func(state, input, output any) []any {
		return storeStep(state.(storeState), input.(storeOp))
	},
}

// storeStep is the states the store can be in after op from s (none: op
// cannot have happened then).
func storeStep(s storeState, op storeOp) []any {
	mine := s.held && s.token == op.Token
	switch op.Op {
	case "acquire":
		if op.Outcome != storeOutcomeOK {
			return []any{s} // an acquire that fails or has no answer is not partitioned here
		}
		if s.known && (op.Token <= s.token || op.Floor != s.reserved) {
			return nil
		}
		return []any{storeState{known: true, token: op.Token, held: true, floor: op.Floor, reserved: op.Floor}}
	case "renew":
		// Only answered renewals are recorded: etcd renewed a lease
		// whose node keys the claim still held.
		if s.known && !mine && op.Outcome == storeOutcomeOK {
			return nil
		}
		return []any{s}
	case "reserve", "release":
		if !s.known {
			return []any{s} // a holder from before the history began
		}
		done := s
		if mine {
			done.reserved = max(s.reserved, op.Value)
			if op.Op == "release" {
				done = storeState{known: true, token: s.token, reserved: max(op.Value, s.floor)}
			}
		}
		switch op.Outcome {
		case storeOutcomeOK:
			if !mine {
				return nil
			}
			return []any{done}
		case storeOutcomeLost:
			gone := s
			gone.held = gone.held && !mine // expired unseen, if it was this holder's
			return []any{gone}
		default:
			return []any{s, done}
		}
	}
	return nil
}

// partitionByNode splits a history by node id (an op's First).
func partitionByNode(history []porcupine.Operation) [][]porcupine.Operation {
	byNode := map[int][]porcupine.Operation{}
	for _, op := range history {
		n := op.Input.(storeOp).First
		byNode[n] = append(byNode[n], op)
	}
	var parts [][]porcupine.Operation
	for _, n := range slices.Sorted(maps.Keys(byNode)) {
		parts = append(parts, byNode[n])
	}
	return parts
}

// checkStoreOps checks ops with Porcupine against the sequential store
// and says Ok, Illegal (no order of the operations that respects real
// time is a run of the store) or Unknown (out of time). Failed acquires
// name no node id and are left out; so are ops on node ids that were
// never acquired in the history. A node id's first acquire in the
// history may carry any token and floor (it may have been held before
// the history began).
func checkStoreOps(ops []storeOp, timeout time.Duration) porcupine.CheckResult {
	acquired := map[int]bool{}
	for _, op := range ops {
		if op.Op == "acquire" && op.Outcome == storeOutcomeOK {
			acquired[op.First] = true
		}
	}
	var history []porcupine.Operation
	for i, op := range ops {
		if !acquired[op.First] || (op.Op == "acquire" && op.Outcome != storeOutcomeOK) {
			continue
		}
		history = append(history, porcupine.Operation{ClientId: i, Input: op, Output: op.Outcome, Call: op.Call, Return: op.Return})
	}
	return porcupine.CheckOperationsTimeout(storeModel.ToModel(), history, timeout)
}

// receivedID is one ID a client received: from which call (sent at Call,
// answered at Return, Unix nanoseconds) and its node id.
type receivedID struct {
	ID           uint64
	Node         int
	Call, Return int64
}

// checkIDs is the ID half of the history check, independent of the
// rig's own counts: no ID is received twice, fleet-wide; and per node
// id, an ID whose call began after another's answer arrived is above it
// (the node id's IDs grow in real time, across every hand-off of the
// node id between replicas). It returns a line per violation, at most
// limit of them, and how many there were.
//
// A scenario receives 0.4 to 1.8 million IDs. A map of every ID and two
// sorts of every receivedID (sort.Slice) took about 4 s a scenario under
// the race detector on 2 cores, which is most of why make test-faults'
// scenarios grew from about 21 to 25 s each; sorting the bare IDs and
// comparing per call (consecutive IDs of one call on one node id share
// their times: a few thousand calls) takes well under a second.
func checkIDs(ids []receivedID, limit int) (lines []string, n int) {
	report := func(format string, args ...any) {
		n++
		if len(lines) < limit {
			lines = append(lines, fmt.Sprintf(format, args...))
		}
	}
	sorted := make([]uint64, len(ids))
	for i, id := range ids {
		sorted[i] = id.ID
	}
	slices.Sort(sorted)
	for i := 1; i < len(sorted); i++ {
		if sorted[i] == sorted[i-1] {
			report("ID %d received twice", sorted[i])
		}
	}
	calls := idCalls(ids)
	byReturn := slices.Clone(calls)
	slices.SortFunc(byReturn, func(x, y idCall) int { return cmp.Compare(x.ret, y.ret) })
	slices.SortFunc(calls, func(x, y idCall) int { return cmp.Compare(x.call, y.call) })
	highest := map[int]idCall{} // per node id, the call that answered the highest ID so far
	j := 0
	for _, b := range calls {
		for ; j < len(byReturn) && byReturn[j].ret < b.call; j++ {
			if h, ok := highest[byReturn[j].node]; !ok || byReturn[j].hi > h.hi {
				highest[byReturn[j].node] = byReturn[j]
			}
		}
		h, ok := highest[b.node]
		if !ok || b.lo > h.hi {
			continue
		}
		for _, id := range ids[b.first:b.end] {
			if id.ID <= h.hi {
				report("node %d: ID %d, called %s after ID %d was answered, is not above it",
					b.node, id.ID, time.Duration(b.call-h.ret), h.hi)
			}
		}
	}
	return lines, n
}

// idCall is a run of consecutive ReceivedIDs with one node id and one
// call and return time (one call's IDs on one node id): ids[first:end],
// the lowest lo and the highest hi.
type idCall struct {
	node       int
	call, ret  int64
	lo, hi     uint64
	first, end int
}

func idCalls(ids []receivedID) []idCall {
	var out []idCall
	for i, id := range ids {
		if k := len(out) - 1; k >= 0 && out[k].node == id.Node && out[k].call == id.Call && out[k].ret == id.Return {
			out[k].lo, out[k].hi, out[k].end = min(out[k].lo, id.ID), max(out[k].hi, id.ID), i+1
			continue
		}
		out = append(out, idCall{node: id.Node, call: id.Call, ret: id.Return, lo: id.ID, hi: id.ID, first: i, end: i + 1})
	}
	return out
}

// historyCheck is a scenario's history check: Porcupine's verdict on the
// store operations every replica recorded, and checkIDs' on the IDs the
// clients received.
type historyCheck struct {
	// Ops is how many store operations the replicas recorded, Renewals
	// how many of them were etcd's renewals of their leases.
	Ops      int `json:"ops"`
	Renewals int `json:"renewals,omitempty"`
	// Porcupine is Ok, Illegal or Unknown (out of time); "no history"
	// when a fault-injection build recorded none or it cannot be read,
	// with Error saying why; "not recorded" for a build without the
	// hook (its IDs are still checked).
	Porcupine string `json:"porcupine"`
	Error     string `json:"error,omitempty"`
	// IDs checked, and the violations checkIDs found, a few shown.
	IDs          int      `json:"ids"`
	IDViolations int      `json:"id_violations"`
	Examples     []string `json:"examples,omitempty"`
}

// failed says whether the check found something wrong, or could not run.
func (h *historyCheck) failed() bool {
	return (h.Porcupine != string(porcupine.Ok) && h.Porcupine != notRecorded) || h.IDViolations > 0
}

// notRecorded is historyCheck.Porcupine for a replica build that records
// no history.
const notRecorded = "not recorded"

func (h *historyCheck) String() string {
	s := fmt.Sprintf("Porcupine %s on %d store operations (%d renewals)", h.Porcupine, h.Ops, h.Renewals)
	if h.Error != "" {
		s += " (" + h.Error + ")"
	}
	return s + fmt.Sprintf(", %d ID violations in %d IDs %v", h.IDViolations, h.IDs, h.Examples)
}

// historyTimeout bounds Porcupine's search per scenario: a scenario's
// few hundred store operations on a handful of node ids check in
// milliseconds; a search that runs out says Unknown, which fails the
// scenario rather than passing it.
const historyTimeout = 30 * time.Second

// checkHistory reads every replica's store history and checks it and
// the IDs a received.
func (s *stage) checkHistory(a *analysis) *historyCheck {
	h := &historyCheck{}
	var ops []storeOp
	files := 0 // a fault-injection build creates its file as it starts
	for _, r := range s.reps {
		if r.history == "" {
			continue
		}
		f, err := os.Open(r.history)
		if errors.Is(err, os.ErrNotExist) {
			continue // never started (a spare), or a build without the hook
		}
		if err != nil {
			h.Porcupine, h.Error = "no history", err.Error()
			return h
		}
		files++
		more, err := readStoreOps(f, r.Name)
		f.Close()
		if err != nil {
			h.Porcupine, h.Error = "no history", err.Error()
			return h
		}
		ops = append(ops, more...)
	}
	h.Ops = len(ops)
	for _, op := range ops {
		if op.Op == "renew" {
			h.Renewals++
		}
	}
	switch {
	case files == 0:
		h.Porcupine = notRecorded
	case len(ops) == 0:
		h.Porcupine, h.Error = "no history", "the replicas' history files hold no store operation"
	case s.sc.Store == "" && h.Renewals == 0:
		// On etcd a replica's lease is renewed a third of its TTL after
		// it is granted, and every scenario holds leases for seconds.
		h.Porcupine, h.Error = "no history", "the replicas' history files hold no renewal of an etcd lease"
	default:
		h.Porcupine = string(checkStoreOps(ops, historyTimeout))
	}
	n := 0
	for _, c := range a.callers {
		n += len(c.ids) // every ID of its served calls
	}
	ids := make([]receivedID, 0, n)
	for _, c := range a.callers {
		for _, sv := range c.served {
			for _, v := range c.ids[sv.first : sv.first+sv.n] {
				ids = append(ids, receivedID{ID: uint64(v), Node: a.layout.Decode(v).Node, Call: sv.call.UnixNano(), Return: sv.at.UnixNano()})
			}
		}
	}
	h.IDs = len(ids)
	h.Examples, h.IDViolations = checkIDs(ids, maxExamples)
	return h
}
