package zklease

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"

	"github.com/go-zookeeper/zk"

	"github.com/snowlab/snowlab"
	"github.com/snowlab/snowlab/nodeid"
)

// Acquire takes count consecutive free node ids among 0..maxNode: for a
// candidate range it reads each id's reservation znode, then runs one
// multi-op that creates every claim znode (ephemeral, in the store's
// session) and writes every reservation znode with the new holder's
// generation, conditional on the version it read (or creates it). Either
// all of it happens or none: a conflict (a claim znode that exists, a
// reservation written meanwhile) makes it try another range. The claim's
// token is one above the highest generation found; its floor the latest
// reserved-until found. When no range is free it fails with
// nodeid.ErrNoFreeNode.
func (s *Store) Acquire(ctx context.Context, layout snowlab.Layout, count, maxNode int) (nodeid.Claim, error) {
	if err := checkCount(count, maxNode); err != nil {
		return nil, err
	}
	for {
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("zklease: acquire: %w", err)
		}
		conn, session, err := s.session(ctx)
		if err != nil {
			return nil, err
		}
		c, err := s.acquire(ctx, conn, session, layout, count, maxNode)
		if !errors.Is(err, zk.ErrSessionExpired) {
			return c, err
		}
		// The session ended meanwhile, and every claim znode made in it
		// with it: again, in the client's next session.
	}
}

// acquire is Acquire in one session.
func (s *Store) acquire(ctx context.Context, conn *zk.Conn, session int64, layout snowlab.Layout, count, maxNode int) (nodeid.Claim, error) {
	for _, p := range []string{s.root + "/claims", s.root + "/reserved"} {
		if err := s.ensurePath(ctx, conn, session, p); err != nil {
			return nil, err
		}
	}
	if err := s.pinLayout(ctx, conn, session, layout); err != nil {
		return nil, err
	}
	for conflicts := 0; ; conflicts++ {
		held, err := s.held(ctx, conn, session)
		if err != nil {
			return nil, err
		}
		first := pickRange(held, count, maxNode, conflicts)
		if first < 0 {
			return nil, fmt.Errorf("%w: zklease: no %d consecutive free node ids among 0..%d under %s", nodeid.ErrNoFreeNode, count, maxNode, s.root)
		}
		c, err := s.try(ctx, conn, session, first, count)
		switch {
		case err == nil && c != nil:
			return c, nil
		case err != nil && !conflict(err):
			return nil, err
		}
	}
}

// pinLayout records layout in ROOT/layout when no layout is recorded
// there (a create, which fails when the znode exists), and compares it
// with the record (nodeid's Store contract).
func (s *Store) pinLayout(ctx context.Context, conn *zk.Conn, session int64, layout snowlab.Layout) error {
	text, err := layout.MarshalText()
	if err != nil {
		return err
	}
	p := s.root + "/layout"
	_, err = retry(ctx, s, conn, session, func() (string, error) { return conn.Create(p, text, zk.FlagPersistent, zk.WorldACL(zk.PermAll)) })
	switch {
	case err == nil:
		return nil
	case !errors.Is(err, zk.ErrNodeExists):
		return fmt.Errorf("zklease: record the layout in %s: %w", p, err)
	}
	data, _, err := retry2(ctx, s, conn, session, func() ([]byte, *zk.Stat, error) { return conn.Get(p) })
	if err != nil {
		return fmt.Errorf("zklease: read %s: %w", p, err)
	}
	return nodeid.CheckLayout("znode "+p, string(data), layout)
}

// held lists the node ids whose claim znode exists: a hint, the multi-op
// decides.
func (s *Store) held(ctx context.Context, conn *zk.Conn, session int64) (map[int]bool, error) {
	names, err := retry(ctx, s, conn, session, func() ([]string, error) {
		names, _, err := conn.Children(s.root + "/claims")
		return names, err
	})
	if err != nil {
		return nil, fmt.Errorf("zklease: list %s/claims: %w", s.root, err)
	}
	held := make(map[int]bool, len(names))
	for _, n := range names {
		if id, err := strconv.Atoi(n); err == nil {
			held[id] = true
		}
	}
	return held, nil
}

// conflict reports whether a multi-op failed on its conditions (another
// holder got there first), not on the connection.
func conflict(err error) bool {
	return errors.Is(err, zk.ErrNodeExists) || errors.Is(err, zk.ErrBadVersion) || errors.Is(err, zk.ErrNoNode)
}

