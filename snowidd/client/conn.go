package client

import (
	"net"

	"github.com/snowlab/snowlab/snowidd/internal/coalesce"
)

// NewConn returns c with its writes coalesced as those of the server's
// connections are (server.NewListener): each Write is queued and a
// goroutine of the connection's own sends everything queued in one system
// call, so that the requests of every caller sharing a connection leave
// together instead of one system call per HTTP/2 frame. Use it in an
// http.Transport's DialContext when one client process drives a replica
// hard enough for its own writes to cap the rate, as the lab's load
// generator does. A write that fails is reported by the next Write, and
// Close sends what is queued first, for a bounded time.
func NewConn(c net.Conn) net.Conn { return coalesce.Conn(c) }
