package peers_test

import (
	"encoding/binary"
	"fmt"
	mrand "math/rand"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/bwmarrin/snowflake"
	"github.com/google/uuid"
	influx "github.com/influxdata/influxdb/pkg/snowflake"
	"github.com/oklog/ulid/v2"
	"github.com/sony/sonyflake/v2"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/snowlab/snowlab"
	"github.com/snowlab/snowlab/lab/internal/peers"
	"github.com/snowlab/snowlab/lab/subject"
)

// wantNames is the stable order All promises: the standard library's
// peers (stdlibWant, empty before Go 1.27) come after google/uuid-v7.
var wantNames = append(append([]string{
	"bwmarrin/snowflake",
	"sony/sonyflake-1ms",
	"sony/sonyflake",
	"influxdata/influxdb-snowflake",
	"google/uuid-v7",
}, stdlibNames()...), "oklog/ulid-monotonic")

// peerWant is what the report relies on for one peer: the node its
// adapter configures (-1: the format has none), its strict ceiling in
// IDs/s (0: none), whether it is strict, and a direct call of the library
// (TestAllocs).
type peerWant struct {
	node    int
	ceiling float64
	strict  bool
	direct  func() func()
}

// want holds every peer's peerWant, the standard library's included.
var want = func() map[string]peerWant {
	m := map[string]peerWant{
		"bwmarrin/snowflake": {1, 4_096_000, true, func() func() {
			n, _ := snowflake.NewNode(1)
			return func() { _ = n.Generate() }
		}},
		"sony/sonyflake-1ms": {1, 4_096_000, true, func() func() {
			sf, _ := sonyflake.New(sonyflake.Settings{BitsSequence: 12, BitsMachineID: 10, TimeUnit: time.Millisecond,
				MachineID: func() (int, error) { return 1, nil }})
			return func() { _, _ = sf.NextID() }
		}},
		"sony/sonyflake": {1, 25_600, true, func() func() {
			sf, _ := sonyflake.New(sonyflake.Settings{MachineID: func() (int, error) { return 1, nil }})
			return func() { _, _ = sf.NextID() }
		}},
		"influxdata/influxdb-snowflake": {1, 4_096_000, false, func() func() {
			g := influx.New(1)
			return func() { _ = g.Next() }
		}},
		"google/uuid-v7": {-1, 0, false, func() func() { return func() { _, _ = uuid.NewV7() } }},
		"oklog/ulid-monotonic": {-1, 0, true, func() func() {
			e := ulid.Monotonic(mrand.New(mrand.NewSource(1)), 0)
			return func() { _, _ = ulid.New(ulid.Timestamp(time.Now()), e) }
		}},
	}
	for name, w := range stdlibWant {
		m[name] = w
	}
	return m
}()

func stdlibNames() []string {
	var names []string
	for name := range stdlibWant {
		names = append(names, name)
	}
	slices.Sort(names)
	return names
}

func TestAllOrderAndNames(t *testing.T) {
	all := peers.All()
	names := make([]string, len(all))
	seen := map[string]bool{}
	for i, s := range all {
		assert.NotEmpty(t, s.Name)
		assert.False(t, seen[s.Name], "duplicate name %q", s.Name)
		seen[s.Name] = true
		names[i] = s.Name
	}
	assert.Equal(t, wantNames, names)
	again := peers.All()
	for i := range all {
		assert.Equal(t, all[i].Name, again[i].Name, "All is not stable")
	}
}

func TestByName(t *testing.T) {
	for _, name := range wantNames {
		s, ok := peers.ByName(name)
		require.True(t, ok, name)
		assert.Equal(t, name, s.Name)
	}
	_, ok := peers.ByName("godruoyi/go-snowflake")
	assert.False(t, ok, "left-out library must not be listed")
	_, ok = peers.ByName("")
	assert.False(t, ok)
}

