package zklease

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/snowlab/snowlab/nodeid"
)

// claim is a held range of node ids: its claim znodes, ephemeral in the
// session it was made in, and the versions of its reservation znodes.
type claim struct {
	s       *Store
	conn    *zk.Conn
	session int64

	first, count int
	floor, token int64

	st *nodeid.ClaimState
	// versions are the reservation znodes' versions as this claim last
	// wrote them, under st's lock.
	versions []int32
	released bool // under st's lock

	releasing    atomic.Bool // the monitors see the claim znodes go without a loss
	stopMonitors context.CancelFunc
	monitors     sync.WaitGroup
}

func (c *claim) First() int            { return c.first }
func (c *claim) Count() int            { return c.count }
func (c *claim) Floor() int64          { return c.floor }
func (c *claim) Token() int64          { return c.token }
func (c *claim) Lost() <-chan struct{} { return c.st.Lost() }

// Err says why the claim was lost, once Lost is closed: nodeid.Lease.Err
// reports it.
func (c *claim) Err() error { return c.st.Err() }

func (c *claim) lose(why string) { c.st.Lose(why) }

// start registers the claim with the store (which loses it when the
// session ends) and watches every claim znode.
func (c *claim) start() {
	ctx, cancel := context.WithCancel(context.Background())
	c.stopMonitors = cancel
	c.st = nodeid.NewClaimState(fmt.Sprintf("zklease: node ids %d..%d (token %d)", c.first, c.first+c.count-1, c.token), c.floor, func() {
		cancel()
		c.s.forget(c)
	})
	c.s.mu.Lock()
	c.s.claims[c] = struct{}{}
	c.s.mu.Unlock()
	if c.conn.SessionID() != c.session {
		c.lose("the ZooKeeper session ended while the claim was made")
	}
	for i := range c.count {
		c.monitors.Go(func() { c.watch(ctx, c.s.claimPath(c.first+i)) })
	}
}

// watch loses the claim when its claim znode p is deleted (the session
// expired, or someone removed it) or belongs to another session. Errors
// (the server unreachable) are retried: they are no evidence of a loss.
func (c *claim) watch(ctx context.Context, p string) {
	for ctx.Err() == nil {
		type exists struct {
			ok   bool
			stat *zk.Stat
			ch   <-chan zk.Event
		}
		r, err := call(ctx, func() (exists, error) {
			ok, stat, ch, err := c.conn.ExistsW(p)
			return exists{ok, stat, ch}, err
		})
		switch {
		case ctx.Err() != nil:
			return
		case err != nil:
			sleep(ctx, 100*time.Millisecond)
			continue
		case !r.ok || r.stat.EphemeralOwner != c.session:
			if !c.releasing.Load() {
				c.lose(fmt.Sprintf("its claim znode %s was deleted or taken by another session", p))
			}
			return
		}
		select {
		case <-ctx.Done():
			return
		case <-r.ch: // deleted, changed, or the watch ended: look again
		}
	}
}

// Reserve stores until as the reserved-until of every node id, in one
// multi-op conditional on each claim znode existing and each reservation
// znode being at the version this claim last wrote (so no later holder
// has written its generation there). The stored value only moves forward.
// A failed condition that a fresh read confirms (the generation is not
// this claim's, or the claim znode is gone or another session's) wraps
// nodeid.ErrLost; any other error (ZooKeeper unreachable, a timeout) is
// returned as it is.
func (c *claim) Reserve(ctx context.Context, until int64) error {
	return c.st.Reserve(ctx, until, "another holder took the node ids, or the session that held them ended (a reservation's condition failed)", c.reserve)
}

func (c *claim) reserve(ctx context.Context, v int64) (bool, error) {
	if c.released {
		return false, nil
	}
	return c.guarded(ctx, v, false)
}

// Release stores until (at least the claim's floor) as the final
// reserved-until and deletes the claim znodes, in one multi-op with
// Reserve's conditions. A release is no loss: Lost stays open.
func (c *claim) Release(ctx context.Context, until int64) error {
	c.st.Lock()
	defer c.st.Unlock()
	if c.released {
		return nil
	}
	return c.release(ctx, until)
}

func (c *claim) release(ctx context.Context, until int64) error {
	c.releasing.Store(true)
	held, err := c.guarded(ctx, max(until, c.floor), true)
	switch {
	case err != nil:
		c.releasing.Store(false)
		return err
	case !held:
		c.lose("another holder took the node ids, or the session that held them ended, before the release")
		return c.st.Err()
	}
	c.released = true
	c.stopMonitors()
	c.s.forget(c)
	return nil
}

