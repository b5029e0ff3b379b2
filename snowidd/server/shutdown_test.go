package server_test

import (
	"context"
	"io"
	"net"
	"net/http"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/snowlab/snowlab/snowidd/server"
)

// A connection that never began a request holds no call: Shutdown closes
// it at once instead of counting it busy until it is 5 s old, which made
// a drain shorter than that (the fault lab's -grace 2s) time out with no
// call in flight.
//
// In a synctest bubble, on in-memory connections: Shutdown's 2 s and the
// 5 s after which net/http gives up on a new connection are both on the
// bubble's clock, so that the check means the same on a loaded machine.
// (On loopback and the real clock, "Shutdown returns within 2 s" was the
// premise before.)
func TestShutdownClosesUnusedConns(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		hs, err := server.NewHTTPServer("", http.NotFoundHandler(), server.Limits{})
		require.NoError(t, err)
		accepted := make(chan struct{}, 1)
		track := hs.ConnState
		hs.ConnState = func(c net.Conn, st http.ConnState) {
			track(c, st)
			if st == http.StateNew {
				accepted <- struct{}{}
			}
		}
		ln := newPipeListener()
		served := make(chan error, 1)
		go func() { served <- hs.Serve(ln) }()

		c := ln.dial()
		defer c.Close()
		<-accepted // the server holds it, in StateNew

		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		start := time.Now()
		require.NoError(t, hs.Shutdown(ctx), "an unused connection kept Shutdown waiting (%v of the bubble's clock)", time.Since(start))
		require.ErrorIs(t, <-served, http.ErrServerClosed)
		_, err = c.Read(make([]byte, 1))
		require.ErrorIs(t, err, io.EOF, "the server closed the unused connection")
	})
}

// pipeListener hands a server the server's ends of net.Pipe connections
// that dial makes: in memory, so that a synctest bubble's goroutines
// block on them durably, as they never do on a socket.
type pipeListener struct {
	conns  chan net.Conn
	closed chan struct{}
	once   sync.Once
}

func newPipeListener() *pipeListener {
	return &pipeListener{conns: make(chan net.Conn), closed: make(chan struct{})}
}

// dial connects to the listener and returns the client's end.
func (l *pipeListener) dial() net.Conn {
	client, srv := net.Pipe()
	l.conns <- srv
	return client
}

func (l *pipeListener) Accept() (net.Conn, error) {
	select {
	case c := <-l.conns:
		return c, nil
	case <-l.closed:
		return nil, net.ErrClosed
	}
}

func (l *pipeListener) Close() error {
	l.once.Do(func() { close(l.closed) })
	return nil
}

func (l *pipeListener) Addr() net.Addr { return pipeAddr{} }

type pipeAddr struct{}

func (pipeAddr) Network() string { return "pipe" }
func (pipeAddr) String() string  { return "pipe" }
