package alternatives

import (
	"context"
	"fmt"
	"math"
	"time"

	"github.com/snowlab/snowlab/lab/internal/remote"
	"github.com/snowlab/snowlab/snowidd/client"
)

// noReplica is why the snowidd schemes are skipped without one.
const noReplica = "no snowidd replica to call (loadgen alternatives -snowidd-bin bin/snowidd starts one for the run, -snowidd URL names a running one)"

// newSnowiddSource opens a client of its own to the replica at base (a
// client of a fleet has its own connection, as it would to the database)
// and makes one NextID call on it, so that the connection is open before
// the run's clock starts and a replica that does not answer fails here.
// batch 0 calls NextID per ID; above 0, NextIDs for batch IDs per round
// trip, handed out locally, and when maxAge is above 0 dropped once asked
// for longer ago than that. Closing the source closes its connection:
// left open, it is one more for the replica to drain when it stops, and
// Go's HTTP/2 server gives a client that keeps an idle connection 1 s to
// go after its GOAWAY, which took the drain of a test's replica (1 s on
// an idle machine) past its 2 s grace under load ("calls still in flight
// after the grace period").
func newSnowiddSource(base string, batch int, maxAge time.Duration) (source, error) {
	if base == "" {
		return nil, fmt.Errorf("%w: %s", errOptions, noReplica)
	}
	c, err := remote.NewClient(base, client.GRPC, nil)
	if err != nil {
		return nil, fmt.Errorf("%w: snowidd: %w", errOptions, err)
	}
	closeConn := func(context.Context) error {
		c.CloseIdleConnections()
		return nil
	}
	if _, err := c.NextID(context.Background()); err != nil {
		_ = closeConn(context.Background())
		return nil, fmt.Errorf("snowidd at %s: %w", base, err)
	}
	if batch == 0 {
		return &rowSource{close: closeConn, fetch: func(ctx context.Context) (int64, error) {
			id, err := c.NextID(ctx)
			if err != nil {
				return 0, err
			}
			return signed(id)
		}}, nil
	}
	return &seriesSource{close: closeConn, maxAge: maxAge, fetch: func(ctx context.Context) ([]int64, error) {
		got, err := c.NextIDs(ctx, batch)
		if err != nil {
			return nil, err
		}
		ids := make([]int64, len(got))
		for i, id := range got {
			if ids[i], err = signed(id); err != nil {
				return nil, err
			}
		}
		return ids, nil
	}}, nil
}

// signed is a replica's ID as the int64 the experiment records; a
// snowlab ID's sign bit is 0, so one with it set is a broken answer, not
// a large ID.
func signed(id uint64) (int64, error) {
	if id > math.MaxInt64 {
		return 0, fmt.Errorf("snowidd answered %#x, not a 63-bit snowlab ID", id)
	}
	return int64(id), nil
}
