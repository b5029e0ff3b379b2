package snowidcli

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/snowlab/snowlab"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var createPartition = regexp.MustCompile(`^CREATE TABLE (\S+) PARTITION OF (\S+) FOR VALUES FROM \((\d+)\) TO \((\d+)\);$`)

type partition struct {
	name, parent string
	lo, hi       snowlab.ID
}

// statements reads partitions' output: comment lines, then one CREATE
// TABLE per line.
func statements(t *testing.T, out string) []partition {
	t.Helper()
	var ps []partition
	for _, line := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
		if strings.HasPrefix(line, "-- ") {
			require.Empty(t, ps, "comments come first")
			continue
		}
		m := createPartition.FindStringSubmatch(line)
		require.NotNil(t, m, "line %q", line)
		lo, err := strconv.ParseInt(m[3], 10, 64)
		require.NoError(t, err)
		hi, err := strconv.ParseInt(m[4], 10, 64)
		require.NoError(t, err)
		ps = append(ps, partition{m[1], m[2], snowlab.ID(lo), snowlab.ID(hi)})
	}
	return ps
}

func TestPartitionsDays(t *testing.T) {
	stdout, stderr, code := snowid(t, "partitions", "-table", "events", "-from", "2025-01-01", "-to", "2025-01-04", "-every", "24h")
	require.Equal(t, exitOK, code, stderr)
	assert.Empty(t, stderr)
	assert.True(t, strings.HasPrefix(stdout,
		"-- snowid partitions: 3 of \"events\", [2025-01-01T00:00:00.000Z, 2025-01-04T00:00:00.000Z) every 24h0m0s\n"+
			"-- layout 41/10/12, 1ms ticks since 2024-01-01T00:00:00.000Z; the parent is PARTITION BY RANGE (id)\n"), stdout)
	ps := statements(t, stdout)
	require.Len(t, ps, 3)
	day := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	for i, p := range ps {
		lo, hi, err := snowlab.DefaultLayout.Range(day.AddDate(0, 0, i), day.AddDate(0, 0, i+1))
		require.NoError(t, err)
		assert.Equal(t, fmt.Sprintf(`"events_202501%02d"`, i+1), p.name)
		assert.Equal(t, `"events"`, p.parent)
		assert.Equal(t, lo, p.lo, "partition %d", i)
		assert.Equal(t, hi, p.hi, "partition %d", i)
		if i > 0 {
			assert.Equal(t, ps[i-1].hi, p.lo, "partitions meet")
		}
	}
}

