package zklease

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/go-zookeeper/zk"

	"github.com/snowlab/snowlab"
	"github.com/snowlab/snowlab/nodeid"
)

const (
	// DefaultPath is the znode under which New keeps its znodes when given
	// no path.
	DefaultPath = "/snowlab"
	// DefaultSessionTimeout is the session timeout New asks for when given
	// 0. The server clamps what it grants to 2..20 ticks (4 s..40 s with
	// the default tickTime of 2 s).
	DefaultSessionTimeout = 10 * time.Second
	// MaxCount is the most node ids one claim holds: Acquire puts two
	// operations per node id in one multi-op, and a claim watches each
	// id's znode; 64 keeps both small (ZooKeeper takes requests of up to
	// jute.maxbuffer, 1 MiB: about 100 bytes per operation here).
	MaxCount = 64
	// ReachTimeout bounds how long Acquire waits for a session before it
	// fails with ErrUnreachable.
	ReachTimeout = 5 * time.Second
)

// ErrUnreachable: no ZooKeeper server gave the store a session in time.
var ErrUnreachable = errors.New("zklease: ZooKeeper unreachable")

// Store is a nodeid.Store on ZooKeeper: see the package documentation for
// the znodes it writes and how it fences a holder. It holds one ZooKeeper
// session, made on the first Acquire; every claim made through it lives as
// long as that session.
type Store struct {
	servers []string
	root    string
	timeout time.Duration
	dialer  zk.Dialer

	mu     sync.Mutex
	conn   *zk.Conn
	claims map[*claim]struct{} // the claims not yet released or lost
	closed bool
}

var _ nodeid.Store = (*Store)(nil)

// New returns a Store on the ZooKeeper ensemble at servers (host:port
// each) that keeps its znodes under root (DefaultPath when empty) and asks
// for sessions of sessionTimeout (DefaultSessionTimeout when 0). It does
// not connect: the first Acquire does, and fails with ErrUnreachable when
// no server answers within ReachTimeout. Close ends the session, which
// deletes the claim znodes of every claim not released.
func New(servers []string, root string, sessionTimeout time.Duration) (*Store, error) {
	return newStore(servers, root, sessionTimeout, nil)
}

func newStore(servers []string, root string, timeout time.Duration, dialer zk.Dialer) (*Store, error) {
	if len(servers) == 0 {
		return nil, fmt.Errorf("%w: zklease: no ZooKeeper server given", nodeid.ErrInvalidSpec)
	}
	for _, s := range servers {
		if err := checkHostPort(s); err != nil {
			return nil, fmt.Errorf("%w: zklease: server %w", nodeid.ErrInvalidSpec, err)
		}
	}
	if root == "" {
		root = DefaultPath
	}
	if err := checkPath(root); err != nil {
		return nil, fmt.Errorf("%w: zklease: %w", nodeid.ErrInvalidSpec, err)
	}
	if timeout == 0 {
		timeout = DefaultSessionTimeout
	}
	return &Store{servers: slices.Clone(servers), root: root, timeout: timeout, dialer: dialer, claims: map[*claim]struct{}{}}, nil
}

// Close ends the store's session: ZooKeeper deletes the claim znodes of
// the claims not released (their reservations stay), and they are lost.
func (s *Store) Close() {
	s.mu.Lock()
	conn := s.conn
	s.closed = true
	s.mu.Unlock()
	if conn != nil {
		conn.Close()
	}
	s.loseAll(func(*claim) bool { return true }, "the store was closed")
}

func (s *Store) claimPath(n int) string    { return s.root + "/claims/" + strconv.Itoa(n) }
func (s *Store) reservedPath(n int) string { return s.root + "/reserved/" + strconv.Itoa(n) }

// nopLogger keeps the client's connection chatter (server addresses,
// retries) out of the program's output.
type nopLogger struct{}

func (nopLogger) Printf(string, ...any) {}

