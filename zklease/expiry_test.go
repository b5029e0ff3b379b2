package zklease

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/snowlab/snowlab"
	"github.com/snowlab/snowlab/nodeid"
	"github.com/snowlab/snowlab/nodeid/storetest"
)

// TestSessionExpiry cuts a holder off from ZooKeeper (its proxy drops the
// connection and refuses new ones) until the server expires its session.
// While cut off its Reserve fails without nodeid.ErrLost: it cannot know
// yet. Its claim znode goes, and a successor takes its node id while it
// is still cut off: the successor's floor covers the holder's last
// stored reservation. Healed, the holder reconnects, hears that its
// session expired, and Lost closes; its Reserve and Release are refused
// with nodeid.ErrLost and leave the successor's reservation as it was.
func TestSessionExpiry(t *testing.T) {
	t.Parallel()
	e := startEnsemble(t, 1)
	server := e.servers()[0]
	root := newRoot(t)
	s := client(t, server, root)
	c, err := s.Acquire(ctx(t), snowlab.Layout{}, 1, 0)
	if err != nil {
		t.Fatal(err)
	}
	last := c.Floor()
	for i := range 3 {
		until := time.Now().Add(time.Duration(i+1) * time.Second).UnixNano()
		if err := c.Reserve(ctx(t), until); err != nil {
			t.Fatal(err)
		}
		last = until
	}

	p, _ := proxies.Load(s)
	p.(*proxy).setCut(true)
	cut := time.Now()
	rctx, cancel := context.WithTimeout(ctx(t), time.Second)
	err = c.Reserve(rctx, time.Now().Add(5*time.Second).UnixNano())
	cancel()
	if err == nil || errors.Is(err, nodeid.ErrLost) {
		t.Fatalf("Reserve cut off from ZooKeeper: %v; want an error that is not ErrLost (the holder cannot know yet)", err)
	}
	// ErrLost aside, an answer lost on the way may have stored the value:
	// the successor's floor is at least last either way.
	gone := waitGone(t, server, s.claimPath(0))
	t.Logf("the server expired the session %v after the cut (session timeout %v)", gone.Sub(cut).Round(time.Millisecond), testSession)

	succ, err := client(t, server, root).Acquire(ctx(t), snowlab.Layout{}, 1, 0)
	if err != nil {
		t.Fatalf("taking node id 0 after its holder's session expired: %v", err)
	}
	if succ.Floor() < last {
		t.Fatalf("the successor's floor %v is below the expired holder's last reservation %v",
			time.Unix(0, succ.Floor()).UTC(), time.Unix(0, last).UTC())
	}
	if succ.Token() <= c.Token() {
		t.Fatalf("the successor's token %d is not above the expired holder's %d", succ.Token(), c.Token())
	}

	p.(*proxy).setCut(false)
	waitLost(t, c, "the holder reconnected after its session expired")
	// The claim says why, which a nodeid.Lease reports as its Err (it
	// was ErrLost alone).
	if err := c.(interface{ Err() error }).Err(); !errors.Is(err, nodeid.ErrLost) || !strings.Contains(err.Error(), "the ZooKeeper session") {
		t.Fatalf("the lost claim's Err: %v, want ErrLost and the session's end", err)
	}
	if err := c.Reserve(ctx(t), time.Now().Add(time.Hour).UnixNano()); !errors.Is(err, nodeid.ErrLost) {
		t.Fatalf("Reserve after the session expired: %v, want ErrLost", err)
	}
	if err := c.Release(ctx(t), time.Now().Add(time.Hour).UnixNano()); !errors.Is(err, nodeid.ErrLost) {
		t.Fatalf("Release after the session expired: %v, want ErrLost", err)
	}
	readRecord(t, server, s, 0, record{Until: succ.Floor(), Generation: succ.Token()})
	if err := succ.Release(ctx(t), succ.Floor()); err != nil {
		t.Fatal(err)
	}
}

// waitGone waits until znode p is gone, as an observer of its own sees
// it, until the test ends, and returns when.
func waitGone(t *testing.T, server, p string) time.Time {
	t.Helper()
	obs, _, err := zk.Connect([]string{server}, testSession, zk.WithLogger(nopLogger{}))
	if err != nil {
		t.Fatal(err)
	}
	defer obs.Close()
	wait := storetest.UntilTestEnds(t)
	for {
		if ok, _, err := obs.Exists(p); err == nil && !ok {
			return time.Now()
		}
		select {
		case <-wait.Done():
			t.Fatalf("%s never went after its holder was cut off (session timeout %v)", p, testSession)
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// readRecord checks that node id n's reservation znode under s's root
// holds want.
func readRecord(t *testing.T, server string, s *Store, n int, want record) {
	t.Helper()
	p := s.reservedPath(n)
	obs, _, err := zk.Connect([]string{server}, testSession, zk.WithLogger(nopLogger{}))
	if err != nil {
		t.Fatal(err)
	}
	defer obs.Close()
	data, _, err := obs.Get(p)
	if err != nil {
		t.Fatalf("read %s: %v", p, err)
	}
	got, err := parseRecord(n, p, data)
	if err != nil {
		t.Fatal(err)
	}
	if got != want {
		t.Fatalf("%s holds %+v after the expired holder's writes, want the successor's %+v", p, got, want)
	}
}
