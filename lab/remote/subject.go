package remote

import (
	"fmt"
	"sync"
	"time"

	"github.com/snowlab/snowlab"
	"github.com/snowlab/snowlab/lab/subject"
)

// MaxBatch is the most IDs one NextIDs call may ask for.
const MaxBatch = 100_000

// Subject is the lab subject for the replica at base (http://HOST:PORT)
// over protocol p. batch 0 calls NextID once per ID; above 0, Next takes
// IDs from a batch of that many fetched with NextIDs (one caller at a time
// refills it, so each goroutine still gets increasing IDs), and Fill asks
// for what it needs in calls of at most MaxBatch. The replica must mint
// with layout (the zero Layout is the default) on one node id, under the
// strict policy, for the lab's ceiling check to hold.
func Subject(base string, p Protocol, batch int, layout snowlab.Layout) (subject.Subject, error) {
	if batch < 0 || batch > MaxBatch {
		return subject.Subject{}, fmt.Errorf("remote: batch %d: want 0 (NextID) or 1 to %d", batch, MaxBatch)
	}
	l := layout.OrDefault()
	if err := l.Validate(); err != nil {
		return subject.Subject{}, err
	}
	c, err := newConn(base, p)
	if err != nil {
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
		// The instances share the connection: it is the client's, not
		// the generator's state.
		New: func() (subject.Minter, error) { return &minter{c: c, batch: batch}, nil },
	}, nil
}

// minter is a subject.Minter and subject.Filler over one replica.
type minter struct {
	c     *conn
	batch int

	mu  sync.Mutex
	buf []uint64
}

func (m *minter) Next() (subject.ID, error) {
	if m.batch == 0 {
		id, err := m.c.nextID()
		return subject.ID{Lo: id}, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if len(m.buf) == 0 {
		ids, err := m.c.nextIDs(m.batch)
		if err != nil {
			return subject.ID{}, err
		}
		m.buf = ids
	}
	id := m.buf[0]
	m.buf = m.buf[1:]
	return subject.ID{Lo: id}, nil
}

func (m *minter) Fill(dst []subject.ID) (int, error) {
	n := 0
	for n < len(dst) {
		ids, err := m.c.nextIDs(min(len(dst)-n, MaxBatch))
		if err != nil {
			return n, err
		}
		for _, id := range ids {
			dst[n] = subject.ID{Lo: id}
			n++
		}
	}
	return n, nil
}
