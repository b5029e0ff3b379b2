// Package labsubject puts a snowidd replica into the performance lab: a
// lab subject whose minter calls the service over one protocol, one ID per
// call or in batches, so that the lab's own loops and checks (uniqueness,
// order, the per-node ceiling) measure the service beside the in-process
// generators.
//
// It lives in the snowidd module, not in the lab: the lab is in the root
// module, which must not gain an RPC stack for library users to resolve.
package labsubject

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/snowlab/snowlab"
	"github.com/snowlab/snowlab/lab/subject"
	"github.com/snowlab/snowlab/snowidd/client"
)

// Remote is the subject for the replica at url over protocol p. batch 0
// calls NextID once per ID; above 0, Next takes IDs from a batch of that
// many fetched with NextIDs (one caller at a time refills it, so each
// goroutine still gets increasing IDs), and Fill asks for what it needs in
// calls of at most client.MaxBatch. The replica must mint with layout (the
// zero Layout is the default) on one node id, under the strict policy, for
// the lab's ceiling check to hold.
func Remote(url string, p client.Protocol, batch int, layout snowlab.Layout) (subject.Subject, error) {
	if batch < 0 || batch > client.MaxBatch {
		return subject.Subject{}, fmt.Errorf("labsubject: batch %d: want 0 (NextID) or 1..%d", batch, client.MaxBatch)
	}
	l := layout.OrDefault()
	if err := l.Validate(); err != nil {
		return subject.Subject{}, err
	}
	name := fmt.Sprintf("snowidd/%s/NextID", p)
	if batch > 0 {
		name = fmt.Sprintf("snowidd/%s/NextIDs(%d)", p, batch)
	}
	return subject.Subject{
		Name: name, Library: "github.com/snowlab/snowlab/snowidd",
		Strict: true, Order: subject.OrderCaller,
		Nodes: 1, PerTick: l.MaxSeq() + 1, Tick: l.Unit,
		Decode: func(id subject.ID) (time.Time, int) {
			parts := l.Decode(snowlab.ID(id.Lo))
			return parts.Time, parts.Node
		},
		Batch: true,
		Note:  "a snowidd replica over " + p.String() + ": every ID is a network round trip, or a share of one",
		New: func() (subject.Minter, error) {
			c, err := client.New(client.Config{Targets: []string{url}, Protocol: p, Rounds: 1})
			if err != nil {
				return nil, err
			}
			return &minter{c: c, batch: batch}, nil
		},
	}, nil
}

// minter is a subject.Minter and subject.Filler over a client.
type minter struct {
	c     *client.Client
	batch int

	mu  sync.Mutex
	buf []snowlab.ID
}

func (m *minter) Next() (subject.ID, error) {
	ctx := context.Background()
	if m.batch == 0 {
		id, err := m.c.NextID(ctx)
		return subject.ID{Lo: uint64(id)}, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if len(m.buf) == 0 {
		ids, err := m.c.NextIDs(ctx, m.batch)
		if err != nil {
			return subject.ID{}, err
		}
		m.buf = ids
	}
	id := m.buf[0]
	m.buf = m.buf[1:]
	return subject.ID{Lo: uint64(id)}, nil
}

func (m *minter) Fill(dst []subject.ID) (int, error) {
	n := 0
	for n < len(dst) {
		ids, err := m.c.NextIDs(context.Background(), min(len(dst)-n, client.MaxBatch))
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
