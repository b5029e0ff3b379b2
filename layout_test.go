package snowlab

import (
	"fmt"
	"math"
	"math/bits"
	"math/rand/v2"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var defaultEpoch = time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)

// The literal vector used throughout: node 37, sequence 0, at
// 2025-01-24T19:35:58.021Z, under the default layout.
const (
	vectorMillis = 1737747358021
	vectorID     = ID(141264821508263936)
)

func TestDefaultLayoutValues(t *testing.T) {
	l := DefaultLayout
	assert.Equal(t, uint(41), l.TimeBits)
	assert.Equal(t, uint(10), l.NodeBits)
	assert.Equal(t, uint(12), l.SeqBits)
	assert.Equal(t, uint(63), l.TimeBits+l.NodeBits+l.SeqBits)
	assert.Equal(t, time.Millisecond, l.Unit)
	assert.True(t, l.Epoch.Equal(defaultEpoch), "epoch %v", l.Epoch)
	assert.Equal(t, time.UTC, l.Epoch.Location())
	assert.False(t, l.IsZero())
	require.NoError(t, l.Validate())

	assert.Equal(t, 1023, l.MaxNode())
	assert.Equal(t, 4095, l.MaxSeq())
	assert.Equal(t, int64(1)<<41-1, l.MaxTick())

	h := l.Horizon()
	assert.Equal(t, 2093, h.Year())
	assert.True(t, h.Equal(defaultEpoch.Add(time.Duration(1<<41)*time.Millisecond)), "horizon %v", h)
	assert.True(t, h.Equal(time.Date(2093, 9, 6, 15, 47, 35, 552e6, time.UTC)), "horizon %v", h)
	assert.Equal(t, int64(1704067200000+1<<41), h.UnixMilli())
}

func TestZeroLayoutIsDefault(t *testing.T) {
	var z Layout
	d := DefaultLayout
	require.True(t, z.IsZero())
	assert.Equal(t, d, z.OrDefault())
	assert.NoError(t, z.Validate())

	tests := []struct {
		name      string
		got, want any
	}{
		{"MaxNode", z.MaxNode(), 1023},
		{"MaxSeq", z.MaxSeq(), 4095},
		{"MaxTick", z.MaxTick(), int64(1)<<41 - 1},
		{"MaxNode matches default", z.MaxNode(), d.MaxNode()},
		{"MaxSeq matches default", z.MaxSeq(), d.MaxSeq()},
		{"MaxTick matches default", z.MaxTick(), d.MaxTick()},
		{"Horizon year", z.Horizon().Year(), 2093},
		{"Horizon unix ms", z.Horizon().UnixMilli(), d.Horizon().UnixMilli()},
		{"Decode", z.Decode(141264821510144037), d.Decode(141264821510144037)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, tt.got)
		})
	}

	t.Run("Compose", func(t *testing.T) {
		id, err := z.Compose(time.UnixMilli(vectorMillis), 37, 0)
		require.NoError(t, err)
		assert.Equal(t, vectorID, id)
	})
}

func TestIsZeroAndOrDefault(t *testing.T) {
	tests := []struct {
		name string
		l    Layout
		zero bool
	}{
		{"zero", Layout{}, true},
		{"default", DefaultLayout, false},
		{"only TimeBits", Layout{TimeBits: 41}, false},
		{"only NodeBits", Layout{NodeBits: 10}, false},
		{"only SeqBits", Layout{SeqBits: 12}, false},
		{"only Unit", Layout{Unit: time.Millisecond}, false},
		{"only Epoch", Layout{Epoch: defaultEpoch}, false},
		{"Unix epoch is set", Layout{Epoch: time.Unix(0, 0)}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.zero, tt.l.IsZero())
			if tt.zero {
				assert.Equal(t, DefaultLayout, tt.l.OrDefault())
			} else {
				// A partly filled layout is kept as it is, never mixed
				// with the default.
				assert.Equal(t, tt.l, tt.l.OrDefault())
			}
		})
	}
}

