package snowidcli

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/snowlab/snowlab"
	"github.com/snowlab/snowlab/atomicgen"
	"github.com/snowlab/snowlab/clocksrc"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// psql runs SQL on a PostgreSQL server through the psql client, so that
// the root module needs no database driver.
type psql struct {
	t    *testing.T
	bin  string
	dsn  string
	fail bool // the last script failed
}

// pgServer is the server in $PG_DSN. Without one the test skips, except
// under SNOWLAB_REQUIRE_PG=1: .ci/run starts PostgreSQL with scripts/pg.sh,
// exports PG_DSN and sets it, so there a missing DSN is a failure.
func pgServer(t *testing.T) *psql {
	t.Helper()
	dsn := os.Getenv("PG_DSN")
	if dsn == "" {
		if os.Getenv("SNOWLAB_REQUIRE_PG") == "1" {
			t.Fatal("SNOWLAB_REQUIRE_PG=1 but PG_DSN is not set: .ci/run starts PostgreSQL with scripts/pg.sh and exports PG_DSN")
		}
		t.Skip("PG_DSN not set: PG_DSN=$(scripts/pg.sh start) runs this test against a throwaway server")
	}
	bin, err := exec.LookPath("psql")
	require.NoError(t, err, "PG_DSN is set but no psql client is installed")
	return &psql{t: t, bin: bin, dsn: dsn}
}

// run runs script and returns psql's output: one row per line, columns
// separated by |. A failing script fails the test; the error (never the
// DSN, which may hold a password) is in the message.
func (p *psql) run(script string) string {
	p.t.Helper()
	out, errOut, err := p.exec(script)
	require.NoError(p.t, err, "psql: %s\nscript:\n%s", errOut, script)
	return out
}

// refused runs script, which must fail, and returns psql's error output.
func (p *psql) refused(script string) string {
	p.t.Helper()
	_, errOut, err := p.exec(script)
	require.Error(p.t, err, "psql ran a script that should fail:\n%s", script)
	return errOut
}

func (p *psql) exec(script string) (stdout, stderr string, err error) {
	// -X: no ~/.psqlrc; -At: bare rows; ON_ERROR_STOP: a failing statement
	// fails the run.
	cmd := exec.Command(p.bin, "-X", "-q", "-A", "-t", "-v", "ON_ERROR_STOP=1", "-d", p.dsn, "-f", "-")
	cmd.Stdin = strings.NewReader(script)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err = cmd.Run()
	return out.String(), errOut.String(), err
}

// mint mints count IDs for node with a generator whose clock stands still
// at t, as a fleet node would at that instant.
func mint(t *testing.T, at time.Time, node, count int) []snowlab.ID {
	t.Helper()
	g, err := atomicgen.New(snowlab.Config{Node: node, Clock: clocksrc.FixedMillis(at.UnixMilli())})
	require.NoError(t, err)
	ids := make([]snowlab.ID, count)
	n, err := g.NextIDs(ids)
	require.NoError(t, err)
	require.Equal(t, count, n)
	return ids
}

