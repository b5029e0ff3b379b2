package server

import (
	"net"

	"github.com/snowlab/snowlab/snowidd/internal/coalesce"
)

// NewListener returns ln with each accepted connection read through a
// buffer and written by a goroutine of its own, so that the answers of
// every call finished while a write is in flight leave in the next one:
// Go's HTTP/2 server otherwise writes each frame of a unary gRPC answer in
// its own system call. Serve the HTTP server of NewHTTPServer on it, or
// on Server.Listener, which adds a connection limit and TLS.
func NewListener(ln net.Listener) net.Listener { return coalesce.Listener(ln) }
