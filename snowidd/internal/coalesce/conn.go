package coalesce

import (
	"bufio"
	"errors"
	"net"
	"runtime"
	"sync"
	"time"
)

// readBufferSize holds a full default HTTP/2 frame (16 KiB) and its header.
const readBufferSize = 16<<10 + 9

// closeFlushTimeout bounds how long Close waits to send what is pending
// to a peer that does not read.
const closeFlushTimeout = time.Second

// maxPending bounds the bytes a connection holds unwritten: a Write past it
// waits for the writer, as a full socket buffer would.
const maxPending = 256 << 10

// keepBuffer is the largest write buffer a connection keeps for reuse:
// a big batch's buffer is left to the collector rather than held by an
// idle connection.
const keepBuffer = 64 << 10

// Listener returns ln with each accepted connection wrapped by Conn.
func Listener(ln net.Listener) net.Listener { return listener{ln} }

type listener struct{ net.Listener }

func (l listener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return Conn(c), nil
}

// Conn returns c read through a buffer and written by a goroutine of its
// own, which sends in one system call whatever was written while its last
// one was in flight.
func Conn(c net.Conn) net.Conn { return newConn(c) }

// conn is a net.Conn whose Write copies into a pending buffer that its
// writer goroutine sends. A write error is returned by the next Write (as
// a socket's is, for data the kernel had accepted) and closes the
// connection, since the stream is cut whatever comes next.
type conn struct {
	net.Conn
	r *bufio.Reader

	mu      sync.Mutex
	wake    sync.Cond // signalled on pending data, close, and a finished write
	pending []byte
	spare   []byte
	writing bool
	closed  bool
	err     error
}

func newConn(c net.Conn) *conn {
	w := &conn{Conn: c, r: bufio.NewReaderSize(c, readBufferSize)}
	w.wake.L = &w.mu
	go w.writeLoop()
	return w
}

func (c *conn) Read(p []byte) (int, error) { return c.r.Read(p) }

func (c *conn) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for len(c.pending) > 0 && len(c.pending)+len(p) > maxPending && c.err == nil && !c.closed {
		c.wake.Wait()
	}
	if c.err != nil {
		return 0, c.err
	}
	if c.closed {
		return 0, net.ErrClosed
	}
	c.pending = append(c.pending, p...)
	c.wake.Broadcast()
	return len(p), nil
}

func (c *conn) writeLoop() {
	c.mu.Lock()
	defer c.mu.Unlock()
	for {
		for len(c.pending) == 0 && !c.closed {
			c.wake.Wait()
		}
		if len(c.pending) == 0 { // closed, all sent
			return
		}
		// Let whatever else can run first: the goroutine that woke the
		// writer is often about to write again (an answer's data and
		// trailers follow its headers), and on one P the writer would
		// otherwise send each part alone.
		c.mu.Unlock()
		runtime.Gosched()
		c.mu.Lock()
		out := c.pending
		c.pending, c.spare = c.spare[:0], nil
		c.writing = true
		c.mu.Unlock()
		_, err := c.Conn.Write(out)
		c.mu.Lock()
		c.writing = false
		if cap(out) <= keepBuffer {
			c.spare = out[:0]
		}
		if err != nil {
			c.err = err
			c.pending = nil
			c.wake.Broadcast()
			_ = c.Conn.Close()
			return
		}
		c.wake.Broadcast()
	}
}

// flush waits until everything written has been sent or failed.
func (c *conn) flush() error {
	for (len(c.pending) > 0 || c.writing) && c.err == nil {
		c.wake.Wait()
	}
	return c.err
}

// Close sends what is pending (for closeFlushTimeout at most), then closes: a GOAWAY written just before Close still leaves.
func (c *conn) Close() error {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return net.ErrClosed
	}
	if len(c.pending) > 0 || c.writing {
		_ = c.Conn.SetWriteDeadline(time.Now().Add(closeFlushTimeout))
		_ = c.flush()
	}
	c.closed = true
	c.wake.Broadcast()
	c.mu.Unlock()
	return c.Conn.Close()
}

// CloseWrite sends what is pending, then shuts the write side, which an
// HTTP/1 server does before closing a connection it answered with an
// error.
func (c *conn) CloseWrite() error {
	c.mu.Lock()
	err := c.flush()
	c.mu.Unlock()
	if err != nil {
		return err
	}
	if cw, ok := c.Conn.(interface{ CloseWrite() error }); ok {
		return cw.CloseWrite()
	}
	return errors.ErrUnsupported
}
