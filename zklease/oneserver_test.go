package zklease

import (
	"context"
	"errors"
	"net"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/snowlab/snowlab"
	"github.com/snowlab/snowlab/nodeid"
)

// TestOneServer runs the cases that need one healthy server of their own.
//
//   - Unresponsive servers first: the store lists two servers that accept
//     TCP connections and never answer beside the healthy one, and the
//     client tries both before it (the worst draw of its shuffle): each
//     attempt is bounded (attemptBound), so the healthy server gives the
//     store a session within ReachTimeout, and Acquire takes an id.
//     go-zookeeper alone waits 66.7 s on the first of them (ten times its
//     read timeout, for the default 10 s session). Past the handshake the
//     bound is lifted: the session's connection is still the one it made
//     when the attempt bound is long gone.
//   - Paths: every path checkPath refuses is refused by the client or by
//     the server (so it can never work), and the edges of its ranges that
//     it accepts are znodes the server creates.
func TestOneServer(t *testing.T) {
	t.Parallel() // each test runs servers of its own: their waits overlap
	e := startEnsemble(t, 1)
	good := e.members[0].addr()

	t.Run("unresponsive servers first", func(t *testing.T) {
		holes := []string{blackHole(t), blackHole(t)}
		order := append(holes, good) // the client's draw: both black holes first
		var dials atomic.Int32
		var dialed atomic.Int64 // when the last dial began, Unix ns: its bound ends by then and the bound
		dial := func(network, _ string, timeout time.Duration) (net.Conn, error) {
			dialed.Store(time.Now().UnixNano())
			i := dials.Add(1) - 1
			return net.DialTimeout(network, order[int(i)%len(order)], timeout)
		}
		s, err := newStore(order, newRoot(t), DefaultSessionTimeout, dial)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(s.Close)
		c, err := s.Acquire(ctx(t), snowlab.Layout{}, 1, 1023)
		if err != nil {
			t.Fatalf("Acquire with servers %v, the client trying the two black holes first: %v", order, err)
		}
		t.Cleanup(func() { _ = c.Release(context.Background(), c.Floor()) })
		if n := dials.Load(); n != 3 {
			t.Fatalf("%d dials for a session on the third server, want 3", n)
		}
		// The session's connection's handshake bound ends no later than
		// a bound after its dial began (boundedDialer reads the clock
		// before it dials): sleep until then, not a figure past it.
		bound := attemptBound(len(order), DefaultSessionTimeout)
		time.Sleep(time.Until(time.Unix(0, dialed.Load()).Add(bound)))
		if err := c.Reserve(ctx(t), time.Now().Add(time.Second).UnixNano()); err != nil {
			t.Fatalf("Reserve %v after the session was made: %v", bound, err)
		}
		if n := dials.Load(); n != 3 {
			t.Fatalf("%d dials %v after the session was made on the third server, want 3: the attempt's bound outlived its handshake", n, bound)
		}
	})

	t.Run("paths", func(t *testing.T) {
		conn, _, err := zk.Connect([]string{good}, testSession, zk.WithLogger(nopLogger{}))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(conn.Close)
		root := newRoot(t)
		if err := (&Store{}).ensurePath(ctx(t), conn, conn.SessionID(), root); err != nil {
			t.Fatal(err)
		}
		create := func(p string) error {
			_, err := call(ctx(t), func() (string, error) { return conn.Create(p, nil, zk.FlagPersistent, zk.WorldACL(zk.PermAll)) })
			return err
		}
		for _, name := range []string{
			"a\x00b", "a\x01b", "a\x1fb", "a\x7fb", "a\u0080b", "a\u009fb",
			"a\ue000b", "a\uf8ffb", "a\ufff0b", "a\ufffeb", "a\uffffb", "a\U00010000b", "a\U0001F600b", "a\xffb",
		} {
			p := root + "/" + name
			if err := checkPath(p); err == nil {
				t.Errorf("checkPath(%q) accepted it", p)
			}
			if err := create(p); err == nil || errors.Is(err, zk.ErrNodeExists) {
				t.Errorf("ZooKeeper created %q (%v): checkPath refuses a path that works", p, err)
			}
		}
		// The server's own subtree takes znodes of the store's too.
		if p := "/zookeeper" + root; checkPath(p) != nil || create(p) != nil {
			t.Errorf("%s: checkPath %v, create %v; want both to take it", p, checkPath(p), create(p))
		}
		for _, name := range []string{
			"a\x20b", "a~b", "a\u00a0b", "a\u07ffb", "a\ud7ffb", "a\uf900b", "a\uffefb", "a.b", "..a", "a..", "é",
		} {
			p := root + "/" + name
			if err := checkPath(p); err != nil {
				t.Errorf("checkPath(%q): %v", p, err)
				continue
			}
			if err := create(p); err != nil {
				t.Errorf("ZooKeeper refused %q, which checkPath accepts: %v", p, err)
				continue
			}
			got, _, err := conn.Children(root)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Contains(got, name) {
				t.Errorf("created %q, but %s lists %q", p, root, got)
			}
		}
	})
}

// blackHole is a loopback address that accepts TCP connections and never
// answers them, a ZooKeeper server hung (or a port forward to a dead one):
// its connections stay open, unread, until the test ends.
func blackHole(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var conns []net.Conn
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, c)
			mu.Unlock()
		}
	}()
	t.Cleanup(func() {
		l.Close()
		<-done
		mu.Lock()
		defer mu.Unlock()
		for _, c := range conns {
			c.Close()
		}
	})
	return l.Addr().String()
}

// TestParsedPaths: a spec whose path ZooKeeper can never hold is refused
// when it is parsed, with nodeid.ErrInvalidSpec from the opener, the path
// quoted so that a control character in it is escaped: one line. (The
// server takes /zookeeper/NAME: TestOneServer creates one.)
func TestParsedPaths(t *testing.T) {
	open := Opener(0)
	for _, spec := range []string{
		"127.0.0.1:2181/a\x01b", "127.0.0.1:2181/a\nb", "127.0.0.1:2181/app/./x", "127.0.0.1:2181/app//x",
		"127.0.0.1:2181/app\xff", "127.0.0.1:2181/app\U0001F600", "127.0.0.1:2181/app\u0085",
	} {
		_, err := open.Open(spec)
		if err == nil {
			t.Errorf("Opener(%q) accepted it", spec)
			continue
		}
		if msg := err.Error(); strings.ContainsAny(msg, "\x01\n\xff\u0085") {
			t.Errorf("Opener(%q): %q prints the path raw", spec, msg)
		}
		_, err = nodeid.OpenStore("zk:"+spec, map[string]nodeid.Opener{"zk": open})
		if !errors.Is(err, nodeid.ErrInvalidSpec) {
			t.Errorf("OpenStore(zk:%q): %v, want nodeid.ErrInvalidSpec", spec, err)
		}
	}
	for _, spec := range []string{"127.0.0.1:2181/app", "127.0.0.1:2181/zookeeper/app", "127.0.0.1:2181/app/é"} {
		if _, err := open.Open(spec); err != nil {
			t.Errorf("Opener(%q): %v", spec, err)
		}
	}
}