// Changing DefaultLayout must not change what the zero Layout means.
func TestZeroLayoutIgnoresDefaultLayoutVariable(t *testing.T) {
	saved := DefaultLayout
	t.Cleanup(func() { DefaultLayout = saved })

	DefaultLayout.NodeBits = 5
	DefaultLayout.SeqBits = 17
	DefaultLayout.Unit = time.Second

	var z Layout
	assert.Equal(t, 1023, z.MaxNode())
	assert.Equal(t, 4095, z.MaxSeq())
	assert.Equal(t, time.Millisecond, z.OrDefault().Unit)
	id, err := z.Compose(time.UnixMilli(vectorMillis), 37, 0)
	require.NoError(t, err)
	assert.Equal(t, vectorID, id)
}

func TestValidate(t *testing.T) {
	maxNs := time.Unix(0, math.MaxInt64)
	defaultWindow := time.Duration(1<<41) * time.Millisecond
	at := func(tb, nb, sb uint, unit time.Duration, epoch time.Time) Layout {
		return Layout{TimeBits: tb, NodeBits: nb, SeqBits: sb, Unit: unit, Epoch: epoch}
	}

	// wide marks layouts with a node or sequence field over 30 bits: valid
	// only where int has 64 bits (see TestValidateIntSize).
	valid := []struct {
		name string
		l    Layout
		wide bool
	}{
		{"zero layout", Layout{}, false},
		{"default", DefaultLayout, false},
		{"39/12/12 ms", at(39, 12, 12, time.Millisecond, defaultEpoch), false},
		{"31/16/16 second", at(31, 16, 16, time.Second, defaultEpoch), false},
		{"42/9/12 ms", at(42, 9, 12, time.Millisecond, defaultEpoch), false},
		{"41/10/12 100µs", at(41, 10, 12, 100*time.Microsecond, defaultEpoch), false},
		{"61/1/1 ns", at(61, 1, 1, time.Nanosecond, defaultEpoch), false},
		{"61/1/1 2ns from 1970 (2^62 ns window)", at(61, 1, 1, 2*time.Nanosecond, time.Unix(0, 0)), false},
		{"61/1/1 3ns from 1970 (just fits a Duration)", at(61, 1, 1, 3*time.Nanosecond, time.Unix(0, 0)), false},
		{"1/1/61 hour", at(1, 1, 61, time.Hour, defaultEpoch), true},
		{"1/61/1 ms", at(1, 61, 1, time.Millisecond, defaultEpoch), true},
		{"3/30/30 hour (the widest fields a 32-bit int takes)", at(3, 30, 30, time.Hour, defaultEpoch), false},
		{"Unix epoch", at(41, 10, 12, time.Millisecond, time.Unix(0, 0)), false},
		{"epoch before 1970", at(41, 10, 12, time.Millisecond, time.Date(1900, 1, 1, 0, 0, 0, 0, time.UTC)), false},
		{"earliest Unix nanosecond as epoch", at(41, 10, 12, time.Millisecond, time.Unix(0, math.MinInt64)), false},
		{"epoch in another zone", at(41, 10, 12, time.Millisecond, time.Date(2024, 1, 1, 0, 0, 0, 0, time.FixedZone("X", 5*3600))), false},
		{"window ends exactly at the last Unix nanosecond", at(41, 10, 12, time.Millisecond, maxNs.Add(-defaultWindow)), false},
	}
	for _, tt := range valid {
		t.Run("valid/"+tt.name, func(t *testing.T) {
			assert.NoError(t, tt.l.validate(64))
			if err := tt.l.validate(32); tt.wide {
				assert.ErrorIs(t, err, ErrInvalidLayout, "a 32-bit int cannot count this layout's field")
			} else {
				assert.NoError(t, err)
			}
			assert.Equal(t, tt.l.validate(strconv.IntSize), tt.l.Validate(), "Validate follows this program's int size")
		})
	}

	invalid := []struct {
		name string
		l    Layout
		msg  []string // substrings the message must hold: the bad values
	}{
		{"sum 62", at(41, 10, 11, time.Millisecond, defaultEpoch), []string{"time 41", "node 10", "seq 11", "= 62 bits"}},
		{"sum 64", at(41, 10, 13, time.Millisecond, defaultEpoch), []string{"seq 13", "= 64 bits"}},
		{"sum 3", at(1, 1, 1, time.Millisecond, defaultEpoch), []string{"= 3 bits"}},
		{"sum 100", at(41, 10, 49, time.Millisecond, defaultEpoch), []string{"seq 49", "= 100 bits"}},
		{"fields only, no unit or epoch, sum 62", Layout{TimeBits: 40, NodeBits: 10, SeqBits: 12}, []string{"= 62 bits"}},
		{"zero TimeBits", at(0, 31, 32, time.Millisecond, defaultEpoch), []string{"time 0"}},
		{"zero NodeBits", at(41, 0, 22, time.Millisecond, defaultEpoch), []string{"node 0"}},
		{"zero SeqBits", at(51, 12, 0, time.Millisecond, defaultEpoch), []string{"seq 0"}},
		{"only a unit", Layout{Unit: time.Millisecond}, []string{"time 0", "node 0", "seq 0"}},
		{"only an epoch", Layout{Epoch: defaultEpoch}, []string{"time 0"}},
		// Widths that sum to 63 only modulo 2^64.
		{"NodeBits wraps the sum", at(31, math.MaxUint, 33, time.Second, defaultEpoch), []string{fmt.Sprint("node ", uint(math.MaxUint))}},
		{"TimeBits wraps the sum", at(math.MaxUint, 32, 32, time.Millisecond, defaultEpoch), []string{fmt.Sprint("time ", uint(math.MaxUint))}},
		{"SeqBits wraps the sum", at(2, 62, math.MaxUint, time.Millisecond, defaultEpoch), []string{fmt.Sprint("seq ", uint(math.MaxUint))}},
		{"a 64-bit field", at(64, 1<<(bits.UintSize-1), 1<<(bits.UintSize-1)-1, time.Millisecond, defaultEpoch), []string{"time 64"}},
		{"zero unit", at(41, 10, 12, 0, defaultEpoch), []string{"unit 0s"}},
		{"negative unit", at(41, 10, 12, -time.Millisecond, defaultEpoch), []string{"unit -1ms"}},
		{"most negative unit", at(41, 10, 12, math.MinInt64, defaultEpoch), []string{"unit -2562047h47m16.854775808s"}},
		{"zero epoch", at(41, 10, 12, time.Millisecond, time.Time{}), []string{"epoch is not set"}},
		{"window overflows Duration: 2^61 ms", at(61, 1, 1, time.Millisecond, defaultEpoch), []string{"2^61", "1ms", "time.Duration"}},
		{"window overflows Duration: 2^41 of 10ms", at(41, 10, 12, 10*time.Millisecond, defaultEpoch), []string{"2^41", "10ms"}},
		{"window overflows Duration: 2^41 hours", at(41, 10, 12, time.Hour, defaultEpoch), []string{"2^41", "1h0m0s", "time.Duration"}},
		{"window overflows Duration: 2^61 of 4ns", at(61, 1, 1, 4*time.Nanosecond, time.Unix(0, 0)), []string{"2^61", "4ns"}},
		{"window overflows Duration: 2^31 of 2^32 s", at(31, 16, 16, time.Duration(1<<32)*time.Second, time.Unix(0, 0)), []string{"2^31"}},
		{"epoch near 2262", at(41, 10, 12, time.Millisecond, time.Date(2262, 1, 1, 0, 0, 0, 0, time.UTC)), []string{"2262-01-01", "Unix nanoseconds"}},
		{"window passes 2262", at(41, 10, 12, time.Millisecond, time.Date(2200, 1, 1, 0, 0, 0, 0, time.UTC)), []string{"2200-01-01", "Unix nanoseconds"}},
		{"window one ns past the last Unix nanosecond", at(41, 10, 12, time.Millisecond, maxNs.Add(-defaultWindow+1)), []string{"Unix nanoseconds"}},
		{"epoch before 1677", at(41, 10, 12, time.Millisecond, time.Date(1600, 1, 1, 0, 0, 0, 0, time.UTC)), []string{"1600-01-01", "Unix nanoseconds"}},
		{"epoch far in the future", at(31, 16, 16, time.Second, time.Date(9999, 1, 1, 0, 0, 0, 0, time.UTC)), []string{"9999-01-01"}},
	}
	for _, tt := range invalid {
		t.Run("invalid/"+tt.name, func(t *testing.T) {
			err := tt.l.Validate()
			require.Error(t, err)
			assert.ErrorIs(t, err, ErrInvalidLayout)
			for _, s := range tt.msg {
				assert.Contains(t, err.Error(), s)
			}

			// Compose refuses an invalid layout with the same error.
			_, cerr := tt.l.Compose(time.Now(), 0, 0)
			assert.ErrorIs(t, cerr, ErrInvalidLayout)
			assert.Equal(t, err.Error(), cerr.Error())
		})
	}
}

