package cli

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// loadgen faults refuses what can never run with one line naming the
// value and exit 2, before starting anything.
func TestFaultsUsageErrors(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"faults", "-set", "medium"}, `set "medium": want short or full`},
		{[]string{"faults", "-scenarios", "leader-killed,meteor"}, `no scenario "meteor"`},
		{[]string{"faults", "-clients", "0"}, "-clients 0: want 1 to 64"},
		{[]string{"faults", "-snowidd", "/no/such/snowidd"}, "/no/such/snowidd"},
		{[]string{"faults", "extra"}, `unexpected argument "extra"`},
		{[]string{"faults", "-clients", "many"}, "-clients"},
	} {
		code, out, errs := runArgs(tc.args...)
		assert.Equal(t, exitUsage, code, "%v", tc.args)
		assert.Contains(t, errs, tc.want, "%v", tc.args)
		assert.Equal(t, 1, strings.Count(strings.TrimSpace(errs), "\n")+1, "%v: one line: %s", tc.args, errs)
		assert.Empty(t, out, "%v", tc.args)
	}
}

// -list names every scenario and marks CI's.
func TestFaultsList(t *testing.T) {
	code, out, errs := runArgs("faults", "-list")
	assert.Equal(t, exitOK, code, errs)
	for _, want := range []string{"leader-killed ", "replica-cut-off", "holders-1024", "(short set)"} {
		assert.Contains(t, out, want)
	}
}
