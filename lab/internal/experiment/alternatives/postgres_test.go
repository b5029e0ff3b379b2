package alternatives

import (
	"context"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/snowlab/snowlab/lab/internal/fixture"
)

// pgDSN is the server PG_DSN names. The project's .ci/run starts one with
// scripts/pg.sh, exports PG_DSN and sets SNOWLAB_REQUIRE_PG=1, so there a
// missing DSN is a failure, not a skip.
func pgDSN(t *testing.T) string {
	t.Helper()
	dsn := os.Getenv("PG_DSN")
	if dsn == "" {
		if os.Getenv("SNOWLAB_REQUIRE_PG") == "1" {
			t.Fatal("SNOWLAB_REQUIRE_PG=1 but PG_DSN is not set: .ci/run starts PostgreSQL with scripts/pg.sh and exports PG_DSN")
		}
		t.Skip("PG_DSN not set: no PostgreSQL to measure (PG_DSN=$(scripts/pg.sh start) go test ./internal/experiment/alternatives, then scripts/pg.sh stop \"$PG_DSN\")")
	}
	return dsn
}

// TestPostgres runs every scheme briefly with 1 and 3 clients on the
// server PG_DSN names, and checks what must hold at any speed.
func TestPostgres(t *testing.T) {
	dsn := pgDSN(t)
	run, err := execute(context.Background(), options{DSN: dsn, Clients: []int{1, 3}, Duration: 250 * time.Millisecond,
		Demand: 20_000, FsyncSeconds: -1, Host: testHost(), Commit: "abc1234"})
	require.NoError(t, err)
	require.Len(t, run.Schemes, len(defaultSchemes()))
	assert.NotEmpty(t, run.Server.Version)
	for _, s := range []string{"fsync", "synchronous_commit", "wal_sync_method", "shared_buffers"} {
		assert.NotEmpty(t, run.Server.Settings[s], s)
	}
	assert.Contains(t, run.CommitLatency.NotMeasured, "switched off")
	assert.Contains(t, run.Crash.Skipped, "no control")
	bound := skewBound(run.Config.Skew)
	for _, s := range run.Schemes {
		if s.Scheme.Kind == snowidd {
			// No replica was named: skipped, and the result says why
			// (TestSnowidd and TestPostgresBesideSnowidd measure it).
			assert.Empty(t, s.Points, s.Name)
			assert.Contains(t, s.Skipped, "no snowidd replica", s.Name)
			continue
		}
		require.Len(t, s.Points, 2, s.Name)
		for _, p := range s.Points {
			what := s.Name + ", " + clients(p.Clients)
			require.Empty(t, p.Error, what)
			require.Positive(t, p.IDs, what)
			assert.Zero(t, p.Disorder.Duplicates, "%s: no ID handed out twice", what)
			assert.Equal(t, p.IDs, p.PerID.Count, what)
			if p.Clients == 1 {
				// One client's IDs increase in the order it hands them out,
				// whatever the scheme.
				assert.Zero(t, p.Disorder.AdjacentInverted, "%s: one client is in order", what)
				assert.Zero(t, p.Disorder.Window, what)
			}
			switch s.Scheme.Kind {
			case ticket, sequence, stride:
				assert.Equal(t, p.IDs, p.Trip.Count, "%s: one round trip per ID", what)
			case series, block:
				assert.GreaterOrEqual(t, p.Trip.Count*int64(s.Scheme.Size), p.IDs, "%s: a round trip per %d IDs", what, s.Scheme.Size)
				assert.Less(t, p.Trip.Count, p.IDs/int64(s.Scheme.Size)+int64(2*p.Clients)+1, "%s: no more round trips than blocks", what)
			case snowlabScheme:
				assert.Zero(t, p.Trip.Count, what)
				assert.LessOrEqual(t, p.Disorder.Window, bound, "%s: within the skew bound", what)
			}
		}
	}
	// The experiment's schema is gone.
	conn, err := pgx.Connect(context.Background(), dsn)
	require.NoError(t, err)
	defer conn.Close(context.Background())
	var n int
	require.NoError(t, conn.QueryRow(context.Background(), "SELECT count(*) FROM pg_namespace WHERE nspname = $1", run.Server.Schema).Scan(&n))
	assert.Zero(t, n, "schema %s dropped", run.Server.Schema)
}

