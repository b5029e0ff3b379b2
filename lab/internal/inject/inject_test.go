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
