package snowidcli

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/snowlab/snowlab"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// refusedInOneLine asserts a refusal: exit 2, nothing on stdout, and one
// line on stderr from the command, naming each of names.
func refusedInOneLine(t *testing.T, sub string, stdout, stderr string, code int, names ...string) {
	t.Helper()
	assert.Equal(t, exitUsage, code)
	assert.Empty(t, stdout)
	assert.Equal(t, 1, strings.Count(stderr, "\n"), "stderr %q", stderr)
	assert.True(t, strings.HasPrefix(stderr, "snowid "+sub+": "), "stderr %q", stderr)
	for _, n := range names {
		assert.Contains(t, stderr, n)
	}
}

func TestRangeCommand(t *testing.T) {
	from := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	to := from.AddDate(0, 0, 1)
	lo, hi, err := snowlab.DefaultLayout.Range(from, to)
	require.NoError(t, err)
	want := fmt.Sprintf(`from:  2025-01-01T00:00:00.000Z
to:    2025-01-02T00:00:00.000Z
lo:    %d
hi:    %d
sql:   id >= %d AND id < %d
`, lo, hi, lo, hi)
	for _, args := range [][]string{
		{"2025-01-01T00:00:00Z", "2025-01-02T00:00:00Z"},
		{"2025-01-01", "2025-01-02"},
		{"2025-01-01T05:30:00+05:30", "2025-01-02T00:00:00.000Z"},
		{"2025-01-01", "-layout", "41/10/12", "2025-01-02"},
	} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			stdout, stderr, code := snowid(t, append([]string{"range"}, args...)...)
			require.Equal(t, exitOK, code, stderr)
			assert.Empty(t, stderr)
			assert.Equal(t, want, stdout)
		})
	}
	// The figures themselves: 366 days after the 2024 epoch, shifted 22 bits.
	assert.Equal(t, snowlab.ID(31_622_400_000<<22), lo)

	t.Run("inside a tick", func(t *testing.T) {
		stdout, stderr, code := snowid(t, "range", "2025-01-01T00:00:00.0005Z", "2025-01-01T00:00:01Z")
		require.Equal(t, exitOK, code, stderr)
		assert.Contains(t, stdout, "from:  2025-01-01T00:00:00.001Z (2025-01-01T00:00:00.0005Z rounded up to a tick of 1ms)\n")
		assert.Contains(t, stdout, "to:    2025-01-01T00:00:01.000Z\n")
		assert.Contains(t, stdout, fmt.Sprintf("lo:    %d\n", lo+1<<22))
	})

	t.Run("other layout", func(t *testing.T) {
		stdout, stderr, code := snowid(t, "range", "-layout", "41/12/10", "-epoch", "2025-01-01T00:00:00Z", "2025-01-01", "2025-01-01T00:00:00.002Z")
		require.Equal(t, exitOK, code, stderr)
		assert.Contains(t, stdout, "lo:    0\nhi:    8388608\n") // 2 ms << 22
	})
}

func TestRangeCommandRefuses(t *testing.T) {
	for _, tc := range []struct {
		name  string
		args  []string
		names []string
	}{
		{"one argument", []string{"2025-01-01"}, []string{"want FROM and TO, got 1"}},
		{"three arguments", []string{"2025-01-01", "2025-01-02", "2025-01-03"}, []string{"got 3"}},
		{"bad from", []string{"yesterday", "2025-01-02"}, []string{`FROM "yesterday"`, "RFC 3339"}},
		{"bad to", []string{"2025-01-01", "2025-13-01"}, []string{`TO "2025-13-01"`}},
		{"reversed", []string{"2025-01-02", "2025-01-01"}, []string{"reversed interval", "invalid configuration"}},
		{"before the epoch", []string{"2023-12-31", "2025-01-01"}, []string{"before the epoch", "outside the layout's window"}},
		{"past the horizon", []string{"2025-01-01", "2093-09-06T15:47:35.552Z"}, []string{"past 2093-09-06T15:47:35.551Z"}},
		{"bad layout", []string{"-layout", "40/10/12", "2025-01-01", "2025-01-02"}, []string{`-layout "40/10/12"`, "invalid layout"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			stdout, stderr, code := snowid(t, append([]string{"range"}, tc.args...)...)
			if tc.name == "one argument" || tc.name == "three arguments" {
				// A usage error: its first line names it (the usage may follow).
				assert.Equal(t, exitUsage, code)
				assert.Empty(t, stdout)
				first, _, _ := strings.Cut(stderr, "\n")
				assert.True(t, strings.HasPrefix(first, "snowid range: want FROM and TO"), stderr)
				assert.Contains(t, first, tc.names[0])
				return
			}
			refusedInOneLine(t, "range", stdout, stderr, code, tc.names...)
		})
	}
}
