package loadgen_test

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/snowlab/snowlab/lab/loadgen"
)

// TestMainIsTheCommand: Main is loadgen itself, as cmd/loadgen's main
// calls it: help lists the subcommands on stdout with status 0, and an
// unknown subcommand is one line naming it on stderr with status 2.
func TestMainIsTheCommand(t *testing.T) {
	var out, errs bytes.Buffer
	assert.Equal(t, 0, loadgen.Main([]string{"help"}, &out, &errs))
	for _, sub := range []string{"compare", "check", "history", "publish", "btree", "alternatives", "service", "faults"} {
		assert.Contains(t, out.String(), sub)
	}
	assert.Empty(t, errs.String())

	out.Reset()
	errs.Reset()
	assert.Equal(t, 2, loadgen.Main([]string{"nosuch"}, &out, &errs))
	assert.Equal(t, "loadgen: unknown command \"nosuch\" (run 'loadgen help' for the commands)\n", errs.String())
	assert.Empty(t, out.String())
}