func TestHorizon(t *testing.T) {
	tests := []struct {
		name string
		l    Layout
		want time.Time
	}{
		{"zero layout", Layout{}, defaultEpoch.Add(time.Duration(1<<41) * time.Millisecond)},
		{"default", DefaultLayout, time.Date(2093, 9, 6, 15, 47, 35, 552e6, time.UTC)},
		{"39/12/12 ms", Layout{TimeBits: 39, NodeBits: 12, SeqBits: 12, Unit: time.Millisecond, Epoch: defaultEpoch},
			defaultEpoch.Add(time.Duration(1<<39) * time.Millisecond)},
		{"31/16/16 second", Layout{TimeBits: 31, NodeBits: 16, SeqBits: 16, Unit: time.Second, Epoch: defaultEpoch},
			defaultEpoch.Add(time.Duration(1<<31) * time.Second)},
		{"1/1/61 hour", Layout{TimeBits: 1, NodeBits: 1, SeqBits: 61, Unit: time.Hour, Epoch: defaultEpoch},
			defaultEpoch.Add(2 * time.Hour)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := tt.l.Horizon()
			assert.True(t, h.Equal(tt.want), "Horizon() = %v, want %v", h, tt.want)
			l := tt.l.OrDefault()
			assert.True(t, h.Equal(l.Epoch.Add(time.Duration(l.MaxTick()+1)*l.Unit)))
		})
	}
}

