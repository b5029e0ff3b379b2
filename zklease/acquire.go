package zklease

import (
	"context"
	"errors"
	"fmt"
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
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("zklease: acquire: %w", err)
	}
	conn, session, err := s.session(ctx)
	if err != nil {
		return nil, err
	}
	for _, p := range []string{s.root + "/claims", s.root + "/reserved"} {
		if err := ensurePath(ctx, conn, p); err != nil {
			return nil, err
		}
	}
	if err := s.pinLayout(ctx, conn, layout); err != nil {
		return nil, err
	}
	holder := []byte(fmt.Sprintf("session=%x pid=%d host=%s", session, os.Getpid(), hostname()))
	for conflicts := 0; ; conflicts++ {
		held, err := s.held(ctx, conn)
		if err != nil {
			return nil, err
		}
		first := pickRange(held, count, maxNode, conflicts)
		if first < 0 {
			return nil, fmt.Errorf("%w: zklease: no %d consecutive free node ids among 0..%d under %s", nodeid.ErrNoFreeNode, count, maxNode, s.root)
		}
		c, err := s.try(ctx, conn, session, holder, first, count)
		if err == nil {
			return c, nil
		}
		if !conflict(err) {
			return nil, err
		}
	}
}

// pinLayout records layout in ROOT/layout when no layout is recorded
// there (a create, which fails when the znode exists), and compares it
// with the record (nodeid's Store contract).
func (s *Store) pinLayout(ctx context.Context, conn *zk.Conn, layout snowlab.Layout) error {
	text, err := layout.MarshalText()
	if err != nil {
		return err
	}
	p := s.root + "/layout"
	_, err = call(ctx, func() (string, error) { return conn.Create(p, text, zk.FlagPersistent, zk.WorldACL(zk.PermAll)) })
	switch {
	case err == nil:
		return nil
	case !errors.Is(err, zk.ErrNodeExists):
		return fmt.Errorf("zklease: record the layout in %s: %w", p, err)
	}
	data, _, err := call2(ctx, func() ([]byte, *zk.Stat, error) { return conn.Get(p) })
	if err != nil {
		return fmt.Errorf("zklease: read %s: %w", p, err)
	}
	return nodeid.CheckLayout("znode "+p, string(data), layout)
}

// held lists the node ids whose claim znode exists: a hint, the multi-op
// decides.
func (s *Store) held(ctx context.Context, conn *zk.Conn) (map[int]bool, error) {
	names, err := call(ctx, func() ([]string, error) {
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

// try claims first..first+count-1 in one multi-op.
func (s *Store) try(ctx context.Context, conn *zk.Conn, session int64, holder []byte, first, count int) (*claim, error) {
	recs := make([]record, count)
	versions := make([]int32, count) // -1: no reservation znode yet
	for i := range count {
		p := s.reservedPath(first + i)
		data, stat, err := call2(ctx, func() ([]byte, *zk.Stat, error) { return conn.Get(p) })
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
			if err == nil {
				s.unclaim(conn, first, count)
			}
		})
	if err != nil {
		return nil, fmt.Errorf("zklease: claim node ids %d..%d: %w", first, first+count-1, err)
	}
	c.versions = newVersions(resp, versions)
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

// unclaim deletes the claim znodes of a claim its caller gave up on. The
// reservations keep the generation it wrote: a token skipped is harmless.
func (s *Store) unclaim(conn *zk.Conn, first, count int) {
	ops := make([]any, count)
	for i := range ops {
		ops[i] = &zk.DeleteRequest{Path: s.claimPath(first + i), Version: -1}
	}
	_, _ = conn.Multi(ops...)
}
