package daemon

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"maps"
	"net/http"
	"net/url"
	"os"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/snowlab/snowlab/snowidd/internal/testend"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fleetPassword is put in the fleet's DSN (the throwaway server trusts
// loopback, so any password is accepted): no replica may log it.
const fleetPassword = "S3cret-fleet-pw"

// pgFleetSpec is a pg: lease spec on $PG_DSN's database, a table of the
// test's own (dropped when it ends) and fleetPassword as the password;
// dsn is PG_DSN itself, for the test's own queries.
func pgFleetSpec(t *testing.T) (spec, dsn, table string) {
	t.Helper()
	dsn = os.Getenv("PG_DSN")
	if dsn == "" {
		needTool(t, requirePG, errors.New("PG_DSN is not set"), "PostgreSQL (PG_DSN=$(scripts/pg.sh start) make test-pg)")
	}
	u, err := url.Parse(dsn)
	if err != nil || u.Host == "" {
		t.Skipf("PG_DSN is not a postgres:// URL (%v): the test puts a password in it", err)
	}
	b := make([]byte, 6)
	_, _ = rand.Read(b)
	table = "snowlab_fleet_" + hex.EncodeToString(b)
	t.Cleanup(func() {
		ctx := testend.Context(t)
		if conn, err := pgx.Connect(ctx, dsn); err == nil {
			_, _ = conn.Exec(ctx, "DROP TABLE IF EXISTS "+table)
			_ = conn.Close(ctx)
		}
	})
	u.User = url.UserPassword(u.User.Username(), fleetPassword)
	q := u.Query()
	q.Set("snowlab_table", table)
	u.RawQuery = q.Encode()
	return "pg:" + u.String(), dsn, table
}

// pgRow reads a node id's reserved_until from the fleet's table, and
// whether its hold has expired by the database's clock (pglease's rule:
// no holder, or expires_at not after clock_timestamp()).
func pgRow(t *testing.T, dsn, table, node string) (until time.Time, expired bool) {
	t.Helper()
	ctx := testend.Context(t)
	conn, err := pgx.Connect(ctx, dsn)
	require.NoError(t, err)
	defer conn.Close(ctx)
	var ns int64
	require.NoError(t, conn.QueryRow(ctx, "SELECT reserved_until, holder IS NULL OR expires_at <= clock_timestamp() FROM "+table+" WHERE node = $1", node).Scan(&ns, &expired))
	return time.Unix(0, ns), expired
}

// nodeOf is the first node id a ready replica says it holds.
func nodeOf(t *testing.T, r *replicaProc) string {
	t.Helper()
	code, body := readyz(testend.Context(t), r.url())
	require.Equal(t, http.StatusOK, code, body)
	m := readyNode.FindStringSubmatch(body)
	require.NotNil(t, m, "readyz of %s: %q", r.addr, body)
	return m[1]
}

// Two replicas on a pg: lease (one table in PostgreSQL) hold different
// node ids and serve clients that spread their calls over them, while one
// is frozen (SIGSTOP) past its lease's TTL and continued, and the other is
// SIGKILLed and restarted. Every ID any client got is unique, the IDs a
// client got from one node id increase, and the DSN's password is in no
// replica's log.
func TestFleetPG(t *testing.T) {
	if testing.Short() {
		t.Skip("the fleet test runs for about 15 s")
	}
	spec, dsn, table := pgFleetSpec(t)
	args := []string{"-lease", spec, "-ttl", fleetTTL.String(), "-window", fleetWindow.String(), "-grace", "5s"}
	reps := []*replicaProc{startReplica(t, "127.0.0.1:0", args...), startReplica(t, "127.0.0.1:0", args...)}
	logs := func(r *replicaProc) string {
		all := r.logs
		if r.proc != nil {
			all = append(all, r.log.String())
		}
		return strings.Join(all, "--- restarted ---\n")
	}
	defer func() {
		if t.Failed() {
			for _, r := range reps {
				t.Logf("replica %s:\n%s", r.addr, logs(r))
			}
		}
	}()
	waitFor(t, "both replicas ready", allReady(t, reps))
	n0, n1 := nodeOf(t, reps[0]), nodeOf(t, reps[1])
	require.NotEqual(t, n0, n1, "both replicas hold the same node id")
	t.Logf("replica %s holds node id %s, replica %s holds node id %s (table %s)", reps[0].addr, n0, reps[1].addr, n1, table)
	load := startLoad(t, []string{reps[0].url(), reps[1].url()}, 4)
	load.waitMore(t, "IDs before the freeze")

	// 1. Freeze replica 1 past its lease's TTL, then let it go on. Its
	//    hold expires by the database's clock; continued, it must not
	//    mint inside the reservation it held when it froze: it refuses
	//    until it holds a new lease, whose floor is that reservation.
	lostLine := reps[1].log.match(regexp.MustCompile(`lease lost`))
	reps[1].signal(syscall.SIGSTOP)
	// Frozen until the database judges its hold expired. (A sleep of the
	// TTL and 1.5 s was the premise before: it took for granted that the
	// last renewal, which may have been under way when the replica froze,
	// had set expires_at less than 1.5 s past the TTL from then.)
	// Frozen, it cannot have moved its reservation meanwhile.
	var oldUntil time.Time
	waitFor(t, "the database judges the frozen replica's hold expired", func() (bool, string) {
		until, expired := pgRow(t, dsn, table, n1)
		oldUntil = until
		return expired, "node " + n1 + " still held"
	})
	code, body := readyz(testend.Context(t), reps[0].url())
	assert.Equal(t, http.StatusOK, code, "replica 0 while replica 1 is frozen: %s", body)
	continueFrozen(t, reps[1], n1, oldUntil, lostLine)

	// 2. SIGKILL replica 0 and restart it on the same port: its old node
	//    id stays held until the TTL runs out, so it takes another one.
	reps[0].kill()
	reps[0].start()
	waitFor(t, "the restarted replica is ready", allReady(t, reps[:1]))
	m0, m1 := nodeOf(t, reps[0]), nodeOf(t, reps[1])
	require.NotEqual(t, m0, m1, "after the freeze and the restart, both replicas hold the same node id")
	t.Logf("after the freeze and the restart: replica %s holds node id %s, replica %s holds node id %s", reps[0].addr, m0, reps[1].addr, m1)
	load.waitMore(t, "IDs after the restart")

	got, failures := load.stop()
	for _, r := range reps {
		assert.NoError(t, r.terminate(), "replica %s on SIGTERM", r.addr)
	}
	total, nodes := requireUniqueIDs(t, got)
	t.Logf("%d IDs, no duplicate; by node id: %v (%v); refusals by client: %v", total, nodes, slices.Sorted(maps.Keys(nodes)), failures)
	for _, r := range reps {
		l := logs(r)
		assert.Contains(t, l, "lease released", "replica %s released its lease on SIGTERM", r.addr)
		assert.NotContains(t, l, fleetPassword, "replica %s logged the DSN's password", r.addr)
		assert.Contains(t, l, "xxxxx@", "replica %s's log names the lease with the password masked", r.addr)
	}
}
