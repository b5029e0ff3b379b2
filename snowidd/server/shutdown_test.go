package server_test

import (
	"context"
	"io"
	"net"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/snowlab/snowlab/snowidd/server"
)

// A connection that never began a request holds no call: Shutdown closes
// it at once instead of counting it busy until it is 5 s old, which made
// a drain shorter than that (the fault lab's -grace 2s) time out with no
// call in flight.
func TestShutdownClosesUnusedConns(t *testing.T) {
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
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	served := make(chan error, 1)
	go func() { served <- hs.Serve(ln) }()

	c, err := net.Dial("tcp", ln.Addr().String())
	require.NoError(t, err)
	defer c.Close()
	<-accepted // the server holds it, in StateNew

	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	require.NoError(t, hs.Shutdown(ctx), "an unused connection kept Shutdown waiting")
	require.ErrorIs(t, <-served, http.ErrServerClosed)
	require.NoError(t, c.SetReadDeadline(time.Now().Add(5*time.Second)))
	_, err = c.Read(make([]byte, 1))
	require.ErrorIs(t, err, io.EOF, "the server closed the unused connection")
}
