package pglease

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

	"github.com/snowlab/snowlab"
	"github.com/snowlab/snowlab/nodeid"
)

// commitDelay is how long each commit of a slow store's sessions takes
// (PostgreSQL's commit_delay, whose maximum it is): twice the store's
// lockTimeout, as on a loaded server or one whose disk flushes slowly.
const commitDelay = 100 * time.Millisecond

// slowStore is newStore on sessions whose every commit that writes waits
// commitDelay before it flushes the WAL, holding the transaction's locks
// meanwhile: commit_delay with commit_siblings 0, which makes the server
// sleep before every flush rather than only beside enough other busy
// sessions. Both are superuser settings; pg.sh's server is run by one.
func slowStore(t *testing.T, dsn, table string) *Store {
	t.Helper()
	cfg, err := pgxpool.ParseConfig(dsn)
	require.NoError(t, err)
	cfg.ConnConfig.RuntimeParams["commit_delay"] = fmt.Sprint(commitDelay.Microseconds())
	cfg.ConnConfig.RuntimeParams["commit_siblings"] = "0"
	pool, err := pgxpool.NewWithConfig(context.Background(), cfg)
	require.NoError(t, err)
	t.Cleanup(pool.Close)
	if err := pool.Ping(ctxT(t)); err != nil {
		needPG(t, fmt.Sprintf("sessions with commit_delay set (a superuser setting): %v", err))
	}
	st, err := New(pool, table, time.Minute)
	require.NoError(t, err)
	return st
}

// TestSlowCommits: on a server whose commits take commitDelay, twice
// the store's lock_timeout, claims that wait for one another's commits
// are not taken for claims stalled for good.
//
//   - First deployment: eight processes start at once on a table that
//     does not exist yet. One creates it; the others' creations wait for
//     that one's commit and then find the table there. Each process gets
//     an id of its own.
//   - Contention, as the Store suite's first two rounds: 16 claimers of
//     one id each, then 12 of two ids each, over two stores, for ids
//     0..7, the table created by the first round: every id is taken, no
//     id twice, and a claimer is refused (ErrNoFreeNode) only when no run
//     of free ids is left.
func TestSlowCommits(t *testing.T) {
	dsn := pgDSN(t)
	t.Run("first deployment", func(t *testing.T) {
		table := freshTable(t, dsn)
		stores := make([]*Store, 8)
		for i := range stores {
			stores[i] = slowStore(t, dsn, table)
		}
		claims := make([]nodeid.Claim, len(stores))
		errs := make([]error, len(stores))
		start := make(chan struct{})
		var wg sync.WaitGroup
		for i, st := range stores {
			wg.Go(func() {
				<-start
				claims[i], errs[i] = st.Acquire(ctxT(t), snowlab.Layout{}, 1, 1023)
			})
		}
		close(start)
		wg.Wait()
		held := map[int]int{}
		for i, c := range claims {
			require.NoError(t, errs[i], "process %d of %d starting at once on a missing table", i+1, len(stores))
			t.Cleanup(func() { _ = c.Release(context.Background(), 0) })
			if other, dup := held[c.First()]; dup {
				t.Fatalf("node id %d handed to processes %d and %d", c.First(), other+1, i+1)
			}
			held[c.First()] = i
		}
	})
	t.Run("contention", func(t *testing.T) {
		table := freshTable(t, dsn)
		stores := []*Store{slowStore(t, dsn, table), slowStore(t, dsn, table)}
		const maxNode = 7
		for round, tc := range []struct{ contenders, count int }{{16, 1}, {12, 2}} {
			claims := make([]nodeid.Claim, tc.contenders)
			errs := make([]error, tc.contenders)
			start := make(chan struct{})
			var wg sync.WaitGroup
			for i := range tc.contenders {
				wg.Go(func() {
					<-start
					claims[i], errs[i] = stores[i%2].Acquire(ctxT(t), snowlab.Layout{}, tc.count, maxNode)
				})
			}
			close(start)
			wg.Wait()
			held := map[int]int{}
			var got []nodeid.Claim
			for i, c := range claims {
				if errs[i] != nil {
					require.True(t, errors.Is(errs[i], nodeid.ErrNoFreeNode),
						"round %d, contender %d taking %d ids: %v; want a claim or ErrNoFreeNode", round+1, i, tc.count, errs[i])
					continue
				}
				got = append(got, c)
				for n := c.First(); n < c.First()+c.Count(); n++ {
					if other, dup := held[n]; dup {
						t.Fatalf("round %d: id %d handed to contenders %d and %d", round+1, n, other, i)
					}
					held[n] = i
				}
			}
			for n := 0; n+tc.count-1 <= maxNode; n++ {
				free := true
				for k := n; k < n+tc.count; k++ {
					_, h := held[k]
					free = free && !h
				}
				require.False(t, free, "round %d: %d of %d contenders refused while ids %d..%d stayed free",
					round+1, tc.contenders-len(got), tc.contenders, n, n+tc.count-1)
			}
			for _, c := range got {
				require.NoError(t, c.Release(ctxT(t), 0))
			}
		}
	})
}
