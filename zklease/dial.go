package zklease

import (
	"encoding/binary"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-zookeeper/zk"
)

// attemptBound is how long one attempt at a session on one server may
// take, from its dial to the end of the server's answer to the connect
// request: the reach timeout shared among the servers, and no more than
// the session timeout shared among them, ZooKeeper's Java client's rule
// (its connect timeout is the session timeout over the number of
// servers), so that a session reconnecting after a server failed is not
// lost trying the others.
//
// go-zookeeper v1.0.4 bounds the dial alone (1 s) and then waits for the
// answer for ten times its read timeout, 66.7 s for a 10 s session: a
// server that accepts TCP and never answers (a hung JVM, a proxy in front
// of a dead one, a black-holed port forward) held the client that long
// before it tried the next listed server, so a store listing one such
// server beside a healthy one was unreachable (ErrUnreachable after
// ReachTimeout) whenever the client drew the bad one first. With n
// servers the bound is at most ReachTimeout/n (1.67 s for three), so the
// client reaches a healthy server within ReachTimeout however many
// unresponsive ones it tries first.
func attemptBound(servers int, session time.Duration) time.Duration {
	n := time.Duration(max(servers, 1))
	return min(ReachTimeout/n, session/n)
}

// boundedDialer is dial, each connection's session handshake bounded to
// bound from the dial on (see attemptBound): the client's own deadlines on
// the connection are held to that end until the server's answer to the
// connect request has been read, and are the client's own after it.
func boundedDialer(dial zk.Dialer, bound time.Duration) zk.Dialer {
	return func(network, address string, timeout time.Duration) (net.Conn, error) {
		end := time.Now().Add(bound)
		c, err := dial(network, address, min(timeout, bound))
		if err != nil {
			return nil, err
		}
		return newHandshakeConn(c, end)
	}
}

// handshakeConn is a connection whose deadlines are no later than end
// until the server's connect response is read: a 4-byte big-endian length
// and that many bytes, the first thing a ZooKeeper server sends.
type handshakeConn struct {
	net.Conn
	end  time.Time
	done atomic.Bool // the connect response is read: deadlines are the client's

	mu          sync.Mutex
	got         int64   // bytes of the response read so far
	hdr         [4]byte // its length
	read, write time.Time
}

func newHandshakeConn(c net.Conn, end time.Time) (*handshakeConn, error) {
	if err := c.SetDeadline(end); err != nil {
		c.Close()
		return nil, err
	}
	return &handshakeConn{Conn: c, end: end}, nil
}

// Read reads from the connection, and counts what it read until the
// connect response is in.
func (c *handshakeConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	if n > 0 && !c.done.Load() {
		c.mu.Lock()
		defer c.mu.Unlock()
		if c.counted(p[:n]) {
			// The client's own deadlines from now on: a session's
			// reads wait for as long as its read timeout.
			if err := c.Conn.SetReadDeadline(c.read); err != nil {
				return n, err
			}
			if err := c.Conn.SetWriteDeadline(c.write); err != nil {
				return n, err
			}
		}
	}
	return n, err
}

// counted adds b to the response read so far and reports whether it is
// now read whole. Under mu.
func (c *handshakeConn) counted(b []byte) bool {
	if c.got < 4 {
		copy(c.hdr[c.got:], b)
	}
	c.got += int64(len(b))
	if c.got < 4 || c.got < 4+int64(binary.BigEndian.Uint32(c.hdr[:])) {
		return false
	}
	c.done.Store(true)
	return true
}

// bounded is t, or end when the handshake is not done and t is later
// than end or none. Under mu.
func (c *handshakeConn) bounded(t time.Time) time.Time {
	if c.done.Load() || (!t.IsZero() && t.Before(c.end)) {
		return t
	}
	return c.end
}

func (c *handshakeConn) SetDeadline(t time.Time) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.read, c.write = t, t
	return c.Conn.SetDeadline(c.bounded(t))
}

func (c *handshakeConn) SetReadDeadline(t time.Time) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.read = t
	return c.Conn.SetReadDeadline(c.bounded(t))
}

func (c *handshakeConn) SetWriteDeadline(t time.Time) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.write = t
	return c.Conn.SetWriteDeadline(c.bounded(t))
}
