package server_test

import (
	"crypto/tls"
	"fmt"
	"net"
	"sync/atomic"
	"testing"

	"connectrpc.com/connect"
	"github.com/stretchr/testify/require"

	"github.com/snowlab/snowlab"
	"github.com/snowlab/snowlab/snowidd/client"
	snowlabv1 "github.com/snowlab/snowlab/snowidd/gen/snowlab/v1"
	"github.com/snowlab/snowlab/snowidd/gen/snowlab/v1/snowlabv1connect"
	"github.com/snowlab/snowlab/snowidd/internal/servertest"
	"github.com/snowlab/snowlab/snowidd/server"
)

// The cost of a call through the whole stack in one process (client and
// server share the CPUs): for profiles. `loadgen service` measures a
// separate server process, on CPUs of its own.
func BenchmarkGRPC(b *testing.B) {
	r := newRig(b, rigOpts{})
	b.Run("NextID", func(b *testing.B) {
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				if _, err := r.grpc.NextID(ctx, connect.NewRequest(&snowlabv1.NextIDRequest{})); err != nil {
					b.Fatal(err)
				}
			}
		})
	})
	for _, n := range []uint32{1000, 10000} {
		b.Run(fmt.Sprintf("NextIDs/%d", n), func(b *testing.B) {
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					if _, err := r.grpc.NextIDs(ctx, connect.NewRequest(&snowlabv1.NextIDsRequest{Count: n})); err != nil {
						b.Fatal(err)
					}
				}
			})
			b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "IDs/s")
		})
	}
}

// The cost of a unary gRPC call over TLS, with the server's writes
// coalesced below TLS (Server.Listener, as snowidd serves) and without
// (tls.NewListener on the bare listener): each answer's HEADERS, DATA and
// trailers are TLS records, sent in one system call or in one each.
// writes/op counts the server's writes to its sockets.
func BenchmarkGRPCOverTLS(b *testing.B) {
	p := newPKI(b)
	rl, err := server.NewTLSReloader(server.TLSFiles{Cert: p.files.Cert, Key: p.files.Key}, nil)
	require.NoError(b, err)
	for _, tc := range []struct {
		name   string
		listen func(s *server.Server, ln net.Listener) net.Listener
	}{
		{"coalesced", func(s *server.Server, ln net.Listener) net.Listener {
			return s.Listener(ln, server.Limits{TLS: true}, rl.Config())
		}},
		{"uncoalesced", func(_ *server.Server, ln net.Listener) net.Listener { return tls.NewListener(ln, rl.Config()) }},
	} {
		b.Run(tc.name, func(b *testing.B) {
			srv := servertest.Static(b, snowlab.Config{Node: 1})
			hs, err := server.NewHTTPServer("", srv.Handler(), server.Limits{TLS: true})
			require.NoError(b, err)
			raw, err := net.Listen("tcp", "127.0.0.1:0")
			require.NoError(b, err)
			ln := &writeCounter{Listener: raw}
			go func() { _ = hs.Serve(tc.listen(srv, ln)) }()
			b.Cleanup(func() { _ = hs.Close() })
			c := snowlabv1connect.NewIDServiceClient(client.HTTPClient(p.client(b, false)), "https://"+ln.Addr().String(), connect.WithGRPC())
			_, err = c.NextID(ctx, connect.NewRequest(&snowlabv1.NextIDRequest{}))
			require.NoError(b, err)
			b.ResetTimer()
			before := ln.writes.Load()
			b.SetParallelism(8)
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					if _, err := c.NextID(ctx, connect.NewRequest(&snowlabv1.NextIDRequest{})); err != nil {
						b.Error(err)
						return
					}
				}
			})
			b.ReportMetric(float64(ln.writes.Load()-before)/float64(b.N), "writes/op")
		})
	}
}

// writeCounter counts the writes to its connections' sockets.
type writeCounter struct {
	net.Listener
	writes atomic.Int64
}

func (l *writeCounter) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return countedConn{c, &l.writes}, nil
}

type countedConn struct {
	net.Conn
	writes *atomic.Int64
}

func (c countedConn) Write(p []byte) (int, error) {
	c.writes.Add(1)
	return c.Conn.Write(p)
}
