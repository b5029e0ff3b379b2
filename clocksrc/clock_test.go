package clocksrc_test

import (
	"slices"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/snowlab/snowlab/clocksrc"
)

const ms = int64(1_000_000)

func reads(c clocksrc.Clock, n int) []int64 {
	out := make([]int64, n)
	for i := range out {
		out[i] = c.UnixNano()
	}
	return out
}

func TestFixedMillis(t *testing.T) {
	for _, v := range []int64{0, 1, 1_700_000_000_000, -5, 1 << 40} {
		c := clocksrc.FixedMillis(v)
		for _, got := range reads(c, 5) {
			assert.Equal(t, v*ms, got, "FixedMillis(%d)", v)
		}
	}
}

func TestFunc(t *testing.T) {
	seq := []int64{42, 7, 7, -3, 1 << 62}
	i := 0
	c := clocksrc.Func(func() int64 { v := seq[i]; i++; return v })
	assert.Equal(t, seq, reads(c, len(seq)), "Func passes each value through unchanged")
}

func TestScriptedMillis(t *testing.T) {
	tests := []struct {
		name   string
		script []int64
		want   []int64 // milliseconds
	}{
		{"empty starts 1 ms after 0", nil, []int64{1, 2, 3, 4}},
		{"single", []int64{100}, []int64{100, 101, 102}},
		{"in order then +1", []int64{5, 9, 12}, []int64{5, 9, 12, 13, 14, 15}},
		{"rewind", []int64{1000, 1002, 999, 1003}, []int64{1000, 1002, 999, 1003, 1004, 1005}},
		{"repeat", []int64{7, 7, 7}, []int64{7, 7, 7, 8}},
		{"ends low", []int64{50, 10}, []int64{50, 10, 11, 12}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := clocksrc.ScriptedMillis(tt.script...)
			want := make([]int64, len(tt.want))
			for i, v := range tt.want {
				want[i] = v * ms
			}
			assert.Equal(t, want, reads(c, len(want)))
		})
	}
}

func TestScriptedMillisCopiesScript(t *testing.T) {
	script := []int64{10, 20, 30}
	c := clocksrc.ScriptedMillis(script...)
	script[0], script[1], script[2] = 99, 98, 97
	assert.Equal(t, []int64{10 * ms, 20 * ms, 30 * ms, 31 * ms}, reads(c, 4))
}

func TestScriptedMillisConcurrent(t *testing.T) {
	const goroutines, perG = 16, 2_000
	script := []int64{500, 400, 400, 900, 1, 2, 3}
	c := clocksrc.ScriptedMillis(script...)

	got := make([][]int64, goroutines)
	var wg sync.WaitGroup
	for g := range goroutines {
		wg.Go(func() { got[g] = reads(c, perG) })
	}
	wg.Wait()

	// The reads, in whatever order they happened, are exactly the script
	// followed by +1 ms steps: no value lost, none repeated.
	var all []int64
	for _, g := range got {
		all = append(all, g...)
	}
	want := make([]int64, 0, goroutines*perG)
	for _, v := range script {
		want = append(want, v*ms)
	}
	last := script[len(script)-1]
	for len(want) < goroutines*perG {
		last++
		want = append(want, last*ms)
	}
	slices.Sort(all)
	slices.Sort(want)
	require.Len(t, all, len(want))
	assert.Equal(t, want, all)
}
