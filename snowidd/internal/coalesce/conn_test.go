package coalesce

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/snowlab/snowlab/snowidd/internal/testend"
)

// gatedConn is a net.Conn whose writes wait for the test to let each one
// through, recording what each system call would have sent.
type gatedConn struct {
	net.Conn // nil: only the methods below are called

	mu             sync.Mutex
	writes         [][]byte
	closed         bool
	inWrite        bool
	closedMidWrite bool // Close came while a write was in flight
	deadline       time.Time
	failWith       error

	entered chan struct{} // a write started
	release chan struct{} // let one write finish
	expired chan struct{} // the write deadline passed
	dated   chan struct{} // a write deadline was set
}

func newGatedConn() *gatedConn {
	return &gatedConn{entered: make(chan struct{}, 64), release: make(chan struct{}, 64), expired: make(chan struct{}, 1), dated: make(chan struct{}, 1)}
}

func (g *gatedConn) Write(p []byte) (int, error) {
	g.mu.Lock()
	g.inWrite = true
	g.mu.Unlock()
	g.entered <- struct{}{}
	var err error
	select {
	case <-g.release:
	case <-g.expired:
		err = os.ErrDeadlineExceeded
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	g.inWrite = false
	if err != nil {
		return 0, err
	}
	if g.failWith != nil {
		return 0, g.failWith
	}
	if g.closed {
		return 0, net.ErrClosed
	}
	g.writes = append(g.writes, bytes.Clone(p))
	return len(p), nil
}

func (g *gatedConn) Close() error {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.closed = true
	g.closedMidWrite = g.closedMidWrite || g.inWrite
	return nil
}

func (g *gatedConn) SetWriteDeadline(t time.Time) error {
	g.mu.Lock()
	g.deadline = t
	g.mu.Unlock()
	time.AfterFunc(time.Until(t), func() { g.expired <- struct{}{} })
	g.dated <- struct{}{}
	return nil
}

func (g *gatedConn) Read([]byte) (int, error) { return 0, io.EOF }

func (g *gatedConn) sent() []string {
	g.mu.Lock()
	defer g.mu.Unlock()
	var out []string
	for _, w := range g.writes {
		out = append(out, string(w))
	}
	return out
}

// waitFor fails the test, naming what, instead of hanging when ch stays
// silent to the test's end (testend; a fixed 10 s was the bound before,
// a figure a loaded machine need not keep).
func waitFor(t *testing.T, ch <-chan struct{}, what string) {
	t.Helper()
	select {
	case <-ch:
	case <-testend.Context(t).Done():
		require.FailNow(t, what+": never, by the test's end")
	}
}

// TestConnCoalescesWritesMadeWhileOneIsInFlight: the writes made while
// the system call of an earlier one is in flight leave together, in
// order, in the next one.
func TestConnCoalescesWritesMadeWhileOneIsInFlight(t *testing.T) {
	g := newGatedConn()
	c := newConn(g)
	_, err := c.Write([]byte("headers|"))
	require.NoError(t, err)
	waitFor(t, g.entered, "the first write")
	for _, s := range []string{"data|", "trailers|", "headers2|"} {
		n, err := c.Write([]byte(s))
		require.NoError(t, err)
		assert.Equal(t, len(s), n)
	}
	g.release <- struct{}{}
	waitFor(t, g.entered, "the second write")
	g.release <- struct{}{}
	c.mu.Lock()
	require.NoError(t, c.flush())
	c.mu.Unlock()
	assert.Equal(t, []string{"headers|", "data|trailers|headers2|"}, g.sent())
}

// TestConnWriteErrorIsReturnedAndCloses: a failed system call fails the
// next Write with its error and closes the connection, since what follows
// would be a cut stream.
func TestConnWriteErrorIsReturnedAndCloses(t *testing.T) {
	g := newGatedConn()
	reset := errors.New("connection reset by peer")
	g.failWith = reset
	c := newConn(g)
	_, err := c.Write([]byte("lost"))
	require.NoError(t, err, "the first write is buffered, as a socket's is")
	waitFor(t, g.entered, "the write")
	g.release <- struct{}{}
	c.mu.Lock()
	assert.ErrorIs(t, c.flush(), reset)
	c.mu.Unlock()
	_, err = c.Write([]byte("next"))
	assert.ErrorIs(t, err, reset)
	g.mu.Lock()
	assert.True(t, g.closed, "the connection is closed after a failed write")
	g.mu.Unlock()
}

// TestConnCloseSendsPending: what was written before Close leaves before
// the connection closes (a GOAWAY, the last answer).
func TestConnCloseSendsPending(t *testing.T) {
	g := newGatedConn()
	c := newConn(g)
	_, _ = c.Write([]byte("answer|"))
	waitFor(t, g.entered, "the first write")
	_, _ = c.Write([]byte("goaway"))
	closed := make(chan struct{})
	go func() { _ = c.Close(); close(closed) }()
	waitFor(t, g.dated, "Close to bound its wait")
	g.release <- struct{}{}
	waitFor(t, g.entered, "the pending write")
	g.release <- struct{}{}
	waitFor(t, closed, "Close")
	assert.Equal(t, []string{"answer|", "goaway"}, g.sent())
	g.mu.Lock()
	assert.False(t, g.closedMidWrite, "Close closed the connection under a write in flight")
	g.mu.Unlock()
	_, err := c.Write([]byte("late"))
	assert.ErrorIs(t, err, net.ErrClosed)
	assert.ErrorIs(t, c.Close(), net.ErrClosed)
}

// TestConnCloseIsBoundedByAPeerThatDoesNotRead: Close sets a write
// deadline rather than wait for ever on a peer that stopped reading.
func TestConnCloseIsBoundedByAPeerThatDoesNotRead(t *testing.T) {
	g := newGatedConn()
	c := newConn(g)
	_, _ = c.Write([]byte("stuck"))
	waitFor(t, g.entered, "the write")
	closed := make(chan struct{})
	go func() { _ = c.Close(); close(closed) }()
	waitFor(t, closed, "Close") // at the deadline Close set, closeFlushTimeout away
	g.mu.Lock()
	defer g.mu.Unlock()
	assert.False(t, g.deadline.IsZero(), "Close set a write deadline")
	assert.True(t, g.closed)
}

// TestConnOverTCP: many writers over a real connection, each write
// arriving whole and each writer's in order; reads come through the
// buffer, a read deadline's timeout is returned once, and CloseWrite
// sends what is pending before the peer's EOF.
func TestConnOverTCP(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	t.Cleanup(func() { _ = ln.Close() })
	wrapped := Listener(ln)
	peerDone := make(chan []byte, 1)
	var peer net.Conn
	go func() {
		c, err := net.Dial("tcp", ln.Addr().String())
		if err != nil {
			peerDone <- nil
			return
		}
		peer = c
		_, _ = c.Write([]byte("request"))
		b, _ := io.ReadAll(c) // until CloseWrite
		peerDone <- b
	}()
	c, err := wrapped.Accept()
	require.NoError(t, err)
	t.Cleanup(func() { _ = c.Close() })

	buf := make([]byte, 7)
	_, err = io.ReadFull(c, buf)
	require.NoError(t, err)
	assert.Equal(t, "request", string(buf))
	require.NoError(t, c.SetReadDeadline(time.Now().Add(-time.Second)))
	_, err = c.Read(buf)
	assert.ErrorIs(t, err, os.ErrDeadlineExceeded)
	require.NoError(t, c.SetReadDeadline(time.Time{}))

	const writers, each = 8, 500
	var wg sync.WaitGroup
	for w := range writers {
		wg.Go(func() {
			for i := range each {
				_, err := fmt.Fprintf(c, "<%d:%d>", w, i)
				assert.NoError(t, err)
			}
		})
	}
	wg.Wait()
	require.NoError(t, c.(interface{ CloseWrite() error }).CloseWrite())
	var got []byte
	select {
	case got = <-peerDone:
	case <-testend.Context(t).Done():
		require.FailNow(t, "the peer saw no EOF after CloseWrite, by the test's end")
	}
	require.NotNil(t, peer)
	_ = peer.Close()
	next := make([]int, writers)
	for _, rec := range bytes.Split(bytes.Trim(got, "<>"), []byte("><")) {
		var w, i int
		_, err := fmt.Sscanf(string(rec), "%d:%d", &w, &i)
		require.NoError(t, err, "record %q is not whole", rec)
		require.Equal(t, next[w], i, "writer %d's writes out of order", w)
		next[w]++
	}
	for w := range writers {
		assert.Equal(t, each, next[w], "writer %d", w)
	}
}

// TestConnWriteLargerThanTheBound: a write bigger than maxPending goes
// through rather than waiting for room that can never be.
func TestConnWriteLargerThanTheBound(t *testing.T) {
	g := newGatedConn()
	c := newConn(g)
	big := bytes.Repeat([]byte{'x'}, 2*maxPending)
	done := make(chan struct{})
	go func() {
		_, err := c.Write(big)
		assert.NoError(t, err)
		_, err = c.Write(big) // taken while the first is in flight
		assert.NoError(t, err)
		close(done)
	}()
	waitFor(t, g.entered, "the first write")
	g.release <- struct{}{}
	waitFor(t, done, "the second Write to be taken")
	waitFor(t, g.entered, "the second write")
	g.release <- struct{}{}
	c.mu.Lock()
	require.NoError(t, c.flush())
	c.mu.Unlock()
	sent := g.sent()
	require.Len(t, sent, 2)
	assert.Len(t, sent[0], 2*maxPending)
	assert.Len(t, sent[1], 2*maxPending)
}
