package snowidcli

import (
	"fmt"
	"testing"
	"time"

	"github.com/snowlab/snowlab"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Calendar months in UTC: each partition runs from a 1st at 00:00 to the
// next, whatever the month's length (February 2024 has 29 days, 2025's
// 28), over a year's end, and partitions meet. The golden file holds
// the statements as a user reads them.
func TestPartitionsMonths(t *testing.T) {
	for _, tc := range []struct {
		golden, every string
		months        int
	}{
		{"partitions_months.golden", "month", 1},
		{"", "1mo", 1},
		{"partitions_quarters.golden", "3mo", 3},
	} {
		t.Run(tc.every, func(t *testing.T) {
			stdout, stderr, code := snowid(t, "partitions", "-table", "events", "-from", "2024-01-01", "-to", "2025-04-01", "-every", tc.every)
			require.Equal(t, exitOK, code, stderr)
			assert.Empty(t, stderr)
			if tc.golden != "" {
				golden(t, tc.golden, stdout)
			}
			ps := statements(t, stdout)
			require.Len(t, ps, 15/tc.months)
			for i, p := range ps {
				start := time.Date(2024, time.January+time.Month(i*tc.months), 1, 0, 0, 0, 0, time.UTC)
				end := time.Date(2024, time.January+time.Month((i+1)*tc.months), 1, 0, 0, 0, 0, time.UTC)
				lo, hi, err := snowlab.DefaultLayout.Range(start, end)
				require.NoError(t, err)
				assert.Equal(t, fmt.Sprintf(`"events_%s"`, start.Format("200601")), p.name)
				assert.Equal(t, lo, p.lo, "partition %d", i)
				assert.Equal(t, hi, p.hi, "partition %d", i)
			}
			// February 2024, a leap year's: 29 days of IDs.
			feb := ps[1/tc.months]
			if tc.months == 1 {
				assert.Equal(t, int64(29*24*time.Hour/time.Millisecond), int64((feb.hi-feb.lo)>>22))
			}
		})
	}
}

// A month's start is read in UTC whatever offset -from is written with,
// and months are never a duration: 720h or 30 days would drift.
func TestPartitionsMonthsFromOffset(t *testing.T) {
	stdout, stderr, code := snowid(t, "partitions", "-table", "events", "-from", "2025-02-01T01:00:00+01:00", "-to", "2025-03-01", "-every", "month")
	require.Equal(t, exitOK, code, stderr)
	ps := statements(t, stdout)
	require.Len(t, ps, 1)
	assert.Equal(t, `"events_202502"`, ps[0].name)
}

func TestPartitionsMonthsRefuses(t *testing.T) {
	args := func(from, to, every string, more ...string) []string {
		return append([]string{"partitions", "-table", "events", "-from", from, "-to", to, "-every", every}, more...)
	}
	for _, tc := range []struct {
		name  string
		args  []string
		names []string
	}{
		{"from mid-month", args("2025-01-15", "2025-04-01", "month"),
			[]string{"-from 2025-01-15 is not the start of a calendar month in UTC", "such as 2025-01-01 or 2025-02-01"}},
		{"from not midnight", args("2025-01-01T06:00:00Z", "2025-04-01", "month"), []string{"-from 2025-01-01T06:00:00Z is not the start"}},
		{"to mid-month", args("2025-01-01", "2025-03-31", "1mo"), []string{"-to 2025-03-31 is not the start of a calendar month", "such as 2025-03-01 or 2025-04-01"}},
		{"to an offset's midnight", args("2025-01-01", "2025-04-01T00:00:00+02:00", "1mo"), []string{"-to 2025-04-01T00:00:00+02:00 is not the start"}},
		{"not whole partitions", args("2025-01-01", "2025-05-01", "3mo"), []string{"-to 2025-05-01 is not -from plus a whole number of -every 3mo (1, then 1 month over)"}},
		{"same month", args("2025-01-01", "2025-01-01", "month"), []string{"same instant"}},
		{"reversed", args("2025-03-01", "2025-01-01", "month"), []string{"reversed interval"}},
		// February 1st is 31 days (2,678,400,000 ms) past the epoch: 3 ms into a tick of 7.
		{"not at ticks", args("2024-01-01", "2024-04-01", "1mo", "-layout", "38/13/12", "-unit", "7ms"),
			[]string{"the partition starting 2024-02-01 is inside a tick of 7ms (3ms past its start)"}},
		{"zero months", args("2025-01-01", "2025-04-01", "0mo"), []string{`-every "0mo"`, "month or Nmo"}},
		{"too many months", args("2025-01-01", "2025-04-01", "1201mo"), []string{`-every "1201mo"`}},
		{"padded months", args("2025-01-01", "2025-04-01", "01mo"), []string{`-every "01mo"`}},
		{"months", args("2025-01-01", "2025-04-01", "months"), []string{`-every "months"`}},
		{"negative months", args("2025-01-01", "2025-04-01", "-1mo"), []string{`-every "-1mo"`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			stdout, stderr, code := snowid(t, tc.args...)
			refusedInOneLine(t, "partitions", stdout, stderr, code, tc.names...)
		})
	}
}