func TestTimeLeft(t *testing.T) {
	d := DefaultLayout
	short := Layout{TimeBits: 35, NodeBits: 16, SeqBits: 12, Unit: time.Millisecond, Epoch: defaultEpoch}
	farEpoch := DefaultLayout
	farEpoch.Epoch = time.Date(2400, 1, 1, 0, 0, 0, 0, time.UTC)
	tests := []struct {
		name string
		l    Layout
		t    time.Time
		want time.Duration
	}{
		{"at the epoch, the whole window", d, defaultEpoch, time.Duration(1<<41) * time.Millisecond},
		{"zero layout is the default", Layout{}, defaultEpoch, time.Duration(1<<41) * time.Millisecond},
		{"a millisecond before the horizon", d, d.Horizon().Add(-time.Millisecond), time.Millisecond},
		{"at the horizon", d, d.Horizon(), 0},
		{"a day after the horizon", d, d.Horizon().Add(24 * time.Hour), -24 * time.Hour},
		{"35 bits of ms from the epoch, a day in", short, defaultEpoch.Add(24 * time.Hour), time.Duration(1<<35)*time.Millisecond - 24*time.Hour},
		{"horizon past 292 years away", farEpoch, defaultEpoch, time.Duration(math.MaxInt64)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, tt.l.TimeLeft(tt.t))
		})
	}
}

