package conformance

import (
	"sync/atomic"
	"testing"
	"time"

	"github.com/snowlab/snowlab"
	"github.com/snowlab/snowlab/clocksrc"
	"github.com/stretchr/testify/require"
)

// epochMs is the default layout's epoch in Unix milliseconds.
const epochMs = 1704067200000

func forPolicies(t *testing.T, f func(t *testing.T, p snowlab.Policy)) {
	for _, p := range []snowlab.Policy{snowlab.Strict, snowlab.Monotonic} {
		t.Run(p.String(), func(t *testing.T) { f(t, p) })
	}
}

func (s Suite) gen(t testing.TB, cfg snowlab.Config) snowlab.Generator {
	t.Helper()
	g, err := s.New(cfg)
	require.NoError(t, err)
	return g
}

func next(t testing.TB, g snowlab.Generator) snowlab.ID {
	t.Helper()
	id, err := g.NextID()
	require.NoError(t, err)
	return id
}

// stepClock advances stepNs on every read from start (Unix ns): a fast
// fake clock that many goroutines can share.
func stepClock(startNs, stepNs int64) clocksrc.Clock {
	var reads atomic.Int64
	return clocksrc.Func(func() int64 { return startNs + reads.Add(1)*stepNs })
}

// checkOrder asserts ids are unique and increase within each shard (within
// the whole slice for a single-space generator), in the order given.
func (s Suite) checkOrder(t testing.TB, g snowlab.Generator, ids []snowlab.ID) {
	t.Helper()
	// Plain comparisons, testify only on a failure: a require call per ID
	// (reflection on each) was most of the suite's time under -race.
	last := map[int]snowlab.ID{}
	for i, id := range ids {
		key := 0
		if s.multi() {
			if key = s.ShardOf(g, id); key < 0 {
				require.FailNowf(t, "no shard", "id %d (#%d) belongs to no shard", id, i)
			}
		}
		if prev, ok := last[key]; ok && id <= prev {
			require.FailNowf(t, "not increasing", "id #%d (%d) does not increase over %d within shard %d", i, id, prev, key)
		}
		last[key] = id
	}
}

func requireUnique(t testing.TB, ids []snowlab.ID) {
	t.Helper()
	seen := make(map[snowlab.ID]int, len(ids))
	for i, id := range ids {
		if j, dup := seen[id]; dup {
			t.Fatalf("duplicate id %d at #%d and #%d", id, j, i)
		}
		seen[id] = i
	}
}

// within runs f and fails if it has not returned after limit. It guards
// against a hang only; nothing is asserted about speed.
func within(t *testing.T, limit time.Duration, f func()) {
	t.Helper()
	done := make(chan struct{})
	go func() { defer close(done); f() }()
	select {
	case <-done:
	case <-time.After(limit):
		t.Fatalf("still running after %v: a wait is unbounded", limit)
	}
}
