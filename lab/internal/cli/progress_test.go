package cli

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestNotATerminal: on a writer that is no terminal (a CI log, a pipe)
// and under -q the bar shows nothing and its steps are no-ops.
func TestNotATerminal(t *testing.T) {
	var b strings.Builder
	for _, quiet := range []bool{false, true} {
		bar := newProgress(&b, quiet, 3)
		assert.Nil(t, bar.bar)
		bar.step(1, 3, "burst")
		bar.finish()
	}
	assert.Empty(t, b.String())
}