func TestComposeVectors(t *testing.T) {
	d := DefaultLayout
	horizon := d.Horizon()
	tests := []struct {
		name      string
		l         Layout
		t         time.Time
		node, seq int
		want      ID
	}{
		{"literal vector", d, time.UnixMilli(vectorMillis), 37, 0, vectorID},
		{"literal vector, zero layout", Layout{}, time.UnixMilli(vectorMillis), 37, 0, vectorID},
		{"node 496 seq 37", d, time.UnixMilli(vectorMillis), 496, 37, 141264821510144037},
		{"truncated to the millisecond", d, time.UnixMilli(vectorMillis).Add(999999 * time.Nanosecond), 37, 0, vectorID},
		{"same instant in another zone", d, time.UnixMilli(vectorMillis).In(time.FixedZone("Y", -7*3600)), 37, 0, vectorID},
		{"epoch, all zero", d, defaultEpoch, 0, 0, 0},
		{"epoch, seq 1", d, defaultEpoch, 0, 1, 1},
		{"epoch, node 1", d, defaultEpoch, 1, 0, 1 << 12},
		{"epoch + 1ms", d, defaultEpoch.Add(time.Millisecond), 0, 0, 1 << 22},
		{"epoch, max node and seq", d, defaultEpoch, 1023, 4095, 1<<22 - 1},
		{"last instant before horizon", d, horizon.Add(-1), 1023, 4095, math.MaxInt64},
		{"last tick, zero node and seq", d, horizon.Add(-time.Millisecond), 0, 0, ID((int64(1)<<41 - 1) << 22)},
		{"31/16/16 second, tick 1, node 2, seq 3",
			Layout{TimeBits: 31, NodeBits: 16, SeqBits: 16, Unit: time.Second, Epoch: defaultEpoch},
			defaultEpoch.Add(1500 * time.Millisecond), 2, 3, 1<<32 | 2<<16 | 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			id, err := tt.l.Compose(tt.t, tt.node, tt.seq)
			require.NoError(t, err)
			assert.Equal(t, tt.want, id)
		})
	}
}

func TestComposeErrors(t *testing.T) {
	d := DefaultLayout
	now := time.UnixMilli(vectorMillis)
	tests := []struct {
		name      string
		l         Layout
		t         time.Time
		node, seq int
		want      error
		msg       string
	}{
		{"node -1", d, now, -1, 0, ErrInvalidNode, "node -1"},
		{"node 1024", d, now, 1024, 0, ErrInvalidNode, "node 1024"},
		{"node huge", d, now, math.MaxInt, 0, ErrInvalidNode, "want 0..1023"},
		{"node 65536 in 31/16/16", Layout{TimeBits: 31, NodeBits: 16, SeqBits: 16, Unit: time.Second, Epoch: defaultEpoch},
			now, 1 << 16, 0, ErrInvalidNode, "node 65536"},
		{"seq -1", d, now, 0, -1, ErrOverflow, "sequence -1"},
		{"seq 4096", d, now, 0, 4096, ErrOverflow, "sequence 4096"},
		{"seq min int", d, now, 0, math.MinInt, ErrOverflow, "want 0..4095"},
		{"one ns before epoch", d, defaultEpoch.Add(-1), 0, 0, ErrOverflow, "2023-12-31"},
		{"zero time", d, time.Time{}, 0, 0, ErrOverflow, "0001-01-01"},
		{"at horizon", d, d.Horizon(), 0, 0, ErrOverflow, "2093-09-06"},
		{"after horizon", d, d.Horizon().Add(time.Hour), 0, 0, ErrOverflow, "2093-09-06"},
		{"far future", d, time.Date(3000, 1, 1, 0, 0, 0, 0, time.UTC), 0, 0, ErrOverflow, "3000-01-01"},
		{"invalid layout", Layout{TimeBits: 41, NodeBits: 10, SeqBits: 11, Unit: time.Millisecond, Epoch: defaultEpoch},
			now, 0, 0, ErrInvalidLayout, "62 bits"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			id, err := tt.l.Compose(tt.t, tt.node, tt.seq)
			require.Error(t, err)
			assert.ErrorIs(t, err, tt.want)
			assert.Contains(t, err.Error(), tt.msg)
			assert.Zero(t, id)
		})
	}
}

