package engine

import (
	"testing"
	"time"

	"github.com/snowlab/snowlab"
	"github.com/snowlab/snowlab/clocksrc"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func compile(t *testing.T, cfg snowlab.Config) *Rules {
	t.Helper()
	cfg.Clock = clocksrc.FixedMillis(0)
	r, err := Compile(cfg)
	require.NoError(t, err)
	return r
}

// Next's fast cases, as TestPlan's fast column names them.
const (
	slow  = ""      // neither: Next goes through take
	reuse = "reuse" // Rules.reuses: the word's tick, its next count
	claim = "claim" // Rules.claims: a newer tick, count 0
)

// fastCase is the fast case Next takes for state word w and clock reading
// ns, in Unix nanoseconds.
func fastCase(r *Rules, w uint64, ns int64, cap uint64) string {
	if r.reuses(w, ns, cap) {
		return reuse
	}
	if r.claims(w, r.tickOf(ns)) {
		return claim
	}
	return slow
}

// TestPlan walks the decision table: one row per branch of plan. The fast
// column is the case Next takes without consulting plan, checked at both
// ends of the tick: whenever it takes one, plan must issue the same ID.
func TestPlan(t *testing.T) {
	const capN = 4096
	strict := snowlab.Config{MaxWait: 5 * time.Millisecond}
	mono := snowlab.Config{Policy: snowlab.Monotonic}
	lead := snowlab.Config{Policy: snowlab.Monotonic, MaxLead: 2 * time.Millisecond}
	last := snowlab.DefaultLayout.MaxTick()
	type state struct {
		tick int64
		n    uint64
	}
	for _, tc := range []struct {
		name       string
		cfg        snowlab.Config
		s          state
		now        int64
		want       int
		act        action
		tick       int64
		n          uint64
		count      int
		next       state
		skipIssued bool
		fast       string
	}{
		{name: "strict fresh tick", cfg: strict, s: state{10, 7}, now: 11, want: 1, act: issue, tick: 11, n: 0, count: 1, next: state{11, 1}, fast: claim},
		{name: "strict same tick", cfg: strict, s: state{10, 7}, now: 10, want: 1, act: issue, tick: 10, n: 7, count: 1, next: state{10, 8}, fast: reuse},
		{name: "strict batch capped by tick", cfg: strict, s: state{10, 4000}, now: 10, want: 500, act: issue, tick: 10, n: 4000, count: 96, next: state{10, capN}, fast: reuse},
		{name: "strict spent waits next tick", cfg: strict, s: state{10, capN}, now: 10, want: 1, act: waitTick, tick: 11},
		{name: "strict overshot count is spent", cfg: strict, s: state{10, capN + 5}, now: 10, want: 1, act: waitTick, tick: 11},
		{name: "strict small rewind waits", cfg: strict, s: state{10, 1}, now: 8, want: 1, act: waitRewind, tick: 10},
		{name: "strict rewind at MaxWait waits", cfg: strict, s: state{10, 1}, now: 5, want: 1, act: waitRewind, tick: 10},
		{name: "strict rewind past MaxWait refused", cfg: strict, s: state{10, 1}, now: 4, want: 1, act: refuse, tick: 10},
		{name: "negative MaxWait refuses 1 tick", cfg: snowlab.Config{MaxWait: -1}, s: state{10, 1}, now: 9, want: 1, act: refuse, tick: 10},
		{name: "before epoch", cfg: strict, s: state{0, 0}, now: -1, want: 1, act: overflow, tick: -1},
		{name: "past horizon", cfg: mono, s: state{5, 0}, now: last + 1, want: 1, act: overflow, tick: last + 1},
		{name: "strict last tick spent", cfg: strict, s: state{last, capN}, now: last, want: 1, act: overflow, tick: last + 1},
		{name: "mono same tick", cfg: mono, s: state{10, 7}, now: 10, want: 1, act: issue, tick: 10, n: 7, count: 1, next: state{10, 8}, fast: reuse},
		{name: "mono borrows next tick", cfg: mono, s: state{10, capN}, now: 10, want: 1, act: issue, tick: 11, n: 0, count: 1, next: state{11, 1}},
		{name: "mono absorbs rewind", cfg: mono, s: state{10, 5}, now: 2, want: 1, act: issue, tick: 10, n: 5, count: 1, next: state{10, 6}, fast: reuse},
		{name: "mono batch spans ticks", cfg: mono, s: state{10, 4000}, now: 10, want: 10000, act: issue, tick: 10, n: 4000, count: 10000, next: state{13, 10000 - 96 - 2*capN}, fast: reuse},
		{name: "mono batch ends on a tick edge", cfg: mono, s: state{10, 0}, now: 10, want: 2 * capN, act: issue, tick: 10, n: 0, count: 2 * capN, next: state{11, capN}, fast: reuse},
		{name: "mono stops at the window", cfg: mono, s: state{last, 4000}, now: last, want: 500, act: issue, tick: last, n: 4000, count: 96, next: state{last, capN}, fast: reuse},
		{name: "mono past the window", cfg: mono, s: state{last, capN}, now: last, want: 1, act: overflow, tick: last + 1},
		{name: "lead allows borrowing", cfg: lead, s: state{11, capN}, now: 10, want: 1, act: issue, tick: 12, n: 0, count: 1, next: state{12, 1}},
		{name: "lead caps a batch", cfg: lead, s: state{10, 0}, now: 10, want: 5 * capN, act: issue, tick: 10, n: 0, count: 3 * capN, next: state{12, capN}, fast: reuse},
		{name: "lead within reach reuses", cfg: lead, s: state{12, 3}, now: 10, want: 1, act: issue, tick: 12, n: 3, count: 1, next: state{12, 4}, fast: reuse},
		{name: "lead reached waits", cfg: lead, s: state{12, capN}, now: 10, want: 1, act: waitTick, tick: 11},
		{name: "rewind past lead within MaxWait waits", cfg: lead, s: state{15, 3}, now: 10, want: 1, act: waitTick, tick: 13},
		{name: "rewind past lead beyond MaxWait refused", cfg: lead, s: state{20, 3}, now: 10, want: 1, act: refuse, tick: 20},
		{name: "lead reached, negative MaxWait still waits a tick", cfg: snowlab.Config{Policy: snowlab.Monotonic, MaxLead: 2 * time.Millisecond, MaxWait: -1}, s: state{12, capN}, now: 10, want: 1, act: waitTick, tick: 11},
		{name: "rewind past lead, negative MaxWait refused", cfg: snowlab.Config{Policy: snowlab.Monotonic, MaxLead: 2 * time.Millisecond, MaxWait: -1}, s: state{14, 3}, now: 10, want: 1, act: refuse, tick: 14},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := compile(t, tc.cfg)
			w := r.pack(tc.s.tick, tc.s.n)
			p := r.plan(w, tc.now, tc.want, capN)
			for _, ns := range []int64{r.tickStart(tc.now), r.tickStart(tc.now+1) - 1} {
				require.Equal(t, tc.now, r.tickOf(ns))
				assert.Equal(t, tc.fast, fastCase(r, w, ns, capN), "fast case at %d ns into the tick", ns-r.tickStart(tc.now))
			}
			switch tc.fast {
			case reuse:
				assert.Equal(t, plan{act: issue, tick: tc.s.tick, n: tc.s.n}, plan{act: p.act, tick: p.tick, n: p.n}, "plan disagrees with reuses")
			case claim:
				assert.Equal(t, plan{act: issue, tick: tc.now}, plan{act: p.act, tick: p.tick, n: p.n}, "plan disagrees with claims")
			}
			require.Equal(t, tc.act, p.act, "action")
			assert.Equal(t, tc.tick, p.tick, "tick")
			if tc.act == issue {
				assert.Equal(t, tc.n, p.n, "first count")
				assert.Equal(t, tc.count, p.count, "count")
				nt, nn := r.unpack(p.next)
				assert.Equal(t, tc.next, state{nt, nn}, "next state")
			}
		})
	}
}

