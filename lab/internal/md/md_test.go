package md

import (
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestHelpers(t *testing.T) {
	assert.Equal(t, "`a b`", Code("a b"))
	assert.Equal(t, "``a`b``", Code("a`b"))
	assert.Equal(t, "`` `x ``", Code("`x"))
	assert.Equal(t, `a\|b c`, cell.Replace("a|b\nc"))
	assert.Equal(t, `a\_b \*c\* &lt;d&gt;`, Escape("a_b *c* <d>"))
	assert.Equal(t, `lab run 'a b' 'it'\''s' ''`, ShellJoin([]string{"lab", "run", "a b", "it's", ""}))
	assert.Equal(t, "—", OrDash(" "))
	assert.Equal(t, "x", OrDash("x"))
}

func TestTable(t *testing.T) {
	var b strings.Builder
	w := NewWriter(&b)
	w.Table([]string{"A", "B"}, [][]string{{"1", "x|y"}})
	assert.NoError(t, w.Err())
	assert.Equal(t, "| A | B |\n|---|---|\n| 1 | x\\|y |\n\n", b.String())
}

type failWriter struct{ n int }

var errFull = errors.New("disk full")

func (f *failWriter) Write(p []byte) (int, error) {
	f.n++
	return 0, errFull
}

// TestWriterKeepsFirstError: after a failed write nothing more is
// attempted and the first error is kept.
func TestWriterKeepsFirstError(t *testing.T) {
	f := &failWriter{}
	w := NewWriter(f)
	w.Printf("a %d\n", 1)
	w.text("b")
	w.Table([]string{"h"}, nil)
	assert.ErrorIs(t, w.Err(), errFull)
	assert.Equal(t, 1, f.n)
}
