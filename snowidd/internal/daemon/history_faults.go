//go:build snowidd_faults

package daemon

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/snowlab/snowlab"
	"github.com/snowlab/snowlab/etcdlease"
	"github.com/snowlab/snowlab/nodeid"
)

// FaultHistoryEnv names the file a fault-injection build appends its
// lease's store operations to, for the fault lab's Porcupine check
// (lab/internal/experiment/faults, StoreOp): a JSON line when an
// operation is called and another when it returns, with the same id, so
// that an operation the replica was killed in shows as called and never
// answered. An etcd store's renewals (its keep-alive answers,
// etcdlease.Renewal) are recorded too, as renew operations called at
// the renewal's Since and answered when the answer came. Times are the
// host's wall clock (time.Now), not the stepped clock: the lab orders
// operations of every replica on it. Unset: no history.
const FaultHistoryEnv = "SNOWIDD_FAULT_HISTORY"

// historyLine is one line of the history file.
type historyLine struct {
	ID      string `json:"id"`
	Op      string `json:"op,omitempty"`
	First   int    `json:"first"`
	Count   int    `json:"count"`
	Token   int64  `json:"token,omitempty"`
	Floor   int64  `json:"floor,omitempty"`
	Value   int64  `json:"value,omitempty"`
	Call    int64  `json:"call,omitempty"`
	Return  int64  `json:"return,omitempty"`
	Outcome string `json:"outcome,omitempty"`
}

// historyFile appends lines, one write each, so that a kill -9 leaves
// every line written whole.
type historyFile struct {
	mu   sync.Mutex
	f    *os.File
	run  string // this process's part of every id: restarts append to one file
	next atomic.Int64
}

func (h *historyFile) write(l historyLine) {
	b, _ := json.Marshal(l)
	h.mu.Lock()
	defer h.mu.Unlock()
	_, _ = h.f.Write(append(b, '\n'))
}

// begin writes op's call line and returns its return line to fill.
func (h *historyFile) begin(op string, first, count int, token, value int64) historyLine {
	return h.called(op, first, count, token, value, time.Now())
}

// called writes the call line of op, called at call, and returns its
// return line to fill.
func (h *historyFile) called(op string, first, count int, token, value int64, call time.Time) historyLine {
	id := h.run + "-" + strconv.FormatInt(h.next.Add(1), 10)
	h.write(historyLine{ID: id, Op: op, First: first, Count: count, Token: token, Value: value, Call: call.UnixNano()})
	return historyLine{ID: id, First: first, Count: count}
}

// renewed records an etcd keep-alive answer as a renew operation.
func (h *historyFile) renewed(r etcdlease.Renewal) {
	l := h.called("renew", r.First, r.Count, r.Token, int64(r.TTL), r.Since)
	l.Return, l.Outcome = r.Received.UnixNano(), "ok"
	h.write(l)
}

// end writes op's return line with err's outcome.
func (h *historyFile) end(l historyLine, err error) {
	l.Return = time.Now().UnixNano()
	switch {
	case err == nil:
		l.Outcome = "ok"
	case errors.Is(err, nodeid.ErrLost):
		l.Outcome = "lost"
	case errors.Is(err, nodeid.ErrNoFreeNode):
		l.Outcome = "nofree"
	default:
		l.Outcome = "error"
	}
	h.write(l)
}

// recordStore wraps s so that its operations go to the history file
// FaultHistoryEnv names; s as it is when it names none.
func recordStore(s nodeid.Store) (nodeid.Store, error) {
	path := os.Getenv(FaultHistoryEnv)
	if path == "" {
		return s, nil
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, fmt.Errorf("snowidd: %s: %v", FaultHistoryEnv, err)
	}
	h := &historyFile{f: f, run: strconv.FormatInt(time.Now().UnixNano(), 36)}
	if o, ok := s.(renewalObserver); ok {
		o.ObserveRenewals(h.renewed)
	}
	return recordingStore{s: s, h: h}, nil
}

// renewalObserver is a store that tells of the renewals it makes on its
// own (etcdlease.Store).
type renewalObserver interface {
	ObserveRenewals(func(etcdlease.Renewal))
}

type recordingStore struct {
	s nodeid.Store
	h *historyFile
}

func (r recordingStore) Acquire(ctx context.Context, layout snowlab.Layout, count, maxNode int) (nodeid.Claim, error) {
	l := r.h.begin("acquire", -1, count, 0, 0)
	c, err := r.s.Acquire(ctx, layout, count, maxNode)
	if err == nil {
		l.First, l.Token, l.Floor = c.First(), c.Token(), c.Floor()
		c = recordingClaim{Claim: c, h: r.h}
	}
	r.h.end(l, err)
	return c, err
}

// recordingClaim records Reserve and Release.
type recordingClaim struct {
	nodeid.Claim
	h *historyFile
}

func (c recordingClaim) Reserve(ctx context.Context, until int64) error {
	l := c.h.begin("reserve", c.First(), c.Count(), c.Token(), until)
	err := c.Claim.Reserve(ctx, until)
	c.h.end(l, err)
	return err
}

func (c recordingClaim) Release(ctx context.Context, until int64) error {
	l := c.h.begin("release", c.First(), c.Count(), c.Token(), until)
	err := c.Claim.Release(ctx, until)
	c.h.end(l, err)
	return err
}
