package pglease

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/snowlab/snowlab/nodeid"
)

// claim is a held range of node ids: the rows whose generation is its
// token, and the renewal that keeps their expires_at ahead.
type claim struct {
	s            *Store
	first, count int
	token, floor int64
	holder       string

	// st is the state Reserve and Release share: their lock, the highest
	// reserved-until made durable, and whether the claim is lost and why.
	st *nodeid.ClaimState

	stopRenewal context.CancelFunc
	renewal     sync.WaitGroup
}

func (c *claim) First() int            { return c.first }
func (c *claim) Count() int            { return c.count }
func (c *claim) Floor() int64          { return c.floor }
func (c *claim) Token() int64          { return c.token }
func (c *claim) Lost() <-chan struct{} { return c.st.Lost() }

// Err says why the claim was lost, once Lost is closed: nodeid.Lease.Err
// reports it.
func (c *claim) Err() error { return c.st.Err() }

// guard is the condition, on parameters $1..$4, that holds only for the
// claim's rows while it holds them: the id range, its token and holder,
// and a hold that has not run out by the database's clock. (A variable
// only so that the module's tests can plant the mutant of a guard that
// holds for any holder, which the Store suite must fail.)
var guard = `node BETWEEN $1 AND $2 AND generation = $3 AND holder = $4 AND expires_at > clock_timestamp()`

func (c *claim) guardArgs(more ...any) []any {
	return append([]any{c.first, c.first + c.count - 1, c.token, c.holder}, more...)
}

// lose closes Lost, once, and stops the renewal (the state's onLose).
func (c *claim) lose(why string) { c.st.Lose(why) }

func (c *claim) lostErr() error { return c.st.Err() }

// guarded runs a statement guarded by the claim: it reports whether it
// changed every one of the claim's rows (false: the claim is lost, and
// Lost is closed, with why). A statement that meets lock_timeout is run
// again, within ctx: no claimer locks a held row (lockFree passes over
// them), so the lock is a write of the claim's own that its caller gave
// up on and the server has not ended yet (the renewal Release stops in
// the middle of its statement, a Reserve past its context, a commit slow
// to flush), or a claimer's that found the hold run out, after which the
// guard fails. At load average 17 a replica's Release met its own
// renewal's lock and failed ("canceling statement due to lock timeout"),
// and its successor waited for the whole reservation (TestFleetPG).
//
// The statement keeps lock_timeout and is tried again from here, rather
// than wait on the server: a statement whose client gave up is ended by
// lock_timeout, where without it the server would keep it (and the locks
// it took) waiting for as long as the other session holds its lock. The
// guard bounds the tries, whatever ctx's deadline (New releases a claim
// whose first reservation failed on a context without one): an UPDATE
// waits for a row's lock only when the row as its snapshot has it meets
// its WHERE, so once the hold has run out by the database's clock (a TTL
// after the last renewal at most) the statement changes nothing, at
// once, and the claim is lost (TestHeldRowsLockedForever).
func (c *claim) guarded(ctx context.Context, stmt, why string, more ...any) (bool, error) {
	tag, err := c.s.exec(ctx, c.s.sqlf(stmt), c.guardArgs(more...)...)
	for lockTimedOut(err) {
		if serr := sleep(ctx, lockTimeout); serr != nil {
			return false, fmt.Errorf("%w (tried again until %w)", err, serr)
		}
		tag, err = c.s.exec(ctx, c.s.sqlf(stmt), c.guardArgs(more...)...)
	}
	if err != nil {
		return false, err
	}
	if tag.RowsAffected() != int64(c.count) {
		c.lose(why)
		return false, nil
	}
	return true, nil
}

// Reserve stores until as reserved-until of every node id of the claim,
// in one guarded statement. The stored value only moves forward. A failed
// guard means the hold ran out or another holder has the ids: the error
// wraps nodeid.ErrLost. Any other error (the database unreachable, a
// timeout) is returned as it is, and the lease keeps minting only up to
// the last reservation that was stored.
func (c *claim) Reserve(ctx context.Context, until int64) error {
	return c.st.Reserve(ctx, until, reserveLost, c.reserve)
}

// reserveLost is why a claim is lost when a reservation's guard fails.
const reserveLost = "the hold ran out or another holder has the ids (a reservation's guard failed)"

// reserve is Reserve's guarded write of v.
func (c *claim) reserve(ctx context.Context, v int64) (bool, error) {
	ok, err := c.guarded(ctx, `UPDATE %[1]s SET reserved_until = GREATEST(reserved_until, $5) WHERE `+guard, reserveLost, v)
	if err != nil {
		return false, c.s.errf("pglease: reserve node ids %d..%d until %v: %w", c.first, c.first+c.count-1, time.Unix(0, v).UTC(), err)
	}
	return ok, nil
}

// Release stores until (at least the claim's floor) as the final
// reserved-until and frees the rows, in one guarded statement, after
// stopping the renewal. A release that fails leaves the rows to expire a
// TTL later, with the last reservation stored.
func (c *claim) Release(ctx context.Context, until int64) error {
	c.st.Lock()
	defer c.st.Unlock()
	c.stopRenewal()
	c.renewal.Wait()
	select {
	case <-c.st.Lost():
		return c.lostErr()
	default:
	}
	v := max(until, c.floor)
	ok, err := c.guarded(ctx, `UPDATE %[1]s SET reserved_until = $5, holder = NULL, expires_at = NULL WHERE `+guard,
		"the hold ran out or another holder has the ids before the release", v)
	if err != nil {
		return c.s.errf("pglease: release node ids %d..%d: %w", c.first, c.first+c.count-1, err)
	}
	if !ok {
		return c.lostErr()
	}
	return nil
}

// start runs the renewal.
func (c *claim) start() {
	ctx, cancel := context.WithCancel(context.Background())
	c.stopRenewal = cancel
	c.renewal.Add(1)
	go func() {
		defer c.renewal.Done()
		c.renew(ctx)
	}()
}

// renew moves expires_at to the database's clock plus the TTL every third
// of the TTL, until ctx ends or the database says the claim is gone. An
// error is retried at the next round: the hold survives an outage shorter
// than what is left of the TTL.
func (c *claim) renew(ctx context.Context) {
	every := c.s.ttl / 3
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		rctx, cancel := context.WithTimeout(ctx, every)
		_, _ = c.guarded(rctx, `UPDATE %[1]s SET expires_at = clock_timestamp() + $5 * interval '1 microsecond' WHERE `+guard,
			"the hold ran out or another holder has the ids (a renewal's guard failed)", c.s.ttl.Microseconds())
		cancel()
	}
}