func TestDecodeVectors(t *testing.T) {
	d := DefaultLayout
	tests := []struct {
		name string
		l    Layout
		id   ID
		want Parts
	}{
		{"literal vector", d, vectorID, Parts{time.UnixMilli(vectorMillis), 37, 0}},
		{"node 496 seq 37", d, 141264821510144037, Parts{time.UnixMilli(vectorMillis), 496, 37}},
		{"zero layout", Layout{}, 141264821510144037, Parts{time.UnixMilli(vectorMillis), 496, 37}},
		{"zero", d, 0, Parts{defaultEpoch, 0, 0}},
		{"max", d, math.MaxInt64, Parts{d.Horizon().Add(-time.Millisecond), 1023, 4095}},
		// A negative ID is not valid; Decode reads its low 63 bits.
		{"-1 reads as max", d, -1, Parts{d.Horizon().Add(-time.Millisecond), 1023, 4095}},
		{"min int64 reads as 0", d, math.MinInt64, Parts{defaultEpoch, 0, 0}},
		{"31/16/16 second", Layout{TimeBits: 31, NodeBits: 16, SeqBits: 16, Unit: time.Second, Epoch: defaultEpoch},
			1<<32 | 2<<16 | 3, Parts{defaultEpoch.Add(time.Second), 2, 3}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := tt.l.Decode(tt.id)
			assert.True(t, p.Time.Equal(tt.want.Time), "Time = %v, want %v", p.Time, tt.want.Time)
			assert.Equal(t, tt.want.Node, p.Node)
			assert.Equal(t, tt.want.Seq, p.Seq)
		})
	}

	t.Run("vector time in unix ms", func(t *testing.T) {
		p := d.Decode(vectorID)
		assert.Equal(t, int64(vectorMillis), p.Time.UnixMilli())
		assert.Equal(t, 37, p.Node)
		assert.Equal(t, 0, p.Seq)
	})

	t.Run("time is in the epoch's location", func(t *testing.T) {
		assert.Equal(t, time.UTC, d.Decode(vectorID).Time.Location())
		zone := time.FixedZone("Z", 3*3600)
		l := d
		l.Epoch = defaultEpoch.In(zone)
		p := l.Decode(vectorID)
		assert.Equal(t, zone, p.Time.Location())
		assert.Equal(t, int64(vectorMillis), p.Time.UnixMilli())
	})
}

// TestValidateIntSize holds the rule that keeps 32-bit programs correct:
// a node or sequence field whose count of values is not an int is refused,
// naming the field, rather than MaxNode or MaxSeq wrapping to -1. It runs
// the 32-bit rule wherever the tests run, and the 64-bit one too.
func TestValidateIntSize(t *testing.T) {
	at := func(tb, nb, sb uint) Layout {
		return Layout{TimeBits: tb, NodeBits: nb, SeqBits: sb, Unit: time.Hour, Epoch: defaultEpoch}
	}
	tests := []struct {
		l       Layout
		intBits int
		msg     string // "" when valid
		maxNode int64  // what MaxNode must be where the layout is valid
		maxSeq  int64
	}{
		{at(1, 1, 61), 32, "seq field of 61 bits", 0, 0},
		{at(1, 61, 1), 32, "node field of 61 bits", 0, 0},
		{at(20, 11, 32), 32, "seq field of 32 bits", 0, 0},
		{at(1, 31, 31), 32, "node field of 31 bits", 0, 0},
		{at(2, 30, 31), 32, "seq field of 31 bits: its 2147483648 sequence values do not fit a 32-bit int", 0, 0},
		{at(3, 30, 30), 32, "", 1<<30 - 1, 1<<30 - 1},
		{at(1, 1, 61), 64, "", 1, 1<<61 - 1},
		{at(1, 61, 1), 64, "", 1<<61 - 1, 1},
	}
	for _, tt := range tests {
		name := fmt.Sprintf("%d-bit/%d/%d/%d", tt.intBits, tt.l.TimeBits, tt.l.NodeBits, tt.l.SeqBits)
		t.Run(name, func(t *testing.T) {
			err := tt.l.validate(tt.intBits)
			if tt.msg != "" {
				require.ErrorIs(t, err, ErrInvalidLayout)
				assert.Contains(t, err.Error(), tt.msg, "the message names the field and its width")
				return
			}
			require.NoError(t, err)
			if tt.intBits <= strconv.IntSize {
				// The values the program computes are the field's real
				// maximum, not a wrapped one.
				assert.Equal(t, tt.maxNode, int64(tt.l.MaxNode()))
				assert.Equal(t, tt.maxSeq, int64(tt.l.MaxSeq()))
				_, err := tt.l.Compose(defaultEpoch, tt.l.MaxNode(), tt.l.MaxSeq())
				assert.NoError(t, err)
			}
		})
	}
}

