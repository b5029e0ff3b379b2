package inject

import (
	"flag"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/snowlab/snowlab/lab/subject"
)

// TestSlow: only atomicgen's subjects are slowed, said in their note, with
// batching off; their minters still hand out the generator's own IDs, and
// the caller's slice is left alone.
func TestSlow(t *testing.T) {
	all := subject.Own(1)
	got := Slow(all)
	require.Len(t, got, len(all))
	slowedAny := false
	for i, s := range got {
		if !strings.HasPrefix(s.Name, "atomicgen/") {
			assert.Equal(t, all[i].Note, s.Note, s.Name)
			continue
		}
		slowedAny = true
		assert.Equal(t, Note, s.Note, s.Name)
		assert.False(t, s.Batch, s.Name)
		assert.NotEqual(t, Note, all[i].Note, "the caller's subject is not changed")
		m, err := s.New()
		require.NoError(t, err)
		_, ok := m.(slowMinter)
		assert.True(t, ok, "%s mints through the slowdown", s.Name)
		a, err := m.Next()
		require.NoError(t, err)
		b, err := m.Next()
		require.NoError(t, err)
		assert.NotEqual(t, a, b, s.Name)
	}
	assert.True(t, slowedAny, "subject.Own holds an atomicgen subject")
}

// TestRegisterHides: the flag parses, and the usage lists every flag but
// it.
func TestRegisterHides(t *testing.T) {
	fs := flag.NewFlagSet("loadgen check", flag.ContinueOnError)
	var out strings.Builder
	fs.SetOutput(&out)
	fs.Bool("q", false, "no progress bar")
	on := Register(fs)
	require.NoError(t, fs.Parse([]string{"-" + Flag}))
	assert.True(t, *on)
	fs.Usage()
	assert.Contains(t, out.String(), "Usage of loadgen check:")
	assert.Contains(t, out.String(), "-q")
	assert.NotContains(t, out.String(), Flag)
}

// TestPlant: atomicgen's subjects get the planted work, said in their
// note, whole steps and the fraction of IDs that take one more; their IDs
// are still the generator's; a bad q is refused.
func TestPlant(t *testing.T) {
	all := subject.Own(1)
	got, err := Plant(all, 2<<FracBits+307)
	require.NoError(t, err)
	n := 0
	for i, s := range got {
		if !Planted(s.Name) {
			assert.Equal(t, all[i].Note, s.Note, s.Name)
			continue
		}
		n++
		assert.Equal(t, PlantNote, s.Note, s.Name)
		assert.False(t, s.Batch, s.Name)
		m, err := s.New()
		require.NoError(t, err)
		pm := m.(plantedMinter)
		assert.Equal(t, 2, pm.whole, s.Name)
		assert.Equal(t, uint64(307), pm.frac, "%s: 307 of 1,024 IDs take a third step", s.Name)
		a, err := m.Next()
		require.NoError(t, err)
		b, err := m.Next()
		require.NoError(t, err)
		assert.True(t, a.Less(b), "%s: planted minter still mints increasing IDs", s.Name)
	}
	assert.Equal(t, 2, n, "both atomicgen subjects are planted")
	for _, q := range []int{0, -1, 1<<30 + 1} {
		_, err = Plant(all, q)
		assert.ErrorContains(t, err, fmt.Sprintf("planting %d/1024", q))
	}
}

// TestWork: Work does its steps (a different value for each count).
func TestWork(t *testing.T) {
	assert.Equal(t, uint64(7), Work(0, 7))
	assert.NotEqual(t, Work(1, 7), Work(2, 7))
}