// TestFill checks that a run of IDs crosses tick edges correctly.
func TestFill(t *testing.T) {
	r := compile(t, snowlab.Config{})
	sp := r.Space(5, 100, 10) // node 5, sequence values 100..109
	dst := make([]snowlab.ID, 25)
	r.fill(dst, 7, 4, sp)
	l := r.Layout()
	for i, id := range dst {
		p := l.Decode(id)
		off := 4 + i
		assert.Equal(t, 5, p.Node)
		assert.Equal(t, 100+off%10, p.Seq, "id %d", i)
		assert.Equal(t, l.Epoch.Add(time.Duration(7+off/10)*time.Millisecond), p.Time, "id %d", i)
	}
}

// TestFetchAddRoom: the default layout leaves room for fetch-add, and a
// layout whose count bits barely hold the sequence does not.
func TestFetchAddRoom(t *testing.T) {
	assert.True(t, compile(t, snowlab.Config{}).addOK)
	tight := snowlab.Layout{TimeBits: 50, NodeBits: 1, SeqBits: 12, Unit: time.Nanosecond,
		Epoch: snowlab.DefaultLayout.Epoch}
	assert.False(t, compile(t, snowlab.Config{Layout: tight}).addOK)
	assert.False(t, compile(t, snowlab.Config{}).WithoutFetchAdd().addOK)
}
