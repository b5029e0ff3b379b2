package server

import (
	"net"
	"net/http"
	"sync"
)

// newUnusedConns returns an empty tracker.
func newUnusedConns() *unusedConns {
	return &unusedConns{conns: make(map[net.Conn]struct{})}
}

// unusedConns tracks the connections an http.Server has accepted that
// have not yet begun a request (http.StateNew), so that Shutdown can
// close them at once.
//
// http.Server.Shutdown counts a connection in StateNew as busy until it
// is 5 seconds old, since a request may be on its way. A client's
// transport often leaves such connections behind (it dials for a call,
// the call takes another connection that came free first, and the new
// one waits in its pool), so under a drain shorter than 5 s one fresh,
// unused connection made Shutdown time out with no call in flight. On
// Shutdown the server refuses every new call anyway, so closing them
// loses no call: a client's next call goes to another replica.
type unusedConns struct {
	mu    sync.Mutex
	conns map[net.Conn]struct{}
}

// track is the http.Server's ConnState hook.
func (u *unusedConns) track(c net.Conn, st http.ConnState) {
	u.mu.Lock()
	defer u.mu.Unlock()
	if st == http.StateNew {
		u.conns[c] = struct{}{}
		return
	}
	delete(u.conns, c)
}

// closeAll closes every connection not yet used; the http.Server calls it
// when Shutdown begins (RegisterOnShutdown).
func (u *unusedConns) closeAll() {
	u.mu.Lock()
	defer u.mu.Unlock()
	for c := range u.conns {
		_ = c.Close()
		delete(u.conns, c)
	}
}
