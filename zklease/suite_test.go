package zklease

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/snowlab/snowlab/nodeid"
	"github.com/snowlab/snowlab/nodeid/storetest"
)

// proxies maps each test store to the proxy its connection goes through.
var proxies sync.Map // *Store -> *proxy

var roots atomic.Int64

// newRoot is a znode path no other test uses.
func newRoot(t *testing.T) string {
	name := strings.NewReplacer("/", "_", " ", "_", "#", "_").Replace(t.Name())
	return fmt.Sprintf("/t%d_%s", roots.Add(1), name)
}

// client returns a Store on server under root, with sessions of
// testSession, whose connection goes through a proxy of its own, closed
// when t ends.
func client(t *testing.T, server, root string) *Store {
	t.Helper()
	return clientWith(t, server, root, testSession)
}

// clientWith is client with sessions of the given timeout.
func clientWith(t *testing.T, server, root string, session time.Duration) *Store {
	t.Helper()
	p := newProxy(t, server)
	s, err := newStore([]string{server}, root, session, p.dial)
	if err != nil {
		t.Fatal(err)
	}
	proxies.Store(s, p)
	t.Cleanup(s.Close)
	return s
}

// restartSession is the session of the clients of the cases whose
// holders must keep their ids throughout (storetest.ExpiresHolder is
// false), and of the second client of the others, whose holders are the
// successors. The Restart case wants the holder to keep its ids while the
// server is SIGKILLed and started again, and the JVM takes 4..5 s to
// serve again here (up to 10 s on a loaded machine), past testSession; a
// restarted server gives the sessions it restores a whole timeout from
// its start. And a 2 s session ends when a loaded machine holds up the
// client's pings, or the server, for 2 s (the store rides out a dropped
// connection, not an expired session). The first client of a case that
// expires a holder keeps testSession, so that its expiries take 2 s, not
// 15.
const restartSession = 15 * time.Second

// TestStoreSuite runs the Store suite on a standalone ZooKeeper of the
// test's own, which the Restart case kills and starts again on the same
// data. Each case's backend is a fresh root path, and each client of it a
// session of its own (of testSession for the first client of a case that
// expires a holder, restartSession for the others). A crash is the end of the holder's session (Close:
// ZooKeeper deletes its ephemeral claim znodes at once); an expiry is a
// holder cut off from the server until the server expires its session; a
// steal deletes a holder's claim znodes by hand while its session lives.
// There is no Lose: ZooKeeper logs a write and fsyncs the log before it
// acknowledges it (forceSync, on by default; off, the write is still in
// the kernel's page cache, which a killed server does not lose), so no
// kill of the server here loses an acknowledged write, and a client has
// no say in it. With a mutant planted (storetest.PlantedMutant, from
// TestSuiteCatchesMutants) the suite must fail.
func TestStoreSuite(t *testing.T) {
	t.Parallel() // each test runs servers of its own: their waits overlap
	e := startEnsemble(t, 1)
	m := e.members[0]
	server := m.addr()
	cfg := storetest.Config{
		Crash:  func(t *testing.T, c nodeid.Claim) { c.(*claim).s.Close() },
		Expire: func(t *testing.T, c nodeid.Claim) { expire(t, server, c.(*claim)) },
		Steal:  func(t *testing.T, c nodeid.Claim) { steal(t, server, c.(*claim)) },
		TTL:    testSession,
		Stop: func(t *testing.T) {
			starting.Store(server, struct{}{})
			e.kill(m)
		},
		Start: func(t *testing.T) {
			e.start(t, m)
			e.wait(t, m)
			starting.Delete(server)
		},
	}
	storetest.Run(t, func(t *testing.T) storetest.Backend {
		root := newRoot(t)
		short := storetest.ExpiresHolder(t)
		return storetest.BackendFunc(func(t *testing.T) nodeid.Store {
			// The suite expires holders of its first client: the
			// successors, held through the other, must live on.
			session := restartSession
			if short {
				short, session = false, testSession
			}
			return clientWith(t, server, root, session)
		})
	}, cfg)
}

// steal deletes c's claim znodes through a session of its own, as a
// person with zkCli would, after stopping c's watches, so that c, its
// session alive, does not know. With the mutant "unversioned" planted,
// c's next write sets its reservation znodes whatever their version (the
// versions it keeps are made -1, ZooKeeper's "any"), as a guarded write
// without the version would.
func steal(t *testing.T, server string, c *claim) {
	t.Helper()
	c.stopMonitors()
	c.monitors.Wait()
	conn, _, err := zk.Connect([]string{server}, testSession, zk.WithLogger(nopLogger{}))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	for i := range c.count {
		if err := conn.Delete(c.s.claimPath(c.first+i), -1); err != nil {
			t.Fatalf("delete %s: %v", c.s.claimPath(c.first+i), err)
		}
	}
	if storetest.PlantedMutant() == "unversioned" {
		c.st.Lock()
		for i := range c.versions {
			c.versions[i] = -1
		}
		c.st.Unlock()
	}
}

// TestSuiteCatchesMutants: the Store suite fails this store with the bug
// issue 37 found surviving it planted: Reserve and Release writing the
// reservation znodes whatever their version, which only the Stolen case
// shows (in Zombie the holder's session has expired, and the claim
// refuses its own writes before they reach the server).
func TestSuiteCatchesMutants(t *testing.T) {
	needZK(t)
	storetest.CatchMutants(t, "TestStoreSuite", []storetest.Mutant{
		{Name: "unversioned", Case: "Stolen", Says: "its guard let it write over the successor"},
	})
}

// expire cuts c's store off from ZooKeeper until the server has expired
// its session (its claim znodes are gone: the session timeout and a tick
// after the cut, on a quiet machine), then lets it reconnect, as a holder
// whose network came back would, and waits until it has heard that its
// session expired. How soon is the server's business: the waits end only
// with the test (the session timeout and 10 s was the bound before).
func expire(t *testing.T, server string, c *claim) {
	t.Helper()
	p, _ := proxies.Load(c.s)
	p.(*proxy).setCut(true)
	defer p.(*proxy).setCut(false)
	obs, _, err := zk.Connect([]string{server}, testSession, zk.WithLogger(nopLogger{}))
	if err != nil {
		t.Fatal(err)
	}
	defer obs.Close()
	wait := storetest.UntilTestEnds(t)
	for {
		ok, _, err := obs.Exists(c.s.claimPath(c.first))
		if err == nil && !ok {
			p.(*proxy).setCut(false)
			waitLost(t, c, "the holder reconnected after its session expired")
			return
		}
		select {
		case <-wait.Done():
			t.Fatalf("the session of ids %d..%d (timeout %v) never expired after its holder was cut off: %s still there (%v)",
				c.first, c.first+c.count-1, c.s.timeout, c.s.claimPath(c.first), err)
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// waitLost waits for c's Lost, until the test ends.
func waitLost(t *testing.T, c nodeid.Claim, why string) {
	t.Helper()
	select {
	case <-c.Lost():
	case <-storetest.UntilTestEnds(t).Done():
		t.Fatalf("ids %d..%d: Lost never closed: %s", c.First(), c.First()+c.Count()-1, why)
	}
}

// ctx is the context of the tests' calls to the store and ZooKeeper:
// storetest.UntilTestEnds, so that a call never answered fails the test
// with its own error, and one answered late on a loaded machine does not
// (30 s, and 10 s in TestLeaderChange, were the bounds before).
func ctx(t *testing.T) context.Context { return storetest.UntilTestEnds(t) }
