package snowidcli

import (
	"flag"
	"math/big"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// planDate is the instant the plan tests plan from.
var planDate = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

func withPlanDate(t *testing.T) {
	t.Helper()
	saved := now
	now = func() time.Time { return planDate }
	t.Cleanup(func() { now = saved })
}

// golden compares got with testdata/name, or rewrites it under -update.
func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		require.NoError(t, os.MkdirAll("testdata", 0o755))
		require.NoError(t, os.WriteFile(path, []byte(got), 0o644))
		return
	}
	want, err := os.ReadFile(path)
	require.NoError(t, err, "run go test -run %s -update to write it", t.Name())
	assert.Equal(t, string(want), got)
}

var planCases = []struct {
	golden string
	args   []string
}{
	// A typical fleet: 400 pods, a blue-green rollout, a 100,000-ID fan-out.
	{"plan_design.golden", []string{"-processes", "400", "-surge", "2", "-burst", "100000"}},
	// The same with a sustained rate that binds the sequence field.
	{"plan_rate.golden", []string{"-processes", "400", "-surge", "2", "-burst", "100000", "-rate", "5e8"}},
	// A fleet no split of 63 bits holds.
	{"plan_none.golden", []string{"-processes", "1000000", "-surge", "2", "-burst", "100000000", "-years", "50"}},
	// Ticks of 10 ms from a later epoch: the default's 41 bits are not valid.
	{"plan_10ms.golden", []string{"-processes", "5000", "-surge", "1.25", "-burst", "10000000", "-years", "50", "-unit", "10ms", "-epoch", "2025-06-01T00:00:00Z"}},
	// A small fleet: many widths fit.
	{"plan_small.golden", []string{"-processes", "3", "-surge", "1", "-burst", "1000", "-years", "5"}},
}

func TestPlanGolden(t *testing.T) {
	withPlanDate(t)
	for _, tc := range planCases {
		t.Run(tc.golden, func(t *testing.T) {
			stdout, stderr, code := snowid(t, append([]string{"plan"}, tc.args...)...)
			if strings.Contains(stdout, "\nfits: none\n") {
				// The plan still says why; the exit status says no.
				require.Equal(t, exitFail, code, stderr)
				assert.Equal(t, "snowid plan: no layout fits this fleet: see \"does not fit\" above\n", stderr)
			} else {
				require.Equal(t, exitOK, code, stderr)
				assert.Empty(t, stderr)
			}
			golden(t, tc.golden, stdout)
		})
	}
}

// A fleet nothing fits exits 1 (exit 2 is a bad argument); one that fits
// exits 0 even when the default layout does not fit it.
func TestPlanExitStatus(t *testing.T) {
	withPlanDate(t)
	for _, tc := range []struct {
		args []string
		code int
	}{
		{[]string{"-processes", "1000000", "-surge", "2", "-burst", "100000000", "-years", "50"}, exitFail},
		{[]string{"-processes", "5000", "-surge", "1", "-burst", "1000"}, exitOK}, // the default's 1,024 node ids are too few
		{[]string{"-processes", "0", "-surge", "1", "-burst", "1000"}, exitUsage},
	} {
		stdout, stderr, code := snowid(t, append([]string{"plan"}, tc.args...)...)
		assert.Equal(t, tc.code, code, "plan %v\n%s%s", tc.args, stdout, stderr)
		if tc.code == exitOK {
			assert.Empty(t, stderr)
		} else {
			assert.Equal(t, 1, strings.Count(stderr, "\n"), "plan %v: want one line on stderr, got %q", tc.args, stderr)
		}
	}
	_, stderr, code := snowid(t, "plan", "-h")
	assert.Equal(t, exitOK, code)
	assert.Contains(t, stderr, "Exit status: 0 when a layout fits, 1 when none does")
}

