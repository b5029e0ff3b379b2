package client_test

import (
	"context"
	"net"
	"net/http"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/snowlab/snowlab"
	"github.com/snowlab/snowlab/snowidd/client"
	"github.com/snowlab/snowlab/snowidd/internal/servertest"
)

// TestNewConn: a client whose connections are coalesced by NewConn mints
// over every protocol, one ID and a batch at a time.
func TestNewConn(t *testing.T) {
	url := servertest.Serve(t, servertest.Static(t, snowlab.Config{Node: 3}).Handler())
	var d net.Dialer
	var dials atomic.Int32
	var p http.Protocols
	p.SetUnencryptedHTTP2(true)
	hc := &http.Client{Transport: &http.Transport{Protocols: &p, DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
		dials.Add(1)
		c, err := d.DialContext(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		return client.NewConn(c), nil
	}}}
	t.Cleanup(hc.CloseIdleConnections)
	for _, proto := range []client.Protocol{client.GRPC, client.ConnectProto, client.ConnectJSON, client.GRPCWeb} {
		c, err := client.New(client.Config{Targets: []string{url}, Protocol: proto, HTTPClient: hc})
		require.NoError(t, err)
		id, err := c.NextID(t.Context())
		require.NoError(t, err, proto)
		ids, err := c.NextIDs(t.Context(), 50)
		require.NoError(t, err, proto)
		require.Len(t, ids, 50, proto)
		assert.Less(t, id, ids[0], "%v: one replica's IDs increase", proto)
		assert.Equal(t, 3, snowlab.DefaultLayout.Decode(ids[49]).Node, proto)
	}
	assert.NotZero(t, dials.Load(), "the calls went over the coalesced connections")
}