func TestPartitionsNames(t *testing.T) {
	for _, tc := range []struct {
		name        string
		table       string
		from, every string
		first       string // the first statement's names
	}{
		{"hours", "events", "2025-01-01", "1h", `"events_2025010100" PARTITION OF "events"`},
		{"days off midnight", "events", "2025-01-01T06:00:00Z", "24h", `"events_2025010106" PARTITION OF "events"`},
		{"half hours", "events", "2025-01-01T00:30:00Z", "1h", `"events_202501010030"`},
		{"seconds", "events", "2025-01-01T00:00:00Z", "90s", `"events_20250101000000"`},
		{"milliseconds", "events", "2025-01-01T00:00:00Z", "1500ms", `"events_20250101000000_000"`},
		{"an offset is read as UTC", "events", "2025-01-01T05:30:00+05:30", "24h", `"events_20250101"`},
		{"upper case folds", "Events", "2025-01-01", "24h", `"events_20250101" PARTITION OF "events"`},
		{"quoted keeps case", `"Events"`, "2025-01-01", "24h", `"Events_20250101" PARTITION OF "Events"`},
		{"quoted keyword", `"select"`, "2025-01-01", "24h", `"select_20250101" PARTITION OF "select"`},
		{"quote in a name", `"we""ird"`, "2025-01-01", "24h", `"we""ird_20250101" PARTITION OF "we""ird"`},
		{"schema", "app.events", "2025-01-01", "24h", `"app"."events_20250101" PARTITION OF "app"."events"`},
		{"dollar and digits", "ev$2_x", "2025-01-01", "24h", `"ev$2_x_20250101"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// Four partitions.
			from, err := parseInstant(tc.from)
			require.NoError(t, err)
			every, err := time.ParseDuration(tc.every)
			require.NoError(t, err)
			to := from.Add(4 * every).Format(time.RFC3339Nano)
			stdout, stderr, code := snowid(t, "partitions", "-table", tc.table, "-from", tc.from, "-to", to, "-every", tc.every)
			require.Equal(t, exitOK, code, stderr)
			lines := strings.Split(stdout, "\n")
			require.Greater(t, len(lines), 2)
			assert.Contains(t, lines[2], "CREATE TABLE "+tc.first)
			// Names are unique and sort like the partitions.
			ps := statements(t, stdout)
			require.Len(t, ps, 4)
			for i := 1; i < len(ps); i++ {
				assert.Less(t, ps[i-1].name, ps[i].name)
				assert.Equal(t, ps[i-1].hi, ps[i].lo)
			}
		})
	}
}

func TestPartitionsRefuses(t *testing.T) {
	long := strings.Repeat("a", 63)
	// base is a good command line with the flags in kv (name, value
	// pairs) set, replaced or, for the value "omit", left out.
	base := func(kv ...string) []string {
		args := []string{"-table", "events", "-from", "2025-01-01", "-to", "2025-01-04", "-every", "24h"}
		for i := 0; i+1 < len(kv); i += 2 {
			j := slices.Index(args, kv[i])
			switch {
			case j < 0:
				args = append(args, kv[i], kv[i+1])
			case kv[i+1] == "omit":
				args = slices.Delete(args, j, j+2)
			default:
				args[j+1] = kv[i+1]
			}
		}
		return args
	}
	for _, tc := range []struct {
		name  string
		args  []string
		names []string
	}{
		{"no table", base("-table", "omit"), []string{"-table not given"}},
		{"no every", base("-every", "omit"), []string{"-every not given"}},
		{"digit first", base("-table", "1events"), []string{`-table "1events"`, "want an identifier"}},
		{"dash", base("-table", "my-events"), []string{`-table "my-events"`, `unexpected "-events"`}},
		{"three parts", base("-table", "a.b.c"), []string{`-table "a.b.c"`, `unexpected ".c"`}},
		{"empty quoted", base("-table", `""`), []string{"empty quoted identifier"}},
		{"unterminated", base("-table", `"events`), []string{"without its closing quote"}},
		{"control character", base("-table", "\"ev\nents\""), []string{"control character"}},
		{"too long", base("-table", long+"a"), []string{"64 bytes, over PostgreSQL's 63"}},
		{"partition name too long", base("-table", long), []string{"partition names such as", "72 bytes"}},
		{"bad from", base("-from", "soon"), []string{`-from "soon"`}},
		{"bad every", base("-every", "1d"), []string{`-every "1d"`, "positive duration"}},
		{"zero every", base("-every", "0s"), []string{`-every "0s"`}},
		{"negative every", base("-every", "-24h"), []string{`-every "-24h"`}},
		{"every not whole ticks", base("-every", "1500us"), []string{"-every 1.5ms is not a whole number of ticks of 1ms"}},
		{"to not whole partitions", base("-every", "48h"), []string{"-to 2025-01-04 is not -from plus a whole number of -every 48h0m0s (1, then 24h0m0s over)"}},
		{"too many", base("-every", "1s"), []string{"259200 partitions of 1s, more than the 10000"}},
		{"empty", base("-to", "2025-01-01"), []string{"same instant"}},
		{"reversed", base("-to", "2024-12-01"), []string{"reversed interval"}},
		{"before the epoch", base("-from", "2023-12-01"), []string{"before the epoch"}},
		{"from inside a tick", base("-from", "2025-01-01T00:00:00.0005Z", "-to", "2025-01-04T00:00:00.0005Z"), []string{"inside a tick of 1ms (500µs past its start)"}},
		{"bad layout", base("-unit", "0s"), []string{`-unit "0s"`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			stdout, stderr, code := snowid(t, append([]string{"partitions"}, tc.args...)...)
			refusedInOneLine(t, "partitions", stdout, stderr, code, tc.names...)
		})
	}

	t.Run("unexpected argument", func(t *testing.T) {
		stdout, stderr, code := snowid(t, append([]string{"partitions"}, append(base(), "extra")...)...)
		assert.Equal(t, exitUsage, code)
		assert.Empty(t, stdout)
		assert.True(t, strings.HasPrefix(stderr, `snowid partitions: unexpected argument "extra"`), stderr)
	})
}
