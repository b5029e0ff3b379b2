// Package mutexgen is the baseline generator: one sync.Mutex around the last
// tick and the sequence, the way the common Snowflake implementations guard
// their state.
//
// It keeps the same semantics as atomicgen and passes the same conformance
// suite; it exists so the lab can measure what the lock costs. Its waits
// (a spent sequence, a small rewind) are taken holding the lock, as in the
// reference, so every other caller waits behind them.
package mutexgen

import (
	"sync"

	"github.com/snowlab/snowlab"
	"github.com/snowlab/snowlab/internal/engine"
)

// Generator is a mutex-guarded generator. It is safe for concurrent use.
type Generator struct {
	mu    sync.Mutex
	cell  engine.LockedCell
	rules *engine.Rules
}

var _ snowlab.Generator = (*Generator)(nil)

// New returns a generator for cfg, or the configuration's error
// (ErrInvalidLayout, ErrInvalidNode, ...).
func New(cfg snowlab.Config) (*Generator, error) {
	r, err := engine.Prepare(cfg, 1)
	if err != nil {
		return nil, err
	}
	g := &Generator{rules: r}
	g.cell.Init(r, r.Space(cfg.Node, 0, r.SeqCap()))
	return g, nil
}

// NextID returns a new ID.
func (g *Generator) NextID() (snowlab.ID, error) {
	var one [1]snowlab.ID
	g.mu.Lock()
	_, err := g.cell.Take(g.rules, one[:])
	g.mu.Unlock()
	return one[0], err
}

// NextIDs fills dst with new IDs under one hold of the lock.
func (g *Generator) NextIDs(dst []snowlab.ID) (int, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.cell.Take(g.rules, dst)
}

// Stats reports the slow paths taken so far. CASRetries is always 0.
func (g *Generator) Stats() snowlab.Stats { return g.cell.Stats() }
