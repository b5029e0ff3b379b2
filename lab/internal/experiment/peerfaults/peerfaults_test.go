package peerfaults

import (
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/snowlab/snowlab/lab/internal/peers"
	"github.com/snowlab/snowlab/lab/result"
)

// someday is when the virtual runs take place: a bubble starts in 2000,
// before snowlab's epoch.
var someday = time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC)

// runVirtual plays the scenarios in a testing/synctest bubble, where time
// moves only when every goroutine waits: each wait (a pace, a floor, a
// rewind, a lease's refresh) takes exactly its length, so every figure
// is exact and the seconds of Leaf's scenario take none.
func runVirtual(t *testing.T, perMs, restarts int, names ...string) *runResult {
	t.Helper()
	var res *runResult
	dir := t.TempDir()
	synctest.Test(t, func(t *testing.T) {
		time.Sleep(time.Until(someday))
		var err error
		res, err = execute(t.Context(), options{Scenarios: names, PerMs: perMs, Restarts: restarts, Dir: dir,
			Clock: "virtual", Host: &result.Host{Hostname: "test"}})
		require.NoError(t, err)
	})
	return res
}

func rowOf(t *testing.T, res *runResult, scenario, side, subject string) subjectRow {
	t.Helper()
	for _, r := range res.Rows {
		if r.Scenario == scenario && r.Side == side && strings.HasPrefix(r.Subject, subject) {
			return r
		}
	}
	require.Failf(t, "no row", "%s %s %s", scenario, side, subject)
	return subjectRow{}
}

// TestReplays plays every scenario in virtual time and holds each row to
// its exact figures: it fails if any snowlab composition ever repeats an
// ID or breaks an order it promises, and if bwmarrin/snowflake (or the
// control, snowlab's generator without its lease) stops repeating the IDs
// of the 5 ms rolled back: 5 ms of perMs IDs each.
func TestReplays(t *testing.T) {
	const perMs = 10 // loadgen's default is 100; the figures scale with it
	res := runVirtual(t, perMs, 20)
	var table strings.Builder
	require.NoError(t, writeTable(&table, res))
	t.Log("\n" + table.String())
	assert.Empty(t, res.Failures)
	require.Len(t, res.Scenarios, len(scenarios()))

	peer := rowOf(t, res, "bwmarrin-53", sidePeer, "bwmarrin/snowflake")
	assert.Equal(t, 5*perMs, peer.Duplicates, "bwmarrin: every ID of the 5 ms rolled back, again")
	assert.Equal(t, 40*perMs, peer.IDs)
	ctl := rowOf(t, res, "bwmarrin-53", sideControl, "atomicgen/strict")
	assert.Equal(t, 5*perMs, ctl.Duplicates, "the control: the same restart repeats the same IDs")

	for _, r := range res.Rows {
		if r.Side == sideSnowlab {
			assert.Zero(t, r.Duplicates, "%s: %s", r.Scenario, r.Subject)
			assert.Positive(t, r.IDs, "%s: %s", r.Scenario, r.Subject)
			assert.Equal(t, "OK", r.Check, "%s: %s", r.Scenario, r.Subject)
		}
	}

	lease := rowOf(t, res, "bwmarrin-53", sideSnowlab, "atomicgen/strict on a dir: lease")
	assert.Equal(t, 5*time.Millisecond, lease.FloorAhead, "the end of its predecessor's last tick, 5 ms ahead")
	assert.Equal(t, 5*time.Millisecond, lease.Waited, "the restart 5 ms behind waits it out")
	assert.True(t, lease.SameNode)
	assert.Equal(t, 40*perMs, lease.IDs)

	within := rowOf(t, res, "bwmarrin-53", sideSnowlab, "atomicgen/strict on node 1")
	assert.Contains(t, within.Fault, "5ms")
	assert.Equal(t, uint64(1), within.RewindWaits)
	assert.Empty(t, within.Refused)
	assert.Equal(t, 60*perMs, within.IDs, "a rewind within MaxWait refuses nothing")
	var beyond subjectRow
	for _, r := range res.Rows {
		if r.Scenario == "bwmarrin-53" && strings.Contains(r.Fault, "20ms") {
			beyond = r
		}
	}
	// Stepped back 20 ms after tick 19: refused while the clock is more
	// than MaxWait (5 ms) behind tick 19, from true ms 20 to 34, then
	// waited out.
	assert.Equal(t, map[string]int{"ErrClockBackwards": 14 * perMs}, beyond.Refused)
	assert.Equal(t, 60*perMs-14*perMs, beyond.IDs)

	// Leaf #216: the crashed holder's last refresh, at 2 s, reserved up to
	// 5 s; its successor's clock reads 1.5 s: it waits 3.5 s on the full
	// fleet, and on the default layout takes node 1 at once.
	full := rowOf(t, res, "leaf-216", sideSnowlab, "atomicgen/strict on a dir: lease, 8 node ids")
	assert.Equal(t, 3500*time.Millisecond, full.FloorAhead)
	assert.Equal(t, 3500*time.Millisecond, full.Waited)
	assert.True(t, full.SameNode)
	free := rowOf(t, res, "leaf-216", sideSnowlab, "atomicgen/strict on a dir: lease, the default layout")
	assert.Zero(t, free.FloorAhead)
	assert.Zero(t, free.Waited)
	assert.False(t, free.SameNode)
	// On another node id, its clock 1 s behind, it mints from 1.5 s to
	// 2.5 s: below the predecessor's last ID but in its last millisecond,
	// where node 1 sorts above node 0.
	assert.Equal(t, 999*perMs, free.RestartBreaks)

	// yitter #110: the restarted holder waits for its own reservation
	// (refreshed at 1 s, 3 s ahead: 4 s, from 1.5 s), the ninth is refused.
	y := rowOf(t, res, "yitter-110", sideSnowlab, "atomicgen/strict")
	assert.Equal(t, map[string]int{"ErrNoFreeNode": 1}, y.Refused)
	assert.Equal(t, 2500*time.Millisecond, y.Waited)
	assert.True(t, y.SameNode)

	// baidu #85: the restarts come back past the lead; on another node id
	// they sort by time, below it.
	st := rowOf(t, res, "baidu-85", sideSnowlab, "atomicgen/monotonic, MaxLead 100 ms")
	assert.Zero(t, st.RestartBreaks)
	assert.True(t, st.SameNode)
	b85 := rowOf(t, res, "baidu-85", sideSnowlab, "atomicgen/monotonic (MaxLead 0: the lease bounds the lead) on a dir: lease, 8 node ids")
	assert.Zero(t, b85.RestartBreaks)
	assert.Equal(t, leadTicks*time.Millisecond, b85.FloorAhead, "the predecessor's lead")
	assert.Zero(t, b85.Waited, "Monotonic borrows from the floor instead of waiting")
	other := rowOf(t, res, "baidu-85", sideSnowlab, "atomicgen/monotonic (MaxLead 0: the lease bounds the lead) on a dir: lease, the default layout")
	assert.False(t, other.SameNode)
	// Its first 3 ms sort below the predecessor's last ID, 4 ms ahead;
	// in that ID's millisecond node 1 sorts above node 0.
	assert.Equal(t, (leadTicks-1)*perMs, other.RestartBreaks)

	b88 := rowOf(t, res, "baidu-88", sideSnowlab, "atomicgen/strict")
	assert.Equal(t, 21*perMs, b88.IDs)
	assert.Empty(t, b88.Refused)

	for _, name := range []string{"leaf-216", "yitter-110", "baidu-85", "baidu-88"} {
		r := rowOf(t, res, name, sidePeer, "")
		assert.Equal(t, "not run", r.Check, name)
		assert.Zero(t, r.IDs)
	}
}

