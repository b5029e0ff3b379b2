package alternatives

import (
	"context"
	"fmt"
	"math"
	"time"

	"github.com/snowlab/snowlab"
	"github.com/snowlab/snowlab/lab/internal/remote"
	"github.com/snowlab/snowlab/lab/subject"
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
// for longer ago than that.
func newSnowiddSource(base string, batch int, maxAge time.Duration) (source, error) {
	if base == "" {
		return nil, fmt.Errorf("%w: %s", errOptions, noReplica)
	}
	sub, err := remote.Subject(base, client.GRPC, 0, snowlab.Layout{})
	if err != nil {
		return nil, fmt.Errorf("%w: snowidd: %w", errOptions, err)
	}
	m, err := sub.New()
	if err != nil {
		return nil, err
	}
	if _, err := m.Next(); err != nil {
		return nil, fmt.Errorf("snowidd at %s: %w", base, err)
	}
	noClose := func(context.Context) error { return nil }
	if batch == 0 {
		return &rowSource{close: noClose, fetch: func(context.Context) (int64, error) {
			id, err := m.Next()
			if err != nil {
				return 0, err
			}
			return signed(id)
		}}, nil
	}
	buf := make([]subject.ID, batch)
	return &seriesSource{close: noClose, maxAge: maxAge, fetch: func(context.Context) ([]int64, error) {
		n, err := subject.Fill(m, buf)
		if err != nil {
			return nil, err
		}
		ids := make([]int64, n)
		for i, id := range buf[:n] {
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
func signed(id subject.ID) (int64, error) {
	if id.Hi != 0 || id.Lo > math.MaxInt64 {
		return 0, fmt.Errorf("snowidd answered %#x:%#x, not a 63-bit snowlab ID", id.Hi, id.Lo)
	}
	return int64(id.Lo), nil
}
