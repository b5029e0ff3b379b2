package remote

import (
	"context"
	"crypto/tls"
	"fmt"
	"sync"

	"github.com/snowlab/snowlab"
	"github.com/snowlab/snowlab/lab/subject"
	"github.com/snowlab/snowlab/snowidd/client"
)

// Subject is the lab subject for the replica at base over protocol p:
// http://HOST:PORT in plaintext (tlsConfig nil), or https://HOST:PORT
// over TLS, checked and answered with tlsConfig: the CA to trust (RootCAs;
// nil is the system's) and, for a replica serving mutual TLS, the
// client's certificate. batch 0 calls NextID once per ID; above 0, Next
// takes IDs from a batch of that many fetched with NextIDs, each goroutine
// from batches of its own (subject.PerCaller), so that its IDs increase
// while the others' calls are in flight; Fill asks for what it needs in
// calls of at most client.MaxBatch. The replica must mint with layout (the
// zero Layout is the default) under the strict policy, for the lab's
// ceiling check to hold, and on one node id (OnNodes says how many
// otherwise).
func Subject(base string, p client.Protocol, batch int, layout snowlab.Layout, tlsConfig *tls.Config) (subject.Subject, error) {
	if batch < 0 || batch > client.MaxBatch {
		return subject.Subject{}, fmt.Errorf("remote: batch %d: want 0 (NextID) or 1 to %d", batch, client.MaxBatch)
	}
	l := layout.OrDefault()
	if err := l.Validate(); err != nil {
		return subject.Subject{}, err
	}
	r, err := dial(base, p, tlsConfig)
	if err != nil {
		return subject.Subject{}, err
	}
	s := subject.FromLayout(l)
	s.Name, s.Library = Name(p, batch), "github.com/snowlab/snowlab/snowidd"
	s.Strict, s.Order, s.Batch = true, subject.OrderCaller, true
	s.Note = "a snowidd replica over " + p.String() + ": every ID is a network round trip, or a share of one"
	// The instances share the client: its connections are the process's,
	// not the generator's state.
	s.New = func() (subject.Minter, error) { return &minter{caller: caller{r: r, batch: batch}, layout: l}, nil }
	return s, nil
}

// Name is the name of Subject(base, p, batch, …) in results, which is
// how a run's figures for it are found again.
func Name(p client.Protocol, batch int) string {
	if batch > 0 {
		return fmt.Sprintf("snowidd/%s/NextIDs(%d)", p, batch)
	}
	return fmt.Sprintf("snowidd/%s/NextID", p)
}

// OnNodes is s, a Subject, for a replica minting on n node ids (snowidd
// -shards n, a node-per-shard generator): its ceiling is n node ids', and
// a caller's IDs increase per node id only, since consecutive calls may be
// answered from different ones.
func OnNodes(s subject.Subject, n int) subject.Subject {
	if n > 1 {
		s.Nodes, s.Order = n, subject.OrderShard
	}
	return s
}

// minter is a subject.Minter, subject.Filler and subject.PerCaller over
// one replica: the run's instance. The workloads call NewCaller once per
// goroutine, so that each holds its own batch and G goroutines keep up to G
// NextIDs calls in flight; Next on the instance itself serves any number
// of goroutines through one shared batch (the caller it embeds, whose
// Fill is the instance's), one refill at a time.
type minter struct {
	mu sync.Mutex
	caller
	layout snowlab.Layout
}

// ShardOf is an ID's node id: a replica's shards are its node ids.
func (m *minter) ShardOf(id subject.ID) int { return m.layout.Decode(snowlab.ID(id.Lo)).Node }

func (m *minter) Next() (subject.ID, error) {
	if m.batch == 0 {
		return m.caller.Next() // no batch to share
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.caller.Next()
}

func (m *minter) NewCaller() subject.Minter { return &caller{r: m.r, batch: m.batch} }

// caller is one goroutine's minter: its IDs come from batches only it
// fetched, so they increase however the other goroutines' calls
// interleave with its own on the server.
type caller struct {
	r     *conn
	batch int
	buf   []snowlab.ID
}

func (k *caller) Next() (subject.ID, error) {
	if k.batch == 0 {
		id, err := k.r.nextID(context.Background())
		return subject.ID{Lo: id}, err
	}
	if len(k.buf) == 0 {
		ids, err := k.r.nextIDs(context.Background(), k.batch)
		if err != nil {
			return subject.ID{}, err
		}
		k.buf = ids
	}
	id := k.buf[0]
	k.buf = k.buf[1:]
	return subject.ID{Lo: uint64(id)}, nil
}

// Fill makes NextIDs calls of at most client.MaxBatch, in order, so that
// the IDs written increase; it leaves the batch Next takes from alone.
func (k *caller) Fill(dst []subject.ID) (int, error) {
	n := 0
	for n < len(dst) {
		ids, err := k.r.nextIDs(context.Background(), min(len(dst)-n, client.MaxBatch))
		if err != nil {
			return n, err
		}
		for _, id := range ids {
			dst[n] = subject.ID{Lo: uint64(id)}
			n++
		}
	}
	return n, nil
}