// session returns the store's connection once it has a session, dialling
// it on first use. It waits at most ReachTimeout (or ctx). Each attempt on
// one server is bounded (attemptBound), so that a server that accepts
// connections and never answers does not keep the client from the others.
func (s *Store) session(ctx context.Context) (*zk.Conn, int64, error) {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil, 0, errors.New("zklease: the store is closed")
	}
	if s.conn == nil {
		dialer := s.dialer
		if dialer == nil {
			dialer = net.DialTimeout
		}
		dialer = boundedDialer(dialer, attemptBound(len(s.servers), s.timeout))
		conn, _, err := zk.Connect(s.servers, s.timeout, zk.WithLogger(nopLogger{}), zk.WithEventCallback(s.event), zk.WithDialer(dialer))
		if err != nil {
			s.mu.Unlock()
			return nil, 0, fmt.Errorf("%w at %s: %w", ErrUnreachable, strings.Join(s.servers, ","), err)
		}
		s.conn = conn
	}
	conn := s.conn
	s.mu.Unlock()
	ctx, cancel := context.WithTimeout(ctx, ReachTimeout)
	defer cancel()
	for conn.State() != zk.StateHasSession {
		if !sleep(ctx, 20*time.Millisecond) {
			return nil, 0, fmt.Errorf("%w: no session from %s within %v", ErrUnreachable, strings.Join(s.servers, ","), ReachTimeout)
		}
	}
	return conn, conn.SessionID(), nil
}

// event is the connection's event callback. A session that expired, or a
// new one in place of the one a claim was made in, means the claim znodes
// of that session are gone: those claims are lost. It runs on the
// client's goroutine and must not wait for the connection's answers.
func (s *Store) event(ev zk.Event) {
	switch ev.State {
	case zk.StateExpired:
		s.loseAll(func(*claim) bool { return true }, "the ZooKeeper session expired")
	case zk.StateHasSession:
		s.mu.Lock()
		conn := s.conn
		s.mu.Unlock()
		if conn == nil {
			return
		}
		id := conn.SessionID()
		s.loseAll(func(c *claim) bool { return c.session != id }, "the ZooKeeper session ended (a new one replaced it)")
	}
}

// loseAll loses the registered claims that match.
func (s *Store) loseAll(match func(*claim) bool, why string) {
	s.mu.Lock()
	var gone []*claim
	for c := range s.claims {
		if match(c) {
			gone = append(gone, c)
			delete(s.claims, c)
		}
	}
	s.mu.Unlock()
	for _, c := range gone {
		c.lose(why)
	}
}

func (s *Store) forget(c *claim) {
	s.mu.Lock()
	delete(s.claims, c)
	s.mu.Unlock()
}

// record is what a reservation znode holds.
type record struct {
	// Until is the reserved-until, Unix nanoseconds.
	Until int64 `json:"reservedUntil"`
	// Generation is the token of the id's latest holder.
	Generation int64 `json:"generation"`
}

func (r record) bytes() []byte {
	b, _ := json.Marshal(r) // two int64s: cannot fail
	return b
}

// ErrCorrupt: a znode of the store holds data this version does not
// read (an older or newer version's record, a hand edit). It is never
// read as a reservation of 0, nor overwritten: the error names the node
// id and the znode, for a person to mend.
var ErrCorrupt = errors.New("zklease: unknown data in a znode of the store")

