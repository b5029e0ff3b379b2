package cli

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// loadgen peerfaults refuses what can never run with one line naming the
// value and exit 2, before playing anything.
func TestPeerfaultsUsageErrors(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"peerfaults", "-per-ms", "0"}, "-per-ms 0: want 1 to 4096"},
		{[]string{"peerfaults", "-per-ms", "5000"}, "-per-ms 5000: want 1 to 4096"},
		{[]string{"peerfaults", "-restarts", "0"}, "-restarts 0: want 1 to 10000"},
		{[]string{"peerfaults", "-scenarios", "bwmarrin-53,meteor"}, `unknown scenario "meteor"`},
		{[]string{"peerfaults", "extra"}, `unexpected argument "extra"`},
	} {
		code, out, errs := runArgs(tc.args...)
		assert.Equal(t, exitUsage, code, "%v", tc.args)
		assert.Contains(t, errs, tc.want, "%v", tc.args)
		assert.Equal(t, 1, strings.Count(strings.TrimSpace(errs), "\n")+1, "%v: one line: %s", tc.args, errs)
		assert.Empty(t, out, "%v", tc.args)
	}
}

// -list names every scenario with its peer's issue.
func TestPeerfaultsList(t *testing.T) {
	code, out, errs := runArgs("peerfaults", "-list")
	assert.Equal(t, exitOK, code, errs)
	for _, want := range []string{"bwmarrin-53", "https://github.com/bwmarrin/snowflake/pull/53",
		"Meituan-Dianping/Leaf#216", "yitter/IdGenerator#110", "baidu/uid-generator#85", "baidu/uid-generator#88"} {
		assert.Contains(t, out, want)
	}
}
