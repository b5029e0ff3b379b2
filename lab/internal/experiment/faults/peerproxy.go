package faults

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"net"
	"net/textproto"
	"sync"
	"time"
)

// peerProxy stands between etcd members: each member's peer URL, as the
// others dial it, is a listener here that forwards to the member. Cutting
// a member off takes more than refusing the connections others make to
// it: etcd's raft transport sends a member's messages over streams its
// peers open to it and over requests it posts to them, so a member whose
// listener is cut still reaches the others. The proxy therefore reads
// the header that every raft stream and post carries, X-Server-From (the
// sending member's id), and a partitioned member's connections are closed
// and refused both ways: to it, and from it to any other. Connections
// without the header (probes of a peer's health) pass, except to a
// partitioned member.
type peerProxy struct {
	mu     sync.Mutex
	lns    []net.Listener
	ids    map[string]int // member id (hex) -> index
	cut    map[int]bool
	conns  map[*peerConn]struct{}
	closed bool
}

// peerConn is one proxied connection: from the member named in its first
// request (-1: none), to a member.
type peerConn struct {
	from, to         int
	client, upstream net.Conn
}

// newPeerProxy returns a proxy with no members yet.
func newPeerProxy() *peerProxy {
	return &peerProxy{ids: map[string]int{}, cut: map[int]bool{}, conns: map[*peerConn]struct{}{}}
}

// Add listens on a free loopback port for member i's peers and forwards
// to upstream (HOST:PORT); it returns the listening address.
func (p *peerProxy) Add(i int, upstream string) (string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", fmt.Errorf("faults: peer proxy: %w", err)
	}
	p.mu.Lock()
	p.lns = append(p.lns, ln)
	p.mu.Unlock()
	go func() {
		for {
			client, err := ln.Accept()
			if err != nil {
				return
			}
			go p.serve(i, client, upstream)
		}
	}()
	return ln.Addr().String(), nil
}

// Name tells the proxy member i's id (hex), as its X-Server-From says it.
func (p *peerProxy) Name(i int, id string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.ids[id] = i
}

// Partition cuts member i off from every other: its peer connections
// close, and new ones to or from it are refused until Heal.
func (p *peerProxy) Partition(i int) {
	p.mu.Lock()
	p.cut[i] = true
	var doomed []*peerConn
	for c := range p.conns {
		if c.from == i || c.to == i {
			doomed = append(doomed, c)
		}
	}
	p.mu.Unlock()
	for _, c := range doomed {
		c.close()
	}
}

// Heal ends member i's partition.
func (p *peerProxy) Heal(i int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	delete(p.cut, i)
}

// Close stops every listener and connection.
func (p *peerProxy) Close() {
	p.mu.Lock()
	p.closed = true
	for _, ln := range p.lns {
		_ = ln.Close()
	}
	conns := p.conns
	p.conns = map[*peerConn]struct{}{}
	p.mu.Unlock()
	for c := range conns {
		c.close()
	}
}

// maxPeerHeader bounds what is read to find X-Server-From.
const maxPeerHeader = 64 << 10

// serve reads the connection's first request header, then forwards it
// and everything after, both ways, unless a partition forbids.
func (p *peerProxy) serve(to int, client net.Conn, upstream string) {
	_ = client.SetReadDeadline(time.Now().Add(10 * time.Second))
	br := bufio.NewReaderSize(client, 4096)
	var head bytes.Buffer
	tp := textproto.NewReader(bufio.NewReader(io.TeeReader(io.LimitReader(br, maxPeerHeader), &head)))
	var hdr textproto.MIMEHeader
	var up net.Conn
	_, err := tp.ReadLine() // the request line
	if err == nil {
		hdr, err = tp.ReadMIMEHeader()
	}
	if err == nil {
		up, err = net.DialTimeout("tcp", upstream, 5*time.Second)
	}
	if err != nil {
		client.Close()
		return
	}
	_ = client.SetReadDeadline(time.Time{})
	p.mu.Lock()
	from := -1
	if i, ok := p.ids[hdr.Get("X-Server-From")]; ok {
		from = i
	}
	c := &peerConn{from: from, to: to, client: client, upstream: up}
	// Refused: closed before a byte reaches the member.
	if p.closed || p.cut[to] || (from >= 0 && p.cut[from]) {
		p.mu.Unlock()
		c.close()
		return
	}
	p.conns[c] = struct{}{}
	p.mu.Unlock()
	defer func() {
		p.mu.Lock()
		delete(p.conns, c)
		p.mu.Unlock()
		c.close()
	}()
	// head holds every byte read from the client so far: the header and
	// whatever the header's reader buffered past it. Send it, then the
	// rest.
	if _, err := up.Write(head.Bytes()); err != nil {
		return
	}
	done := make(chan struct{}, 2)
	go func() { _, _ = io.Copy(up, br); done <- struct{}{} }()
	go func() { _, _ = io.Copy(client, up); done <- struct{}{} }()
	<-done
}

func (c *peerConn) close() {
	_ = c.client.Close()
	_ = c.upstream.Close()
}