// parseRecord reads node id n's reservation znode p, which holds b. It
// takes exactly the record bytes writes: a JSON object with both fields,
// a generation that is not negative, nothing else. Anything else is
// ErrCorrupt: decoded leniently, a record in another form (other field
// names, a field missing, a string for a number) reads as reserved-until
// 0, and the claim would hand out the id with floor 0 and write its own
// record over the reservation.
func parseRecord(n int, p string, b []byte) (record, error) {
	var raw struct {
		Until      *int64 `json:"reservedUntil"`
		Generation *int64 `json:"generation"`
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	err := dec.Decode(&raw)
	switch {
	case err != nil:
	case dec.Decode(new(json.RawMessage)) != io.EOF:
		err = errors.New("data after the record")
	case raw.Until == nil || raw.Generation == nil:
		err = errors.New("a field is missing")
	case *raw.Generation < 0:
		err = errors.New("the generation is negative")
	}
	if err != nil {
		return record{}, fmt.Errorf("%w: node id %d: reservation znode %s holds %.200q, not a record {\"reservedUntil\":R,\"generation\":G} (%v): neither read as reserved-until 0 nor overwritten",
			ErrCorrupt, n, p, b, err)
	}
	return record{Until: *raw.Until, Generation: *raw.Generation}, nil
}

// checkCount refuses a claim of count node ids among 0..maxNode that no
// range can hold, or that is larger than one claim takes.
func checkCount(count, maxNode int) error {
	if count < 1 || maxNode < 0 || count > maxNode+1 {
		return fmt.Errorf("%w: zklease: %d node ids asked for among 0..%d", snowlab.ErrInvalidNode, count, maxNode)
	}
	if count > MaxCount {
		return fmt.Errorf("%w: zklease: %d node ids asked for, one claim holds at most %d", snowlab.ErrInvalidNode, count, MaxCount)
	}
	return nil
}

// ensurePath creates p and its ancestors as persistent znodes where
// missing, in session.
func (s *Store) ensurePath(ctx context.Context, conn *zk.Conn, session int64, p string) error {
	for i := 1; i <= len(p); i++ {
		if i < len(p) && p[i] != '/' {
			continue
		}
		_, err := retry(ctx, s, conn, session, func() (string, error) { return conn.Create(p[:i], nil, zk.FlagPersistent, zk.WorldACL(zk.PermAll)) })
		if err != nil && !errors.Is(err, zk.ErrNodeExists) {
			return fmt.Errorf("zklease: create %s: %w", p[:i], err)
		}
	}
	return nil
}

// retryable reports whether err is the connection's failure, which says
// nothing of the session: a connection dropped with the call in flight
// (zk.ErrConnectionClosed: its answer is lost, and the call may or may
// not have been done), a call queued while the client had no connection
// and flushed when it began another round of the servers (zk.ErrNoServer:
// it was never sent), or the write of the request failing (a net.Error).
// The client drops a connection whose server has sent nothing for two
// thirds of the session timeout, its pings' answers included: 1.33 s for
// a 2 s session, which a loaded machine reaches (the Store suite's Zombie
// case failed 2 runs of 3 at load average 17-25 with "zk: connection
// closed"), and reconnects in the same session when the server still has
// it. Only the end of the session loses what it held.
func retryable(err error) bool {
	var ne net.Error
	if err == nil || errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) {
		return false
	}
	return errors.Is(err, zk.ErrConnectionClosed) || errors.Is(err, zk.ErrNoServer) || errors.As(err, &ne)
}

// errSessionEnded: the session a call was retried in ended (expired, or
// another replaced it) while the client reconnected, and what it held
// went with it.
var errSessionEnded = fmt.Errorf("zklease: the session ended while the client reconnected: %w", zk.ErrSessionExpired)

// reconnected waits, after a call on conn in session failed with err, the
// connection's error (retryable), until the client has the session again:
// nil, the call may be made again; errSessionEnded when the client has a
// session no more or another one; err, ctx's end added, when ctx ends
// first; err when the store was closed.
func (s *Store) reconnected(ctx context.Context, conn *zk.Conn, session int64, err error) error {
	for {
		if !sleep(ctx, 20*time.Millisecond) {
			return fmt.Errorf("%w (the connection was lost; retried until %w)", err, ctx.Err())
		}
		s.mu.Lock()
		closed := s.closed
		s.mu.Unlock()
		// The state first: the client sets the session's id before it
		// says it has a session, so a new session is never taken for
		// the old one.
		has := conn.State() == zk.StateHasSession
		switch {
		case closed:
			return err
		case conn.SessionID() != session:
			return errSessionEnded
		case has:
			return nil
		}
	}
}

// retry is call for a call that may be made again, such as a read: it
// makes it again while it fails with the connection's error and the
// client gets session back (see reconnected).
func retry[T any](ctx context.Context, s *Store, conn *zk.Conn, session int64, f func() (T, error)) (T, error) {
	for {
		v, err := call(ctx, f)
		if !retryable(err) || ctx.Err() != nil {
			return v, err
		}
		if err := s.reconnected(ctx, conn, session, err); err != nil {
			return v, err
		}
	}
}