// TestPostgresBesideSnowidd runs nextval and the snowidd schemes on the
// server PG_DSN names and a replica of its own: the replica is recorded,
// and the service's three verdicts are generated from the run.
func TestPostgresBesideSnowidd(t *testing.T) {
	dsn := pgDSN(t)
	base := fixture.StartReplica(t)
	run, err := execute(context.Background(), options{DSN: dsn, Clients: []int{1, 2}, Duration: 150 * time.Millisecond,
		Demand: 5_000, FsyncSeconds: -1, Host: testHost(), Snowidd: base, SnowiddNote: "replicatest",
		Schemes: []schemeSpec{{Kind: sequence, Size: 1}, {Kind: snowidd}, {Kind: snowidd, Size: 100}, {Kind: snowidd, Size: 100, MaxAge: 5 * time.Millisecond}}})
	require.NoError(t, err)
	assert.Equal(t, base, run.Config.Snowidd)
	assert.Equal(t, "replicatest", run.Config.SnowiddNote)
	for _, s := range run.Schemes {
		assert.Empty(t, s.Skipped, s.Name)
		require.Len(t, s.Points, 2, s.Name)
	}
	f := find(run)
	require.Len(t, f.Service, 3)
	assert.True(t, f.HasNextval)
	vs := verdicts(f, run.Crash)
	for _, v := range vs[len(vs)-3:] {
		assert.NotEqual(t, notMeasured, v.Outcome, "%s: %s", v.Claim, v.Why)
		assert.NotEmpty(t, v.Measured, v.Claim)
	}
	assert.Contains(t, vs[len(vs)-3].Why, "A nextval round trip to PostgreSQL")
	assert.Contains(t, vs[len(vs)-1].Why, "snowidd/100@5ms reordered IDs by at most")
	var md strings.Builder
	require.NoError(t, writeMarkdown(&md, run, ""))
	assert.Contains(t, md.String(), "**snowidd:** a replica at "+base+" (replicatest), called over gRPC")
}

// TestCrash runs the crash experiment on a throwaway server of its own
// (scripts/pg.sh start), never on PG_DSN's, which other packages' tests
// use at the same time.
func TestCrash(t *testing.T) {
	pgDSN(t) // PostgreSQL is there to start
	out, err := exec.Command("../../../../scripts/pg.sh", "start").Output()
	if err != nil && os.Getenv("SNOWLAB_REQUIRE_PG") != "1" {
		t.Skipf("scripts/pg.sh start: %v (PG_DSN's server may be remote; the crash needs one of its own)", err)
	}
	require.NoError(t, err)
	dsn := strings.TrimSpace(string(out))
	t.Cleanup(func() { assert.NoError(t, exec.Command("../../../../scripts/pg.sh", "stop", dsn).Run()) })
	run, err := execute(context.Background(), options{DSN: dsn, Clients: []int{1}, Duration: 100 * time.Millisecond,
		Schemes: []schemeSpec{{Kind: ticket}}, FsyncSeconds: -1, Host: testHost(),
		Control: scriptControl{Script: "../../../../scripts/pg.sh", DSN: dsn}, CrashClients: 2, CrashAfter: 500 * time.Millisecond})
	require.NoError(t, err)
	c := run.Crash
	require.True(t, c.ran(), "%+v", c)
	assert.Positive(t, c.HandedOut)
	assert.LessOrEqual(t, c.RowAfter, c.MaxBefore)
	assert.LessOrEqual(t, c.Reissued, c.MaxBefore-c.RowAfter, "only IDs above the recovered row can come again")
	assert.GreaterOrEqual(t, c.Reissued, int64(0))
	assert.True(t, run.Server.Local)
}

// TestRemoteServerSkipsWhatNeedsTheDisk: a server whose data folder is
// not on this machine gets no commit latency and no crash, and says why.
func TestRemoteServerSkipsWhatNeedsTheDisk(t *testing.T) {
	c := measureCommitLatency(context.Background(), server{Local: false, DataDir: "/elsewhere"}, 1)
	assert.Contains(t, c.NotMeasured, "not on this machine")
	assert.True(t, localHost("127.0.0.1"))
	assert.True(t, localHost("::1"))
	assert.True(t, localHost("/var/run/postgresql"))
	assert.False(t, localHost("db.example.com"))
	assert.False(t, localHost("10.0.0.5"))
}

func TestExecuteRefusesBadOptions(t *testing.T) {
	run, err := execute(context.Background(), options{DSN: "postgres://x@127.0.0.1:1/db", Clients: []int{1000}})
	assert.Nil(t, run)
	assert.ErrorIs(t, err, errOptions)
	assert.ErrorContains(t, err, "1000")
	// A server that is not there: one error, its password redacted.
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	run, err = execute(ctx, options{DSN: "postgres://me:S3cretPass@127.0.0.1:1/db?connect_timeout=2"})
	assert.Nil(t, run)
	require.Error(t, err)
	assert.NotContains(t, err.Error(), "S3cretPass")
}
