package subject

import (
	"errors"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/snowlab/snowlab"
)

func TestFunc(t *testing.T) {
	var n atomic.Uint64
	next := func() (uint64, error) { return n.Add(1), nil }
	fill := func(dst []uint64) (int, error) {
		for i := range dst {
			dst[i] = n.Add(1)
		}
		return len(dst), nil
	}

	s := Func("mine", next, fill)
	assert.Equal(t, "mine", s.Name)
	assert.True(t, s.Batch)
	m, err := s.New()
	require.NoError(t, err)
	id, err := m.Next()
	require.NoError(t, err)
	assert.Equal(t, ID{Lo: 1}, id)
	dst := make([]ID, 5)
	got, err := Fill(m, dst)
	require.NoError(t, err)
	assert.Equal(t, 5, got)
	assert.Equal(t, []ID{{Lo: 2}, {Lo: 3}, {Lo: 4}, {Lo: 5}, {Lo: 6}}, dst, "the batch call wrote them, widened in place")

	// Without a batch call the lab fills through Next.
	s = Func("mine", next, nil)
	assert.False(t, s.Batch)
	m, err = s.New()
	require.NoError(t, err)
	_, isFiller := m.(Filler)
	assert.False(t, isFiller)
	got, err = Fill(m, dst[:2])
	require.NoError(t, err)
	assert.Equal(t, 2, got)

	// IDs are decoded in snowlab's default layout.
	l := snowlab.DefaultLayout
	want := l.Decode(snowlab.ID(1<<22 | 7<<12))
	at, node := s.Decode(ID{Lo: 1<<22 | 7<<12})
	assert.Equal(t, want.Time, at)
	assert.Equal(t, 7, node)
}

func TestFuncErrors(t *testing.T) {
	boom := errors.New("boom")
	s := Func("failing", func() (uint64, error) { return 0, boom },
		func(dst []uint64) (int, error) { dst[0] = 9; return 1, boom })
	m, err := s.New()
	require.NoError(t, err)
	_, err = m.Next()
	assert.ErrorIs(t, err, boom)
	dst := make([]ID, 3)
	n, err := Fill(m, dst)
	assert.ErrorIs(t, err, boom)
	assert.Equal(t, 1, n)
	assert.Equal(t, ID{Lo: 9}, dst[0])
}