// planRows reads the fits table: each layout's cells by column name.
func planRows(t *testing.T, out string) map[string]map[string]string {
	t.Helper()
	lines := strings.Split(out, "\n")
	i := 0
	for i < len(lines) && !strings.HasPrefix(strings.TrimSpace(lines[i]), "layout ") {
		i++
	}
	require.Less(t, i, len(lines), "no fits table in\n%s", out)
	cells := func(line string) []string { return regexp.MustCompile(`\s{2,}`).Split(strings.TrimSpace(line), -1) }
	head := cells(lines[i])
	rows := map[string]map[string]string{}
	for _, line := range lines[i+1:] {
		if strings.TrimSpace(line) == "" || strings.HasPrefix(line, "  and ") {
			break // the table ends, or the count of layouts not listed
		}
		c := cells(line)
		require.Len(t, c, len(head), "row %q", line)
		row := map[string]string{}
		for j, h := range head {
			row[h] = c[j]
		}
		rows[c[0]] = row
	}
	return rows
}

// The arithmetic of sizing a fleet, read off the plan: 400 pods at surge 2
// need 800 node ids, 1,024 hold 512 pods, and a 100,000-ID burst needs 25
// nodes at 4,096 per ms.
func TestPlanDesignArithmetic(t *testing.T) {
	withPlanDate(t)
	stdout, stderr, code := snowid(t, "plan", "-processes", "400", "-surge", "2", "-burst", "100000")
	require.Equal(t, exitOK, code, stderr)

	// 400 pods × 2 for a blue-green rollout = 800 node ids.
	assert.Contains(t, stdout, "node ids  800 = 400 processes × surge 2")
	rows := planRows(t, stdout)
	def := rows["41/10/12"]
	require.NotNil(t, def, "the default fits")
	assert.Equal(t, "1,024", def["node ids"])
	// ... and the safe ceiling is 1,024 / 2 = 512 pods.
	assert.Equal(t, "512", def["processes at surge 2"])
	// A 100,000-ID burst needs 25 nodes at 4,096 per ms.
	assert.Equal(t, "4,096", def["per node per tick"])
	assert.Equal(t, "25 nodes", def["burst needs"])

	// The 41/12/10 layout: 4,096 nodes at 1,024 IDs per ms, about 1 M/s per node.
	wide := rows["41/12/10"]
	require.NotNil(t, wide)
	assert.Equal(t, "4,096", wide["node ids"])
	assert.Equal(t, "1,024", wide["per node per tick"])
	assert.Equal(t, "1,024,000", wide["per node per second"])

	// 10 node bits hold 800; 9 hold 512, too few.
	assert.Contains(t, stdout, "node bits 9 or fewer (such as 41/9/13): 512 node ids, fewer than the 800 needed")
	assert.Contains(t, stdout, "the default 41/10/12: fits; its 1,024 node ids hold 512 processes at surge 2")
	// Horizon and years left of the default, from the injected date.
	assert.Equal(t, "2093-09-06", def["horizon"])
	assert.Equal(t, "67.7", def["years left"])
}

// A split meets the fleet exactly when each field is at least its need:
// checked against every split of 63 bits, for each golden fleet, and every
// layout the plan lists meets it.
func TestPlanNeedsAreExact(t *testing.T) {
	fleets := []fleet{
		{processes: 400, surge: big.NewRat(2, 1), burst: 100000, years: 10},
		{processes: 400, surge: big.NewRat(2, 1), burst: 100000, years: 10, rate: big.NewRat(5e8, 1)},
		{processes: 1000000, surge: big.NewRat(2, 1), burst: 100000000, years: 40},
		{processes: 5000, surge: big.NewRat(5, 4), burst: 10000000, years: 50, unit: 10 * time.Millisecond},
		{processes: 3, surge: big.NewRat(1, 1), burst: 1000, years: 5},
		{processes: 1, surge: big.NewRat(3, 1), burst: 1, years: 0},
	}
	for _, f := range fleets {
		f.now = planDate
		f.epoch = time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
		if f.unit == 0 {
			f.unit = time.Millisecond
		}
		n := f.needs()
		fitting := 0
		for tb := uint(1); tb <= 61; tb++ {
			for nb := uint(1); tb+nb <= 62; nb++ {
				l, ok := f.layout(tb, nb, 63-tb-nb)
				if !ok {
					continue
				}
				meets := len(f.reasons(l)) == 0
				want := n.node > 0 && n.seq > 0 && n.time > 0 && nb >= n.node && l.SeqBits >= n.seq && tb >= n.time
				require.Equal(t, want, meets, "%d/%d/%d for %+v: %v", tb, nb, l.SeqBits, f, f.reasons(l))
				if meets {
					fitting++
				}
			}
		}
		listed := f.fits(n)
		for _, l := range listed {
			assert.Empty(t, f.reasons(l), "%s", formatBits(l))
		}
		if fitting > 0 {
			require.NotEmpty(t, listed)
			assert.Equal(t, n.node, listed[0].NodeBits, "the list starts at the narrowest node field")
		} else {
			assert.Empty(t, listed)
		}
	}
}