func TestSubjectFields(t *testing.T) {
	for _, s := range peers.All() {
		t.Run(s.Name, func(t *testing.T) {
			assert.True(t, s.Peer)
			// A module at its version, or a standard library package at
			// the Go release the lab was built with.
			assert.Regexp(t, `^[a-z0-9.\-/]+@(v\d+\.\d+\.\d+|go\d+\.\d+(\.\d+)?)$`, s.Library)
			assert.NotNil(t, s.New)
			assert.NotNil(t, s.Decode)
			assert.NotEmpty(t, s.Note)
			assert.NotEqual(t, subject.OrderShard, s.Order, "no peer shards")
			assert.Equal(t, s.PerTick == 0, s.Tick == 0, "PerTick and Tick come together")
			if s.PerTick > 0 {
				assert.Equal(t, 1, s.Nodes)
			}
		})
	}
	// The settings the report relies on.
	for _, s := range peers.All() {
		w, ok := want[s.Name]
		require.True(t, ok, "no want for %s", s.Name)
		assert.InDelta(t, w.ceiling, s.Ceiling(), 1e-6, s.Name)
		assert.Equal(t, w.strict, s.Strict, s.Name)
		assert.Equal(t, subject.OrderCaller, s.Order, s.Name)
	}
}

// TestSequential mints 20,000 IDs from one goroutine, half through Next and
// half through Fill: all unique and, for OrderCaller, strictly increasing.
func TestSequential(t *testing.T) {
	const n = 20_000
	for _, s := range peers.All() {
		t.Run(s.Name, func(t *testing.T) {
			t.Parallel()
			m, err := s.New()
			require.NoError(t, err)
			ids := make([]subject.ID, n)
			for i := range n / 2 {
				ids[i], err = m.Next()
				require.NoError(t, err)
			}
			k, err := subject.Fill(m, ids[n/2:])
			require.NoError(t, err)
			require.Equal(t, n-n/2, k)
			assert.Equal(t, 0, dups(ids), "duplicates")
			if s.Order == subject.OrderCaller {
				for i := 1; i < n; i++ {
					require.True(t, ids[i-1].Less(ids[i]), "order: ids[%d]=%x:%x !< ids[%d]=%x:%x", i-1, ids[i-1].Hi, ids[i-1].Lo, i, ids[i].Hi, ids[i].Lo)
				}
			}
			assert.Equal(t, snowlab.Stats{}, subject.Stats(m), "peers keep no stats")
		})
	}
}

// TestDecodeFresh decodes a just-minted ID: its time lies within 2 s of the
// clock (60 s ahead for the libraries that borrow ahead of the clock) and
// its node is the one configured.
func TestDecodeFresh(t *testing.T) {
	for _, s := range peers.All() {
		t.Run(s.Name, func(t *testing.T) {
			m, err := s.New()
			require.NoError(t, err)
			// Warm up a little, so a generator that borrows has had the chance.
			dst := make([]subject.ID, 1000)
			_, err = subject.Fill(m, dst)
			require.NoError(t, err)
			before := time.Now()
			id, err := m.Next()
			require.NoError(t, err)
			after := time.Now()
			got, node := s.Decode(id)
			ahead := 2 * time.Second
			if !s.Strict {
				ahead = 60 * time.Second
			}
			assert.True(t, !got.Before(before.Add(-2*time.Second)) && !got.After(after.Add(ahead)),
				"decoded %v, clock %v..%v", got, before, after)
			assert.Equal(t, want[s.Name].node, node)
		})
	}
}

// TestConcurrentUnique: 4 goroutines x 5,000 IDs from one instance are all
// unique and, for OrderCaller, increasing within each goroutine (run under
// -race).
func TestConcurrentUnique(t *testing.T) {
	const g, per = 4, 5_000
	for _, s := range peers.All() {
		t.Run(s.Name, func(t *testing.T) {
			t.Parallel()
			m, err := s.New()
			require.NoError(t, err)
			ids := make([]subject.ID, g*per)
			errs := make([]error, g)
			var wg sync.WaitGroup
			for w := range g {
				wg.Go(func() {
					part := ids[w*per : (w+1)*per]
					for i := range part {
						if part[i], errs[w] = m.Next(); errs[w] != nil {
							return
						}
					}
				})
			}
			wg.Wait()
			for _, err := range errs {
				require.NoError(t, err)
			}
			assert.Equal(t, 0, dups(ids), "duplicates")
			if s.Order == subject.OrderCaller {
				for w := range g {
					part := ids[w*per : (w+1)*per]
					for i := 1; i < len(part); i++ {
						require.True(t, part[i-1].Less(part[i]), "goroutine %d: order broken at %d: %x:%x !< %x:%x", w, i, part[i-1].Hi, part[i-1].Lo, part[i].Hi, part[i].Lo)
					}
				}
			}
		})
	}
}