// retry2 is retry for a call with two results.
func retry2[A, B any](ctx context.Context, s *Store, conn *zk.Conn, session int64, f func() (A, B, error)) (A, B, error) {
	type pair struct {
		a A
		b B
	}
	r, err := retry(ctx, s, conn, session, func() (pair, error) {
		a, b, err := f()
		return pair{a, b}, err
	})
	return r.a, r.b, err
}

// call runs f, a client call without a context, and returns when it does
// or when ctx ends. An abandoned call still runs to its end: abandoned, if
// not nil, gets what it returned.
func call[T any](ctx context.Context, f func() (T, error), abandoned ...func(T, error)) (T, error) {
	type result struct {
		v   T
		err error
	}
	ch := make(chan result, 1)
	gone := make(chan struct{})
	go func() {
		v, err := f()
		ch <- result{v, err}
		select {
		case <-gone:
			for _, a := range abandoned {
				a(v, err)
			}
		default:
		}
	}()
	select {
	case r := <-ch:
		return r.v, r.err
	case <-ctx.Done():
		close(gone)
		select {
		case r := <-ch: // it finished meanwhile
			return r.v, r.err
		default:
		}
		var zero T
		return zero, ctx.Err()
	}
}

func sleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}

// pickRange returns the first id of a range of count free ids among
// 0..maxNode, held marking the ids taken, or -1: the lowest after no
// conflict, after the k-th one a random one among the lowest 2^k, so that
// a fleet starting at once spreads out rather than all trying the next id.
func pickRange(held map[int]bool, count, maxNode, conflicts int) int {
	var free []int
	for first := 0; first+count-1 <= maxNode; first++ {
		ok := true
		for n := first; n < first+count; n++ {
			if held[n] {
				ok = false
				first = n // the next range to try starts past n
				break
			}
		}
		if ok {
			free = append(free, first)
			if len(free) >= 1<<min(conflicts, 10) {
				break
			}
		}
	}
	if len(free) == 0 {
		return -1
	}
	return free[rand.IntN(len(free))]
}

func hostname() string {
	h, err := os.Hostname()
	if err != nil {
		return "?"
	}
	return h
}

// checkPath accepts an absolute znode path that ZooKeeper can hold, so
// that a path it refuses is a spec that can never work (ErrInvalidSpec at
// start, exit 2), not a store that seems down and is retried for ever.
// The rules are the union of the client's (go-zookeeper's validatePath)
// and the server's (org.apache.zookeeper.common.PathUtils, 3.8), which
// refuse different ranges: no empty, "." or ".." component, no trailing
// slash; UTF-8 only, without the control characters U+0000..U+001F and
// U+007F..U+009F, the private use area U+E000..U+F8FF, U+FFF0..U+FFFF,
// or any character past U+FFFF (the server checks UTF-16 code units, and
// refuses every surrogate but one). The error quotes the path and the
// part at fault with %q, so a control character in it is escaped, never
// printed raw, and names the character at fault by its code point and
// offset, so that the message says what is wrong where a program masks
// the path (nodeid.Redact masks one with characters a secret could hide
// in). TestOneServer holds the ranges' edges to a real server.
func checkPath(p string) error {
	if !strings.HasPrefix(p, "/") || p == "/" {
		return fmt.Errorf("path %q: want /NAME[/NAME...]", p)
	}
	for i, part := range strings.Split(p[1:], "/") {
		if part == "" || part == "." || part == ".." {
			return fmt.Errorf("path %q: component %d is %q, not a znode name", p, i+1, part)
		}
	}
	for at, r := range p {
		switch {
		case r == utf8.RuneError && !strings.HasPrefix(p[at:], "\uFFFD"):
			return fmt.Errorf("path %q: byte %d is not UTF-8", p, at)
		case refusedRune(r):
			return fmt.Errorf("path %q: %U at byte %d, which ZooKeeper refuses in a znode name", p, r, at)
		}
	}
	return nil
}

// refusedRune reports whether ZooKeeper's client or server refuses r in a
// znode name (see checkPath).
func refusedRune(r rune) bool {
	return r <= 0x1f || (r >= 0x7f && r <= 0x9f) || (r >= 0xe000 && r <= 0xf8ff) || r >= 0xfff0
}