// TestBwmarrinBehindIsARollback: the node BwmarrinBehind builds 5 ms
// behind mints what a node built while the wall clock read 5 ms earlier
// mints (each in a bubble of its own, whose clock starts at the same
// instant), so moving Epoch is the rollback and nothing else.
func TestBwmarrinBehindIsARollback(t *testing.T) {
	mint := func(at time.Time, behind time.Duration) []uint64 {
		var ids []uint64
		synctest.Test(t, func(t *testing.T) {
			time.Sleep(time.Until(at))
			m, err := peers.BwmarrinBehind(1, behind)
			require.NoError(t, err)
			for range 3 {
				for range 10 {
					id, err := m.Next()
					require.NoError(t, err)
					ids = append(ids, id.Lo)
				}
				time.Sleep(time.Millisecond)
			}
		})
		return ids
	}
	moved := mint(someday, 5*time.Millisecond)
	assert.Equal(t, mint(someday.Add(-5*time.Millisecond), 0), moved)
	assert.NotEqual(t, mint(someday, 0), moved)
	_, err := peers.BwmarrinBehind(1, 1500*time.Microsecond)
	assert.Error(t, err, "Epoch is in whole milliseconds")
}

// TestCheck: the checks fail a row that shows what it must not, so that
// the replays can fail.
func TestCheck(t *testing.T) {
	for _, tc := range []struct {
		row  subjectRow
		fail bool
	}{
		{subjectRow{Expect: expectNone, IDs: 10}, false},
		{subjectRow{Expect: expectNone, IDs: 10, Duplicates: 1}, true},
		{subjectRow{Expect: expectNone, IDs: 10, OrderBreaks: 1}, true},
		{subjectRow{Expect: expectNone, IDs: 10, RestartBreaks: 3, SameNode: true}, true},
		{subjectRow{Expect: expectNone, IDs: 10, RestartBreaks: 3, SameNode: false}, false},
		{subjectRow{Expect: expectNone}, true},
		{subjectRow{Expect: expectDuplicates, IDs: 10}, true},
		{subjectRow{Expect: expectDuplicates, IDs: 10, Duplicates: 2}, false},
		{subjectRow{Expect: expectNotRun}, false},
	} {
		assert.Equal(t, tc.fail, strings.HasPrefix(tc.row.check(), "FAIL"), "%+v: %s", tc.row, tc.row.check())
	}
}

// TestCount: duplicates are counted over every process of a row, and
// order breaks within a process and across a restart.
func TestCount(t *testing.T) {
	a := &proc{node: 1, ids: []int64{1, 2, 3, 5}}
	b := &proc{node: 1, pred: a, ids: []int64{4, 5, 6, 6}}
	got := count(a, b)
	assert.Equal(t, 8, got.IDs)
	assert.Equal(t, 2, got.Duplicates) // 5 and 6 twice
	assert.Equal(t, 1, got.OrderBreaks)
	assert.Equal(t, 2, got.RestartBreaks) // 4 and 5 are not above 5
	assert.True(t, got.SameNode)
	b.node = 2
	assert.False(t, count(a, b).SameNode)
}