// TestDecodeKnown decodes IDs taken from a library's own tests or spec, or
// composed by hand from its documented layout, and where the library can
// parse the same ID itself, checks that it agrees.
func TestDecodeKnown(t *testing.T) {
	at := time.Date(2024, 1, 1, 0, 0, 0, 123_000_000, time.UTC)
	ms := at.UnixMilli()
	sfStart := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	at25 := time.Date(2025, 6, 30, 12, 34, 56, 789_000_000, time.UTC)
	el1 := uint64(at25.Sub(sfStart) / time.Millisecond)
	el10 := uint64(at25.Sub(sfStart) / (10 * time.Millisecond))
	rfc := uuid.MustParse("017F22E2-79B0-7CC3-98C4-DC0C0C07398F") // RFC 9562 A.6
	ul := ulid.MustParse("01ARYZ6S410000000000000000")            // oklog/ulid TestAlizainCompatibility

	tests := []struct {
		subject  string
		id       subject.ID
		wantTime time.Time
		wantNode int
		library  func(subject.ID) (time.Time, int) // the library's own parse, where it has one
	}{
		{"bwmarrin/snowflake", subject.ID{Lo: uint64(ms-snowflake.Epoch)<<22 | 5<<12 | 7}, at, 5,
			func(id subject.ID) (time.Time, int) {
				f := snowflake.ParseInt64(int64(id.Lo))
				return time.UnixMilli(f.Time()), int(f.Node())
			}},
		{"bwmarrin/snowflake", subject.ID{Lo: 0}, time.UnixMilli(1288834974657), 0, nil},
		{"bwmarrin/snowflake", subject.ID{Lo: 1<<63 - 1}, time.UnixMilli(1288834974657 + 1<<41 - 1), 1023, nil},
		{"sony/sonyflake-1ms", subject.ID{Lo: el1<<22 | 4095<<10 | 1023}, at25, 1023, sonyCompose(t, 12, 10, time.Millisecond, at25, 4095, 1023)},
		{"sony/sonyflake-1ms", subject.ID{Lo: 0}, sfStart, 0, nil},
		{"sony/sonyflake", subject.ID{Lo: el10<<24 | 17<<16 | 0xBEEF}, at25.Truncate(10 * time.Millisecond), 0xBEEF, sonyCompose(t, 0, 0, 0, at25, 17, 0xBEEF)},
		{"influxdata/influxdb-snowflake", subject.ID{Lo: 0}, time.Date(2017, 4, 9, 0, 0, 0, 0, time.UTC), 0, nil},
		{"influxdata/influxdb-snowflake", subject.ID{Lo: uint64(ms-1491696000000)<<22 | 999<<12 | 4095}, at, 999, nil},
		{"influxdata/influxdb-snowflake", subject.ID{Lo: 1<<64 - 1}, time.UnixMilli(1491696000000 + 1<<42 - 1), 1023, nil},
		{"google/uuid-v7", uuidID(rfc), time.Date(2022, 2, 22, 19, 22, 22, 0, time.UTC), -1,
			func(id subject.ID) (time.Time, int) {
				sec, nsec := rfc.Time().UnixTime()
				return time.Unix(sec, nsec), -1
			}},
		{"oklog/ulid-monotonic", ulidID(ul), time.UnixMilli(1469918176385), -1,
			func(subject.ID) (time.Time, int) { return ul.Timestamp(), -1 }},
	}
	for i, tc := range tests {
		t.Run(fmt.Sprintf("%s/%d", tc.subject, i), func(t *testing.T) {
			s, ok := peers.ByName(tc.subject)
			require.True(t, ok)
			got, node := s.Decode(tc.id)
			assert.True(t, tc.wantTime.Equal(got), "time %v, want %v", got.UTC(), tc.wantTime)
			assert.Equal(t, tc.wantNode, node)
			if tc.library != nil {
				lt, ln := tc.library(tc.id)
				assert.True(t, lt.Equal(got), "library says %v, Decode %v", lt.UTC(), got.UTC())
				assert.Equal(t, ln, node)
			}
		})
	}
}

