// Package atomicgen is the lock-free generator: the last tick and the count
// of IDs issued in it live in one atomic uint64, advanced with fetch-add
// within a tick and compare-and-swap across ticks.
//
// Both fields share one word on purpose. A generator that keeps them in two
// words and updates them with two operations can hand out the same (tick,
// sequence) twice when the sequence wraps between the two; with one word
// every reservation is a single atomic step, and the word's order is the
// order in which IDs are issued.
package atomicgen

import (
	"github.com/snowlab/snowlab"
	"github.com/snowlab/snowlab/internal/engine"
)

// Generator is a lock-free generator. It is safe for concurrent use.
type Generator struct {
	cell  engine.Cell // the state word, on cache lines of its own
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
	return g.cell.Next(g.rules)
}

// NextIDs fills dst with new IDs. A Monotonic generator reserves the whole
// batch with one compare-and-swap; a Strict one reserves the rest of the
// current tick per compare-and-swap and waits for the next tick in between.
func (g *Generator) NextIDs(dst []snowlab.ID) (int, error) {
	return g.cell.Take(g.rules, dst)
}

// Stats reports the slow paths taken so far.
func (g *Generator) Stats() snowlab.Stats { return g.cell.Stats() }
