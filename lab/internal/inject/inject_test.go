package inject

import (
	"flag"
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
// note, sized from their cost per ID; their IDs are still the
// generator's; a subject without a cost, or a bad size, is refused.
func TestPlant(t *testing.T) {
	all := subject.Own(1)
	costs := map[string]float64{}
	for _, s := range all {
		if strings.HasPrefix(s.Name, "atomicgen/") {
			costs[s.Name] = 40
		}
	}
	got, err := Plant(all, Planting{Pct: 5, StepNs: 1, NsPerID: costs})
	require.NoError(t, err)
	for i, s := range got {
		if _, ok := costs[s.Name]; !ok {
			assert.Equal(t, all[i].Note, s.Note, s.Name)
			continue
		}
		assert.Equal(t, PlantNote, s.Note, s.Name)
		m, err := s.New()
		require.NoError(t, err)
		pm := m.(plantedMinter)
		// 5% of 40 ns at 1 ns a step: 2 steps a call.
		assert.Equal(t, 2, pm.whole, s.Name)
		assert.Equal(t, uint64(0), pm.frac, s.Name)
		a, err := m.Next()
		require.NoError(t, err)
		b, err := m.Next()
		require.NoError(t, err)
		assert.True(t, a.Less(b), "%s: planted minter still mints increasing IDs", s.Name)
	}
	got, err = Plant(all, Planting{Pct: 3, StepNs: 4, NsPerID: costs})
	require.NoError(t, err)
	for _, s := range got {
		if s.Note == PlantNote {
			m, _ := s.New()
			pm := m.(plantedMinter)
			// 3% of 40 ns = 1.2 ns = 0.3 steps: 307 of 1,024 IDs take one.
			assert.Equal(t, 0, pm.whole)
			assert.Equal(t, uint64(307), pm.frac)
		}
	}
	_, err = Plant(all, Planting{Pct: 5, StepNs: 1, NsPerID: map[string]float64{}})
	assert.ErrorContains(t, err, "no clean cost per ID for atomicgen/")
	_, err = Plant(all, Planting{Pct: 0, StepNs: 1, NsPerID: costs})
	assert.ErrorContains(t, err, "planting 0%")
}

// TestWork: Work does its steps (a different value for each count), and
// StepCost measures something positive.
func TestWork(t *testing.T) {
	assert.Equal(t, uint64(7), Work(0, 7))
	assert.NotEqual(t, Work(1, 7), Work(2, 7))
	assert.Greater(t, StepCost(), 0.0)
}