func TestPlanRefuses(t *testing.T) {
	good := []string{"-processes", "400", "-surge", "2", "-burst", "100000"}
	with := func(kv ...string) []string {
		args := append([]string(nil), good...)
		for i := 0; i+1 < len(kv); i += 2 {
			replaced := false
			for j := 0; j+1 < len(args); j += 2 {
				if args[j] == kv[i] {
					args[j+1], replaced = kv[i+1], true
				}
			}
			if !replaced {
				args = append(args, kv[i], kv[i+1])
			}
		}
		return args
	}
	for _, tc := range []struct {
		name  string
		args  []string
		names []string
	}{
		{"no processes", []string{"-surge", "2", "-burst", "100"}, []string{"-processes 0: want 1 to 1000000000"}},
		{"negative processes", with("-processes", "-4"), []string{"-processes -4"}},
		{"too many processes", with("-processes", "2000000000"), []string{"-processes 2000000000"}},
		{"no surge", []string{"-processes", "400", "-burst", "100"}, []string{"-surge not given"}},
		{"surge below 1", with("-surge", "0.5"), []string{`-surge "0.5": want a number from 1 to 100`}},
		{"surge not a number", with("-surge", "double"), []string{`-surge "double"`}},
		{"surge too big", with("-surge", "1000"), []string{`-surge "1000"`}},
		{"no burst", []string{"-processes", "400", "-surge", "2"}, []string{"-burst 0"}},
		{"negative rate", with("-rate", "-5"), []string{`-rate "-5"`}},
		{"rate not a number", with("-rate", "fast"), []string{`-rate "fast"`}},
		{"negative years", with("-years", "-1"), []string{"-years -1"}},
		{"years NaN", with("-years", "NaN"), []string{"-years NaN"}},
		{"bad unit", with("-unit", "0ms"), []string{`-unit "0ms"`}},
		{"bad epoch", with("-epoch", "last year"), []string{`-epoch "last year"`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			stdout, stderr, code := snowid(t, append([]string{"plan"}, tc.args...)...)
			refusedInOneLine(t, "plan", stdout, stderr, code, tc.names...)
		})
	}
	t.Run("bad flag value", func(t *testing.T) {
		stdout, stderr, code := snowid(t, append([]string{"plan"}, with("-processes", "many")...)...)
		assert.Equal(t, exitUsage, code)
		assert.Empty(t, stdout)
		assert.Contains(t, stderr, `invalid value "many" for flag -processes`)
	})
}

// Surge is read as an exact decimal: 400 × 1.1 is 440 node ids, where
// float64 arithmetic gives 440.00000000000006 and so 441.
func TestPlanSurgeIsExact(t *testing.T) {
	withPlanDate(t)
	stdout, stderr, code := snowid(t, "plan", "-processes", "400", "-surge", "1.1", "-burst", "1000")
	require.Equal(t, exitOK, code, stderr)
	assert.Contains(t, stdout, "node ids  440 = 400 processes × surge 1.1")
	// 512 node ids at surge 1.1 hold floor(512 / 1.1) = 465 processes.
	assert.Equal(t, "465", planRows(t, stdout)["41/9/13"]["processes at surge 1.1"])
}