// TestPartitionsOnPostgres creates the partitions snowid partitions prints
// on a real server, inserts rows minted at chosen instants (the first and
// last millisecond of each day, with the last ID a node can mint in it),
// and checks each row lands in the partition of its day, that IDs outside
// the days have no partition, and that the predicate snowid range prints
// for one day scans that day's partition only.
func TestPartitionsOnPostgres(t *testing.T) {
	pg := pgServer(t)
	const schema = "snowidcli_partitions_test"
	drop := "DROP SCHEMA IF EXISTS " + schema + " CASCADE;"
	pg.run(drop)
	t.Cleanup(func() { pg.run(drop) })
	pg.run("CREATE SCHEMA " + schema + ";\n" +
		"CREATE TABLE " + schema + ".events (id bigint PRIMARY KEY, minted text NOT NULL) PARTITION BY RANGE (id);")

	stdout, stderr, code := snowid(t, "partitions", "-table", schema+".events",
		"-from", "2025-01-01", "-to", "2025-01-04", "-every", "24h")
	require.Equal(t, exitOK, code, stderr)
	pg.run(stdout)
	assert.Equal(t, "3\n", pg.run("SELECT count(*) FROM pg_inherits WHERE inhparent = '"+schema+".events'::regclass;"))

	day := func(d int) time.Time { return time.Date(2025, 1, d, 0, 0, 0, 0, time.UTC) }
	lastMs := func(d int) time.Time { return day(d + 1).Add(-time.Millisecond) }
	type row struct {
		id        snowlab.ID
		partition string
	}
	var rows []row
	add := func(ids []snowlab.ID, d int) {
		for _, id := range ids {
			rows = append(rows, row{id, fmt.Sprintf("%s.events_202501%02d", schema, d)})
		}
	}
	maxNode := snowlab.DefaultLayout.MaxNode()
	for _, d := range []int{1, 2, 3} {
		add(mint(t, day(d), 0, 1), d)                    // the day's first ID
		add(mint(t, day(d).Add(12*time.Hour), 37, 3), d) // noon
		// A frozen clock gives a node its whole millisecond, 4,096 IDs:
		// the last is the day's last ID (node 1023, sequence 4095).
		whole := mint(t, lastMs(d), maxNode, snowlab.DefaultLayout.MaxSeq()+1)
		add([]snowlab.ID{whole[0], whole[len(whole)-1]}, d)
		lo, hi, err := snowlab.DefaultLayout.Range(day(d), day(d+1))
		require.NoError(t, err)
		assert.Equal(t, lo, rows[len(rows)-6].id, "day %d starts at its first ID", d)
		assert.Equal(t, hi-1, rows[len(rows)-1].id, "day %d ends at its last ID", d)
	}

	var insert strings.Builder
	insert.WriteString("INSERT INTO " + schema + ".events (id, minted) VALUES\n")
	for i, r := range rows {
		if i > 0 {
			insert.WriteString(",\n")
		}
		insert.WriteString("(" + r.id.String() + ", '" + snowlab.DefaultLayout.Decode(r.id).Time.Format(time.RFC3339Nano) + "')")
	}
	pg.run(insert.String() + ";")

	got := pg.run("SELECT id, tableoid::regclass FROM " + schema + ".events ORDER BY id;")
	var want strings.Builder
	for _, r := range rows {
		want.WriteString(r.id.String() + "|" + r.partition + "\n")
	}
	assert.Equal(t, want.String(), got, "each row in the partition of its day")

	// Just outside: the last ID of the day before, the first of the day after.
	for _, id := range []snowlab.ID{
		mint(t, lastMs(0), maxNode, snowlab.DefaultLayout.MaxSeq()+1)[snowlab.DefaultLayout.MaxSeq()],
		mint(t, day(4), 0, 1)[0],
	} {
		errOut := pg.refused("INSERT INTO " + schema + ".events VALUES (" + id.String() + ", 'outside');")
		assert.Contains(t, errOut, "no partition of relation", "ID %d", id)
	}

	// One day's predicate, as snowid range prints it, scans one partition.
	stdout, stderr, code = snowid(t, "range", "2025-01-02", "2025-01-03")
	require.Equal(t, exitOK, code, stderr)
	pred := regexp.MustCompile(`(?m)^sql:\s+(.*)$`).FindStringSubmatch(stdout)
	require.NotNil(t, pred, stdout)
	query := "SELECT * FROM " + schema + ".events WHERE " + pred[1]
	scanned := func(plan string) []string {
		names := regexp.MustCompile(`events_\d{8}`).FindAllString(plan, -1)
		slices.Sort(names)
		return slices.Compact(names)
	}
	plan := pg.run("EXPLAIN (COSTS OFF) " + query + ";")
	assert.Equal(t, []string{"events_20250102"}, scanned(plan), "plan:\n%s", plan)
	assert.Equal(t, "6\n", pg.run("SELECT count(*) FROM ("+query+") q;"), "the day's six rows")
	// The whole interval scans all three: the check above can tell.
	lo, hi, err := snowlab.DefaultLayout.Range(day(1), day(4))
	require.NoError(t, err)
	plan = pg.run("EXPLAIN (COSTS OFF) SELECT * FROM " + schema + ".events WHERE id >= " + lo.String() + " AND id < " + hi.String() + ";")
	assert.Equal(t, []string{"events_20250101", "events_20250102", "events_20250103"}, scanned(plan), "plan:\n%s", plan)
}
