package snowidcli

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// withNow runs the test with the commands' clock at t.
func withNow(t *testing.T, at time.Time) {
	t.Helper()
	saved := now
	now = func() time.Time { return at }
	t.Cleanup(func() { now = saved })
}

// An epoch in 2150 (a typo for 2015): layout says no years are left yet
// and that nothing can be minted before the epoch, instead of the 194
// years from now to the horizon.
func TestLayoutWithAFutureEpoch(t *testing.T) {
	withNow(t, time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC))
	stdout, stderr, code := snowid(t, "layout", "-epoch", "2150-01-01T00:00:00Z")
	require.Equal(t, exitOK, code, stderr)
	assert.Contains(t, stdout, "horizon     2219-09-08T15:47:35.552Z (69.7 years after the epoch)\n")
	assert.Contains(t, stdout, "years left  none yet: the epoch is 125.0 years after 2025-01-01, and nothing can be minted before it\n")
	assert.NotContains(t, stdout, "194.")

	stdout, _, code = snowid(t, "layout", "-epoch", "2025-01-02T12:00:00Z")
	require.Equal(t, exitOK, code)
	assert.Contains(t, stdout, "years left  none yet: the epoch is 1.5 days after 2025-01-01, and nothing can be minted before it\n")
}

// gen on a clock outside the layout's window mints nothing: one line
// naming the flags, the window and how far outside it the clock is, exit
// 2, before any lease is taken.
func TestGenOutsideTheWindow(t *testing.T) {
	withNow(t, time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC))
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"-epoch", "2150-01-01T00:00:00Z"},
			`snowid: gen -epoch "2150-01-01T00:00:00Z": snowlab: value outside the layout's window [2150-01-01T00:00:00.000Z, 2219-09-08T15:47:35.552Z): the epoch is 125.0 years after the clock (2025-01-01T00:00:00Z): nothing can be minted before it` + "\n"},
		{[]string{"-layout", "35/16/12", "-epoch", "0"},
			`snowid: gen -epoch "0" -layout "35/16/12": snowlab: value outside the layout's window [1970-01-01T00:00:00.000Z, 1971-02-02T16:22:18.368Z): the horizon passed 53.9 years before the clock (2025-01-01T00:00:00Z): nothing can be minted any more` + "\n"},
		{[]string{"-epoch", "2025-01-01T00:00:01Z", "-lease", "dir:/nonexistent/never/taken"},
			`snowid: gen -epoch "2025-01-01T00:00:01Z": snowlab: value outside the layout's window [2025-01-01T00:00:01.000Z, 2094-09-07T15:47:36.552Z): the epoch is 1s after the clock (2025-01-01T00:00:00Z): nothing can be minted before it` + "\n"},
	} {
		stdout, stderr, code := snowid(t, append([]string{"gen"}, tc.args...)...)
		assert.Equal(t, exitUsage, code, "%v", tc.args)
		assert.Empty(t, stdout)
		assert.Equal(t, tc.want, stderr)
	}
	stdout, stderr, code := snowid(t, "gen", "-epoch", "2024-12-31T23:59:59Z")
	assert.Equal(t, exitOK, code, "a second after the epoch: %s", stderr)
	assert.NotEmpty(t, stdout)
}

// plan from an epoch ahead of the clock says so and counts the years
// left from the epoch, not from now.
func TestPlanWithAFutureEpoch(t *testing.T) {
	withPlanDate(t)
	args := []string{"plan", "-processes", "400", "-surge", "2", "-burst", "100000", "-epoch", "2150-01-01T00:00:00Z"}
	stdout, stderr, code := snowid(t, args...)
	require.Equal(t, exitOK, code, stderr)
	assert.Contains(t, stdout, "the epoch is 124.0 years after 2026-01-01: nothing can be minted before it, and the years left below count from it\n")
	golden(t, "plan_future_epoch.golden", stdout)
}