// guarded writes v to every reservation znode (and deletes the claim
// znodes when del), conditional on the claim still holding every id. It
// reports held false when a condition failed and a fresh read confirms
// the claim is gone. When the read shows it is still held (a write of
// ours landed but its answer was lost, so a version moved), it takes the
// new versions and tries again, three times at most. A write that fails
// with the connection's error (retryable) is made again once the client
// is back in the claim's session, for as long as ctx lasts: the session
// lives on, and the claim with it.
func (c *claim) guarded(ctx context.Context, v int64, del bool) (bool, error) {
	dropped := false // a write's answer was lost: it may have happened
	for conflicts := 0; conflicts < 3; {
		if c.conn.SessionID() != c.session {
			return false, nil
		}
		ops := make([]any, 0, 2*c.count)
		for i := range c.count {
			ops = append(ops, &zk.CheckVersionRequest{Path: c.s.claimPath(c.first + i), Version: -1})
			ops = append(ops, &zk.SetDataRequest{Path: c.s.reservedPath(c.first + i), Data: record{Until: v, Generation: c.token}.bytes(), Version: c.versions[i]})
			if del {
				ops = append(ops, &zk.DeleteRequest{Path: c.s.claimPath(c.first + i), Version: -1})
			}
		}
		resp, err := call(ctx, func() ([]zk.MultiResponse, error) { return c.conn.Multi(ops...) })
		switch {
		case err == nil:
			c.takeVersions(resp, del)
			return true, nil
		case errors.Is(err, zk.ErrSessionExpired):
			return false, nil
		case retryable(err) && ctx.Err() == nil:
			dropped = true
			switch err := c.s.reconnected(ctx, c.conn, c.session, err); {
			case errors.Is(err, zk.ErrSessionExpired):
				return false, nil
			case err != nil:
				return false, c.writeErr(v, err)
			}
			continue
		case !conflict(err):
			return false, c.writeErr(v, err)
		}
		conflicts++
		if del && dropped {
			// A release whose answer was lost and that happened: its
			// claim znodes are gone, so the read below would take it
			// for a loss.
			if done, err := c.releaseLanded(ctx, v); err != nil || done {
				return done, err
			}
		}
		held, err := c.stillHeld(ctx)
		if err != nil || !held {
			return false, err
		}
	}
	return false, fmt.Errorf("zklease: write the reservation of node ids %d..%d: its versions keep moving", c.first, c.first+c.count-1)
}

func (c *claim) writeErr(v int64, err error) error {
	return fmt.Errorf("zklease: write the reservation of node ids %d..%d (%v): %w", c.first, c.first+c.count-1, time.Unix(0, v).UTC(), err)
}

// releaseLanded reads whether a release of v by this claim happened: every
// claim znode is gone, and every reservation znode holds v and the
// claim's generation at one version past the one the release was
// conditional on. No other holder writes the claim's generation, and
// the claim's own writes are serialised.
func (c *claim) releaseLanded(ctx context.Context, v int64) (bool, error) {
	for i := range c.count {
		p := c.s.claimPath(c.first + i)
		ok, _, err := retry2(ctx, c.s, c.conn, c.session, func() (bool, *zk.Stat, error) { return c.conn.Exists(p) })
		switch {
		case errors.Is(err, zk.ErrSessionExpired):
			return false, nil
		case err != nil:
			return false, fmt.Errorf("zklease: read %s: %w", p, err)
		case ok:
			return false, nil
		}
		r, stat, err := c.reservation(ctx, i)
		if err != nil || stat == nil {
			return false, err
		}
		if r != (record{Until: v, Generation: c.token}) || stat.Version != c.versions[i]+1 {
			return false, nil
		}
	}
	return true, nil
}

// reservation reads the record of the claim's i-th id and its znode's
// stat; a nil stat with no error: the session expired meanwhile.
func (c *claim) reservation(ctx context.Context, i int) (record, *zk.Stat, error) {
	p := c.s.reservedPath(c.first + i)
	data, stat, err := retry2(ctx, c.s, c.conn, c.session, func() ([]byte, *zk.Stat, error) { return c.conn.Get(p) })
	switch {
	case errors.Is(err, zk.ErrSessionExpired):
		return record{}, nil, nil
	case err != nil:
		return record{}, nil, fmt.Errorf("zklease: read %s: %w", p, err)
	}
	r, err := parseRecord(c.first+i, p, data)
	return r, stat, err
}

// takeVersions records the reservation znodes' versions from a
// successful multi-op of guarded.
func (c *claim) takeVersions(resp []zk.MultiResponse, del bool) {
	step := 2
	if del {
		step = 3
	}
	for i := range c.count {
		if st := resp[step*i+1].Stat; st != nil {
			c.versions[i] = st.Version
		}
	}
}

// stillHeld reads whether every id is still this claim's: its claim
// znode in this claim's session and its reservation at this claim's
// generation. It takes the versions read.
func (c *claim) stillHeld(ctx context.Context) (bool, error) {
	for i := range c.count {
		p := c.s.claimPath(c.first + i)
		ok, stat, err := retry2(ctx, c.s, c.conn, c.session, func() (bool, *zk.Stat, error) { return c.conn.Exists(p) })
		switch {
		case errors.Is(err, zk.ErrSessionExpired):
			return false, nil
		case err != nil:
			return false, fmt.Errorf("zklease: read %s: %w", p, err)
		}
		if !ok || stat.EphemeralOwner != c.session {
			return false, nil
		}
		r, stat, err := c.reservation(ctx, i)
		if err != nil || stat == nil {
			return false, err
		}
		if r.Generation != c.token {
			return false, nil
		}
		c.versions[i] = stat.Version
	}
	return true, nil
}
