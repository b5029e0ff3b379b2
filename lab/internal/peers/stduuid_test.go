//go:build go1.27

package peers_test

import (
	"sync"
	"testing"
	"time"
	"uuid"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/snowlab/snowlab/lab/internal/peers"
	"github.com/snowlab/snowlab/lab/subject"
)

// stdlibWant: Go 1.27's uuid.NewV7 has no node, no ceiling and is not
// strict (its last+1 carries into the milliseconds under load).
var stdlibWant = map[string]peerWant{
	"stdlib/uuid-v7": {-1, 0, false, func() func() { return func() { _ = uuid.NewV7() } }},
}

// TestStdUUIDv7Promises checks what stduuid.go says of Go 1.27's NewV7,
// through the adapter, across goroutines: (1) version 7, variant 10;
// (2) every call's 60-bit timestamp (the first 8 bytes less the version
// nibble) differs from every other call's, across the goroutines: one
// last value for the whole package, advanced under its mutex; and each
// goroutine's IDs increase; (3) the state is the package's, not the instance's: IDs from
// two instances interleaved in one goroutine increase; (4) the decoded
// time is the clock's, give or take the run-ahead.
func TestStdUUIDv7Promises(t *testing.T) {
	s, ok := peers.ByName("stdlib/uuid-v7")
	require.True(t, ok, "built with Go 1.27, the lab lists the standard library's NewV7")
	const g, per = 8, 5_000
	m, err := s.New()
	require.NoError(t, err)
	before := time.Now()
	ids := make([][]subject.ID, g)
	var wg sync.WaitGroup
	for w := range g {
		ids[w] = make([]subject.ID, per)
		wg.Go(func() {
			for i := range ids[w] {
				ids[w][i], _ = m.Next()
			}
		})
	}
	wg.Wait()
	after := time.Now()
	stamps := make(map[uint64]bool, g*per)
	for w := range g {
		for i, id := range ids[w] {
			b := id.Bytes128()
			require.Equal(t, byte(7), b[6]>>4, "version")
			require.Equal(t, byte(0b10), b[8]>>6, "variant")
			ts := id.Hi>>16<<12 | id.Hi&0x0fff
			require.False(t, stamps[ts], "goroutine %d, ID %d: timestamp %x handed out twice", w, i, ts)
			stamps[ts] = true
			if i > 0 {
				require.True(t, ids[w][i-1].Less(id), "goroutine %d: order broken at %d", w, i)
			}
			got, node := s.Decode(id)
			assert.Equal(t, -1, node)
			// 40,000 calls can run ahead of the clock by at most
			// 40,000/4,096 ms through the carry.
			require.False(t, got.Before(before.Truncate(time.Millisecond)) || got.After(after.Add(10*time.Millisecond)),
				"decoded %v outside %v..%v", got, before, after)
		}
	}
	m2, err := s.New()
	require.NoError(t, err)
	a, _ := m.Next()
	b, _ := m2.Next()
	c, _ := m.Next()
	assert.True(t, a.Less(b) && b.Less(c), "instances share the package's state")
}

// TestStdUUIDv7DecodeKnown decodes RFC 9562's UUIDv7 example (A.6), parsed
// by the standard library.
func TestStdUUIDv7DecodeKnown(t *testing.T) {
	s, ok := peers.ByName("stdlib/uuid-v7")
	require.True(t, ok)
	got, node := s.Decode(subject.ID128(uuid.MustParse("017F22E2-79B0-7CC3-98C4-DC0C0C07398F")))
	assert.True(t, time.Date(2022, 2, 22, 19, 22, 22, 0, time.UTC).Equal(got), "decoded %v", got.UTC())
	assert.Equal(t, -1, node)
}