// sonyCompose checks the hand-composed ID against the library's Compose
// and returns its decoding through the library's ToTime and Decompose.
func sonyCompose(t *testing.T, bitsSeq, bitsMachine int, unit time.Duration, at time.Time, seq, machine int) func(subject.ID) (time.Time, int) {
	sf, err := sonyflake.New(sonyflake.Settings{
		BitsSequence: bitsSeq, BitsMachineID: bitsMachine, TimeUnit: unit,
		MachineID: func() (int, error) { return 1, nil },
	})
	require.NoError(t, err)
	want, err := sf.Compose(at, seq, machine)
	require.NoError(t, err)
	return func(id subject.ID) (time.Time, int) {
		assert.Equal(t, uint64(want), id.Lo, "hand-composed ID differs from sonyflake.Compose")
		return sf.ToTime(int64(id.Lo)), int(sf.Decompose(int64(id.Lo))["machine"])
	}
}

func uuidID(u uuid.UUID) subject.ID {
	return subject.ID{Hi: binary.BigEndian.Uint64(u[:8]), Lo: binary.BigEndian.Uint64(u[8:])}
}

func ulidID(u ulid.ULID) subject.ID {
	return subject.ID{Hi: binary.BigEndian.Uint64(u[:8]), Lo: binary.BigEndian.Uint64(u[8:])}
}

// Test128BitByteOrder: Less on the adapted IDs agrees with the byte order
// of the UUIDs/ULIDs they came from.
func Test128BitByteOrder(t *testing.T) {
	a := uuid.MustParse("017F22E2-79B0-7CC3-98C4-DC0C0C07398F")
	b := a
	b[15]++
	c := a
	c[8]++
	assert.True(t, uuidID(a).Less(uuidID(b)))
	assert.True(t, uuidID(b).Less(uuidID(c)))
	x := ulid.MustParse("01ARYZ6S410000000000000000")
	y := ulid.MustParse("01ARYZ6S420000000000000000")
	assert.Equal(t, -1, x.Compare(y))
	assert.True(t, ulidID(x).Less(ulidID(y)))
}

// TestAllocs: the adapters add no allocation to the library's own. Each
// Next is measured against a direct call of the library, and Fill per ID
// against Next; the numbers are logged (go test -v -run Allocs).
func TestAllocs(t *testing.T) {
	if testing.Short() {
		t.Skip("allocation counts")
	}
	for _, s := range peers.All() {
		t.Run(s.Name, func(t *testing.T) {
			m, err := s.New()
			require.NoError(t, err)
			runs := 2000
			if s.Name == "sony/sonyflake" {
				runs = 200 // 256 IDs per 10 ms
			}
			lib := testing.AllocsPerRun(runs, want[s.Name].direct())
			next := testing.AllocsPerRun(runs, func() { _, _ = m.Next() })
			dst := make([]subject.ID, 64)
			fill := testing.AllocsPerRun(runs/64+1, func() { _, _ = subject.Fill(m, dst) }) / float64(len(dst))
			t.Logf("allocs/ID: library %.2f, Next %.2f, Fill %.2f", lib, next, fill)
			assert.LessOrEqual(t, next, lib, "Next allocates beyond the library")
			assert.LessOrEqual(t, fill, lib+0.02, "Fill allocates beyond the library")
		})
	}
}

func BenchmarkNext(b *testing.B) {
	for _, s := range peers.All() {
		b.Run(s.Name, func(b *testing.B) {
			m, err := s.New()
			require.NoError(b, err)
			b.ReportAllocs()
			for b.Loop() {
				if _, err := m.Next(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func dups(ids []subject.ID) int {
	seen := make(map[subject.ID]struct{}, len(ids))
	d := 0
	for _, id := range ids {
		if _, ok := seen[id]; ok {
			d++
		}
		seen[id] = struct{}{}
	}
	return d
}