// layoutsUnderTest are valid layouts the property tests run over. A wide
// one (a field over 30 bits) is valid only where int has 64 bits; on a
// 32-bit program the tests check that it is refused instead.
var layoutsUnderTest = []struct {
	name string
	l    Layout
	wide bool
}{
	{"default", DefaultLayout, false},
	{"39/12/12 ms", Layout{TimeBits: 39, NodeBits: 12, SeqBits: 12, Unit: time.Millisecond, Epoch: defaultEpoch}, false},
	{"31/16/16 second", Layout{TimeBits: 31, NodeBits: 16, SeqBits: 16, Unit: time.Second, Epoch: defaultEpoch}, false},
	{"61/1/1 ns", Layout{TimeBits: 61, NodeBits: 1, SeqBits: 1, Unit: time.Nanosecond, Epoch: defaultEpoch}, false},
	{"40/13/10 7ms, epoch before 1970, other zone", Layout{TimeBits: 40, NodeBits: 13, SeqBits: 10, Unit: 7 * time.Millisecond,
		Epoch: time.Date(1960, 6, 15, 12, 30, 0, 123456789, time.FixedZone("W", -3*3600-1800))}, false},
	{"3/30/30 hour", Layout{TimeBits: 3, NodeBits: 30, SeqBits: 30, Unit: time.Hour, Epoch: defaultEpoch}, false},
	{"1/1/61 hour", Layout{TimeBits: 1, NodeBits: 1, SeqBits: 61, Unit: time.Hour, Epoch: defaultEpoch}, true},
}

// usableLayout fails the test unless l is valid in this program, except for
// a wide layout in a 32-bit one, which must be refused: it reports whether
// the property test goes on.
func usableLayout(t *testing.T, l Layout, wide bool) bool {
	t.Helper()
	if wide && strconv.IntSize < 64 {
		require.ErrorIs(t, l.Validate(), ErrInvalidLayout, "a %d-bit int cannot count this layout's fields", strconv.IntSize)
		return false
	}
	require.NoError(t, l.Validate())
	return true
}

