package client

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/snowlab/snowlab"
)

// BufferConfig shapes a Buffer. The zero value is usable.
type BufferConfig struct {
	// Batch is how many IDs one fetch asks for, 1..MaxBatch; 0 is 1,000.
	// The next batch is fetched in the background once half of the
	// current one is handed out.
	Batch int
	// MaxAge bounds how long after its fetch was sent an ID may be handed
	// out: older ones are dropped. 0 is one second.
	MaxAge time.Duration
	// Now is the clock ages are measured on; nil is time.Now.
	Now func() time.Time
	// FetchTimeout bounds one background fetch; 0 is 10 s.
	FetchTimeout time.Duration
}

// Buffer hands out IDs from prefetched batches (see the package
// documentation for what that costs in time order). It is safe for
// concurrent use.
type Buffer struct {
	c   *Client
	cfg BufferConfig

	mu      sync.Mutex
	cur     []snowlab.ID
	curAt   time.Time // when the fetch of cur was sent
	fetch   *fetch    // in flight, or done and not yet taken
	dropped uint64
	fetches uint64
}

type fetch struct {
	done chan struct{}
	at   time.Time
	ids  []snowlab.ID
	err  error
}

// NewBuffer returns a Buffer that fetches from c.
func (c *Client) NewBuffer(cfg BufferConfig) (*Buffer, error) {
	switch {
	case cfg.Batch < 0 || cfg.Batch > MaxBatch:
		return nil, fmt.Errorf("snowidd client: buffer batch %d: want 1..%d", cfg.Batch, MaxBatch)
	case cfg.MaxAge < 0:
		return nil, fmt.Errorf("snowidd client: buffer max age %v is negative", cfg.MaxAge)
	case cfg.FetchTimeout < 0:
		return nil, fmt.Errorf("snowidd client: buffer fetch timeout %v is negative", cfg.FetchTimeout)
	}
	if cfg.Batch == 0 {
		cfg.Batch = 1000
	}
	if cfg.MaxAge == 0 {
		cfg.MaxAge = time.Second
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.FetchTimeout == 0 {
		cfg.FetchTimeout = 10 * time.Second
	}
	return &Buffer{c: c, cfg: cfg}, nil
}

// start sends a fetch; b.mu is held.
func (b *Buffer) start() *fetch {
	f := &fetch{done: make(chan struct{}), at: b.cfg.Now()}
	b.fetch = f
	b.fetches++
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), b.cfg.FetchTimeout)
		f.ids, f.err = b.c.NextIDs(ctx, b.cfg.Batch)
		cancel()
		close(f.done)
	}()
	return f
}

// Next returns the next buffered ID, fetching a batch when none is left.
func (b *Buffer) Next(ctx context.Context) (snowlab.ID, error) {
	b.mu.Lock()
	for {
		if len(b.cur) > 0 && b.cfg.Now().Sub(b.curAt) > b.cfg.MaxAge {
			b.dropped += uint64(len(b.cur))
			b.cur = nil
		}
		if len(b.cur) > 0 {
			id := b.cur[0]
			b.cur = b.cur[1:]
			if len(b.cur) <= b.cfg.Batch/2 && b.fetch == nil {
				b.start()
			}
			b.mu.Unlock()
			return id, nil
		}
		f := b.fetch
		if f == nil {
			f = b.start()
		}
		b.mu.Unlock()
		select {
		case <-f.done:
		case <-ctx.Done():
			return 0, ctx.Err()
		}
		b.mu.Lock()
		if b.fetch == f { // not taken by another caller meanwhile
			b.fetch = nil
			if f.err != nil {
				b.mu.Unlock()
				return 0, f.err
			}
			b.cur, b.curAt = f.ids, f.at
		}
	}
}

// BufferStats counts a Buffer's fetches and the IDs it dropped for age.
type BufferStats struct {
	Fetches uint64
	Dropped uint64
}

// Stats reports the fetches sent and the IDs dropped so far.
func (b *Buffer) Stats() BufferStats {
	b.mu.Lock()
	defer b.mu.Unlock()
	return BufferStats{Fetches: b.fetches, Dropped: b.dropped}
}