// try claims first..first+count-1 in one multi-op. It returns no claim
// and no error when the multi-op did not happen for a dropped connection:
// the caller tries again.
func (s *Store) try(ctx context.Context, conn *zk.Conn, session int64, first, count int) (*claim, error) {
	recs := make([]record, count)
	versions := make([]int32, count) // -1: no reservation znode yet
	for i := range count {
		p := s.reservedPath(first + i)
		data, stat, err := retry2(ctx, s, conn, session, func() ([]byte, *zk.Stat, error) { return conn.Get(p) })
		switch {
		case errors.Is(err, zk.ErrNoNode):
			versions[i] = -1
			continue
		case err != nil:
			return nil, fmt.Errorf("zklease: read %s: %w", p, err)
		}
		if recs[i], err = parseRecord(first+i, p, data); err != nil {
			return nil, err
		}
		versions[i] = stat.Version
	}
	c := &claim{s: s, conn: conn, session: session, first: first, count: count, versions: versions}
	for _, r := range recs {
		c.token = max(c.token, r.Generation+1)
		c.floor = max(c.floor, r.Until)
	}
	// The claim znodes' data names this try alone, so that the store can
	// tell the znodes of a multi-op whose answer it lost from any other's
	// (another Acquire of this store's, in the same session, among them).
	holder := fmt.Appendf(nil, "session=%x pid=%d host=%s claim=%016x", session, os.Getpid(), hostname(), rand.Uint64())
	ops := make([]any, 0, 2*count)
	for i := range count {
		ops = append(ops, &zk.CreateRequest{Path: s.claimPath(first + i), Data: holder, Acl: zk.WorldACL(zk.PermAll), Flags: zk.FlagEphemeral})
		rec := record{Until: recs[i].Until, Generation: c.token}.bytes()
		if versions[i] < 0 {
			ops = append(ops, &zk.CreateRequest{Path: s.reservedPath(first + i), Data: rec, Acl: zk.WorldACL(zk.PermAll)})
		} else {
			ops = append(ops, &zk.SetDataRequest{Path: s.reservedPath(first + i), Data: rec, Version: versions[i]})
		}
	}
	// A multi-op that ctx abandons may still succeed: its claim znodes
	// would keep the ids from everyone for the session's life, so the
	// abandoned call deletes them again.
	resp, err := call(ctx, func() ([]zk.MultiResponse, error) { return conn.Multi(ops...) },
		func(_ []zk.MultiResponse, err error) {
			if err == nil || retryable(err) {
				s.abandon(conn, holder, first, count)
			}
		})
	switch {
	case err == nil && conn.SessionID() != session:
		// Queued while the client reconnected, it ran in the next
		// session; c.start would lose the claim at once.
		go s.abandon(conn, holder, first, count)
		return nil, nil
	case err == nil:
		c.versions = newVersions(resp, versions)
	case retryable(err) && ctx.Err() == nil:
		// The connection went with the multi-op in flight: it happened
		// or not, and the claim znodes say which.
		landed, lerr := s.landed(ctx, conn, session, holder, first, count)
		switch {
		case lerr != nil:
			go s.abandon(conn, holder, first, count)
			return nil, fmt.Errorf("zklease: claim node ids %d..%d: %w (the connection was lost: %w)", first, first+count-1, lerr, err)
		case !landed:
			return nil, nil
		}
		if lerr = c.readVersions(ctx); lerr != nil {
			go s.abandon(conn, holder, first, count)
			return nil, lerr
		}
	default:
		return nil, fmt.Errorf("zklease: claim node ids %d..%d: %w", first, first+count-1, err)
	}
	c.start()
	return c, nil
}

// newVersions returns the reservation znodes' versions after the claim's
// multi-op: the SetData's new version, 0 for one it created.
func newVersions(resp []zk.MultiResponse, old []int32) []int32 {
	v := make([]int32, len(old))
	for i := range old {
		if r := resp[2*i+1]; r.Stat != nil {
			v[i] = r.Stat.Version
		}
	}
	return v
}

// landed reads whether the claim multi-op of try that wrote holder in
// the claim znodes of first..first+count-1 happened: every claim znode
// holds holder in session. One that does not when others do was deleted
// since (by hand): the others are deleted and it did not.
func (s *Store) landed(ctx context.Context, conn *zk.Conn, session int64, holder []byte, first, count int) (bool, error) {
	mine := 0
	for i := range count {
		p := s.claimPath(first + i)
		data, stat, err := retry2(ctx, s, conn, session, func() ([]byte, *zk.Stat, error) { return conn.Get(p) })
		switch {
		case errors.Is(err, zk.ErrNoNode):
		case err != nil:
			return false, fmt.Errorf("zklease: read %s: %w", p, err)
		case bytes.Equal(data, holder) && stat.EphemeralOwner == session:
			mine++
		}
	}
	if mine > 0 && mine < count {
		s.abandon(conn, holder, first, count)
	}
	return mine == count, nil
}

// readVersions takes the versions of the reservation znodes that the
// claim's own multi-op wrote, whose answer was lost: each must hold the
// claim's generation (its claim znodes, which the caller read, keep
// everyone else from writing one).
func (c *claim) readVersions(ctx context.Context) error {
	for i := range c.count {
		p := c.s.reservedPath(c.first + i)
		data, stat, err := retry2(ctx, c.s, c.conn, c.session, func() ([]byte, *zk.Stat, error) { return c.conn.Get(p) })
		if err != nil {
			return fmt.Errorf("zklease: read %s: %w", p, err)
		}
		r, err := parseRecord(c.first+i, p, data)
		if err != nil {
			return err
		}
		if r.Generation != c.token {
			return fmt.Errorf("zklease: %s holds generation %d after this claim's multi-op wrote %d beside its claim znodes", p, r.Generation, c.token)
		}
		c.versions[i] = stat.Version
	}
	return nil
}

// abandon deletes the claim znodes of first..first+count-1 that hold
// holder: a claim multi-op of try that its caller gave up on may have
// made them (no other writes holder), and they would keep the ids from
// everyone for its session's life. It waits for the client to reconnect
// while the client's session lives, at most twice its timeout (by then a
// session the client could not reach has ended on the server, and its
// znodes with it).
func (s *Store) abandon(conn *zk.Conn, holder []byte, first, count int) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*s.timeout)
	defer cancel()
	session := conn.SessionID()
	for i := range count {
		p := s.claimPath(first + i)
		data, stat, err := retry2(ctx, s, conn, session, func() ([]byte, *zk.Stat, error) { return conn.Get(p) })
		if err != nil || !bytes.Equal(data, holder) {
			continue
		}
		_, _ = retry(ctx, s, conn, session, func() (struct{}, error) { return struct{}{}, conn.Delete(p, stat.Version) })
	}
}