func TestComposeDecodeInverse(t *testing.T) {
	const n = 20000
	for _, lt := range layoutsUnderTest {
		t.Run(lt.name, func(t *testing.T) {
			l := lt.l
			if !usableLayout(t, l, lt.wide) {
				return
			}
			r := rand.New(rand.NewPCG(1, uint64(l.TimeBits)))

			// Random and extreme parts.
			type part struct {
				tick      int64
				node, seq int
				offset    time.Duration // into the tick, < Unit
			}
			parts := []part{
				{0, 0, 0, 0},
				{l.MaxTick(), l.MaxNode(), l.MaxSeq(), l.Unit - 1},
				{l.MaxTick(), 0, 0, 0},
				{0, l.MaxNode(), l.MaxSeq(), l.Unit - 1},
			}
			for range n {
				parts = append(parts, part{
					tick:   r.Int64N(l.MaxTick() + 1),
					node:   r.IntN(l.MaxNode() + 1),
					seq:    r.IntN(l.MaxSeq() + 1),
					offset: time.Duration(r.Int64N(int64(l.Unit))),
				})
			}
			// Plain comparisons in the loops: testify's are slow enough
			// to matter at this count under -race.
			for _, p := range parts {
				start := l.Epoch.Add(time.Duration(p.tick) * l.Unit)
				id, err := l.Compose(start.Add(p.offset), p.node, p.seq)
				if err != nil || id < 0 {
					t.Fatalf("Compose(%+v) = %d, %v", p, id, err)
				}
				got := l.Decode(id)
				if !got.Time.Equal(start) || got.Time.Location() != l.Epoch.Location() || got.Node != p.node || got.Seq != p.seq {
					t.Fatalf("Decode(Compose(%+v)) = %+v, want time %v", p, got, start)
				}
				again, err := l.Compose(got.Time, got.Node, got.Seq)
				if err != nil || again != id {
					t.Fatalf("Compose(Decode(%d)) = %d, %v", id, again, err)
				}
			}

			// Every non-negative ID decodes to parts that compose back to it.
			ids := []ID{0, 1, math.MaxInt64, math.MaxInt64 - 1, vectorID}
			for range n {
				ids = append(ids, ID(r.Int64()))
			}
			for _, id := range ids {
				p := l.Decode(id)
				if p.Node < 0 || p.Node > l.MaxNode() || p.Seq < 0 || p.Seq > l.MaxSeq() {
					t.Fatalf("Decode(%d) = %+v, out of range", id, p)
				}
				back, err := l.Compose(p.Time, p.Node, p.Seq)
				if err != nil || back != id {
					t.Fatalf("Compose(Decode(%d) = %+v) = %d, %v", id, p, back, err)
				}
			}
		})
	}
}

func TestComposeTimeOrder(t *testing.T) {
	const n = 20000
	for _, lt := range layoutsUnderTest {
		t.Run(lt.name, func(t *testing.T) {
			l := lt.l
			if !usableLayout(t, l, lt.wide) {
				return
			}
			r := rand.New(rand.NewPCG(2, uint64(l.NodeBits)))
			compose := func(tick int64, node, seq int) ID {
				id, err := l.Compose(l.Epoch.Add(time.Duration(tick)*l.Unit), node, seq)
				if err != nil {
					t.Fatalf("Compose(tick %d, node %d, seq %d): %v", tick, node, seq, err)
				}
				return id
			}
			for range n {
				t1 := r.Int64N(l.MaxTick())
				t2 := t1 + 1 + r.Int64N(l.MaxTick()-t1) // t1 < t2 <= MaxTick
				if r.IntN(4) == 0 {
					t2 = t1 + 1 // adjacent ticks
				}
				// Later tick wins regardless of node and sequence, even
				// against the largest node and sequence.
				if early, late := compose(t1, l.MaxNode(), l.MaxSeq()), compose(t2, 0, 0); early >= late {
					t.Fatalf("tick %d with max node and seq = %d, not below tick %d = %d", t1, early, t2, late)
				}
				n1, s1 := r.IntN(l.MaxNode()+1), r.IntN(l.MaxSeq()+1)
				n2, s2 := r.IntN(l.MaxNode()+1), r.IntN(l.MaxSeq()+1)
				if a, b := compose(t1, n1, s1), compose(t2, n2, s2); a >= b {
					t.Fatalf("(%d, %d, %d) = %d, not below (%d, %d, %d) = %d", t1, n1, s1, a, t2, n2, s2, b)
				}
			}

			// Within one tick and node, a larger sequence is a larger ID.
			for range n / 10 {
				tick := r.Int64N(l.MaxTick() + 1)
				node := r.IntN(l.MaxNode() + 1)
				s1 := r.IntN(l.MaxSeq())
				s2 := s1 + 1 + r.IntN(l.MaxSeq()-s1)
				if a, b := compose(tick, node, s1), compose(tick, node, s2); a >= b {
					t.Fatalf("tick %d node %d: seq %d = %d, not below seq %d = %d", tick, node, s1, a, s2, b)
				}
			}
		})
	}
}
