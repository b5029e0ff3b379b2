package alternatives

import (
	"context"
	"fmt"
	"time"
)

// fetchFunc reserves the next block of a segment allocator's tag and
// returns the block's last ID: the block is [last-step+1, last]. In the
// experiment it is one UPDATE ... SET max_id = max_id + step ... RETURNING
// max_id, its own transaction.
type fetchFunc func(ctx context.Context) (last int64, err error)

// prefetchShare is the share of a block handed out after which a
// double-buffered allocator fetches the next one: Leaf's segment mode
// loads the next segment once the current one is less than 90% idle.
const prefetchShare = 0.1

// allocator hands out the IDs of one block locally, one by one, and
// fetches the next block when the current one is spent; with DoubleBuffer
// it fetches the next block in the background as soon as prefetchShare of
// the current one is handed out, as Meituan's Leaf does, so that a client
// waits for the database only when a whole block goes faster than one
// fetch. It is one client's (one node's) and not safe for concurrent use.
type allocator struct {
	step   int64
	double bool
	fetch  fetchFunc

	next, last int64 // the current block's next and last ID; next > last: spent
	pending    chan fetched
	trips      []time.Duration
}

type fetched struct {
	last int64
	took time.Duration
	err  error
}

// newAllocator returns an allocator of blocks of step IDs from fetch.
func newAllocator(step int64, doubleBuffer bool, fetch fetchFunc) (*allocator, error) {
	if step < 1 || step > maxSize {
		return nil, fmt.Errorf("%w: block step %d: want 1 to %d", errOptions, step, maxSize)
	}
	return &allocator{step: step, double: doubleBuffer, fetch: fetch, next: 1, last: 0}, nil
}

// Next hands out the next ID, fetching a block first when none is left.
func (a *allocator) Next(ctx context.Context) (int64, error) {
	if a.next > a.last {
		if a.pending == nil {
			a.start(ctx)
		}
		var f fetched
		select {
		case f = <-a.pending:
		case <-ctx.Done():
			return 0, ctx.Err()
		}
		a.pending = nil
		a.trips = append(a.trips, f.took)
		if f.err != nil {
			return 0, f.err
		}
		a.next, a.last = f.last-a.step+1, f.last
	}
	id := a.next
	a.next++
	if a.double && a.pending == nil && float64(a.step-(a.last-a.next+1)) >= prefetchShare*float64(a.step) {
		a.start(ctx)
	}
	return id, nil
}

// start fetches a block: in the background when double-buffered, at once
// otherwise. Only one fetch is ever in flight, so the fetch may use the
// client's connection.
func (a *allocator) start(ctx context.Context) {
	a.pending = make(chan fetched, 1)
	run := func(ch chan<- fetched) {
		t0 := time.Now()
		last, err := a.fetch(ctx)
		ch <- fetched{last: last, took: time.Since(t0), err: err}
	}
	if a.double {
		go run(a.pending)
	} else {
		run(a.pending)
	}
}

// Remaining is how many IDs of the current block are left to hand out.
func (a *allocator) Remaining() int64 { return max(a.last-a.next+1, 0) }

// Prefetching reports whether a fetch has started whose block is not yet
// in use (in flight, or done and waiting).
func (a *allocator) Prefetching() bool { return a.pending != nil }

// Trips is the duration of every fetch whose block was taken into use.
func (a *allocator) Trips() []time.Duration { return a.trips }

// Close waits for a fetch still in flight, so that the connection it uses
// is free again, and counts its round trip.
func (a *allocator) Close() error {
	if a.pending == nil {
		return nil
	}
	f := <-a.pending
	a.pending = nil
	if f.err == nil {
		a.trips = append(a.trips, f.took)
	}
	return nil
}
