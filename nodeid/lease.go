package nodeid

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sync"
	"time"

	"github.com/snowlab/snowlab"
	"github.com/snowlab/snowlab/clocksrc"
)

// ErrNoFreeNode: every node id the layout allows is held by someone else.
var ErrNoFreeNode = errors.New("nodeid: no free node id")

// ErrNoFreeSlot is the same error value as ErrNoFreeNode, so that code
// testing for it with errors.Is keeps working against every store.
//
// Deprecated: use ErrNoFreeNode.
var ErrNoFreeSlot = ErrNoFreeNode

// ErrLost: the store says this lease is gone (expired, or taken by another
// holder). Its fence is revoked: generators using it stop.
var ErrLost = errors.New("nodeid: lease lost")

// ErrLayout: the store records another layout for its node ids than the
// one the holder mints under. A node id means a different slice of the ID
// space in each layout (node 0 of 41/8/14 mints the IDs of nodes 0..3 of
// 41/10/12), so the holders of one store must share one layout: a holder
// of another is refused at once, and asking again cannot mend it (a
// command exits 2; a service does not retry). Give a fleet with another
// layout a store of its own (another folder, prefix, table or path).
var ErrLayout = errors.New("nodeid: the store holds its node ids under another layout")

// Store hands out node ids and keeps each node id's reserved-until time.
//
// A store serves one layout, which it records: the first Acquire ever
// made on it records its layout, durably, before it hands out a claim,
// and the record never changes; every Acquire compares its layout with
// the record first and, when they differ, fails with ErrLayout, taking
// and writing nothing, whoever holds what. Two holders that race to be
// the first with different layouts must not both be served: the record
// is created only where none exists (a conditional create, or one row
// or key that only the first write makes), and the loser reads the
// winner's and compares. The record is the layout's canonical text,
// Layout.MarshalText's (the zero Layout is DefaultLayout); CheckLayout
// compares a record with a layout. A record the store cannot read is
// refused the same way, never taken for "no layout yet". Recording the
// layout per node id is not enough: a holder of another layout takes ids
// nobody held and mints the IDs of held ones. (Package storetest checks
// all of this.)
type Store interface {
	// Acquire takes count consecutive free node ids among 0..maxNode
	// (maxNode is at most layout.MaxNode()) for a holder that mints
	// under layout, and returns the claim on them. It must make them
	// unavailable to other holders before it returns, and report the
	// previous holders' reserved-until (the latest over the node ids) as
	// the claim's Floor. When no such run is free it fails with
	// ErrNoFreeNode; when the store records another layout (see above),
	// with ErrLayout.
	Acquire(ctx context.Context, layout snowlab.Layout, count, maxNode int) (Claim, error)
}

// Preferrer is a Store that can try a given range of node ids first:
// Acquire uses it when Options.Preferred is set. AcquireAt is Acquire,
// except that the run first..first+count-1 is tried before any other;
// when it is not free, any free run is taken, as Acquire would.
type Preferrer interface {
	AcquireAt(ctx context.Context, layout snowlab.Layout, first, count, maxNode int) (Claim, error)
}

// CheckLayout compares the layout record a Store found (recorded, as
// Layout.MarshalText wrote it) with the layout a holder mints under: nil
// when they are the same layout, else an error wrapping ErrLayout that
// names where the record is (where: "dir /var/lib/ids", "etcd key
// /app/layout") and both layouts. A record that does not parse as a
// layout is refused the same way.
func CheckLayout(where, recorded string, layout snowlab.Layout) error {
	want, err := layout.MarshalText()
	if err != nil {
		return err
	}
	var got snowlab.Layout
	if err := got.UnmarshalText([]byte(recorded)); err != nil {
		return fmt.Errorf("%w: %s holds %.200q, not a layout this version reads; the holder's is %s", ErrLayout, where, recorded, want)
	}
	if g, _ := got.MarshalText(); string(g) != string(want) {
		return fmt.Errorf("%w: %s records layout %s, the holder's is %s: one store serves one layout (give this one a store of its own)", ErrLayout, where, g, want)
	}
	return nil
}

// Claim is a store's hold on a range of node ids.
type Claim interface {
	// First and Count are the node ids held.
	First() int
	Count() int
	// Floor is the previous holders' reserved-until, Unix nanoseconds (0
	// when the node ids were never held).
	Floor() int64
	// Token is a fencing token: it grows with every new holder of a node id,
	// so a store operation can be guarded against a zombie holder.
	Token() int64
	// Reserve makes until durable as the node ids' reserved-until. It must
	// fail when the claim is no longer held.
	Reserve(ctx context.Context, until int64) error
	// Lost is closed when the store knows the claim is gone. A claim
	// with a method Err() error (ClaimState's) says there why, wrapping
	// ErrLost: Lease.Err returns it.
	Lost() <-chan struct{}
	// Release stores until as the final reserved-until and frees the node ids.
	Release(ctx context.Context, until int64) error
}

// Options shape a lease.
type Options struct {
	// Count is how many consecutive node ids to hold (a shardedgen in
	// NodePerShard mode needs one per shard); 0 is 1.
	Count int
	// Layout bounds the node ids; the zero Layout is the default.
	Layout snowlab.Layout
	// Window is how far ahead of the clock the reservation is kept; 0 is
	// DefaultWindow. A holder cut off from its store mints for at most
	// this long; a successor after a crash waits at most this long.
	Window time.Duration
	// Refresh is how often the reservation is moved ahead; 0 is Window/3.
	Refresh time.Duration
	// Clock is the clock reservations are measured on; nil is
	// clocksrc.Default(). Use the generators' clock.
	Clock clocksrc.Clock
	// Preferred asks for the node ids from Prefer first: a hint, such
	// as a StatefulSet ordinal (see Ordinal), never a promise. A store
	// that implements Preferrer tries them first and takes any free
	// ones when they are held; another store ignores the hint. Two
	// processes given one Prefer (a pod force-deleted while it still
	// runs, kubernetes #54368) get different node ids either way.
	Preferred bool
	Prefer    int
}

// DefaultWindow is the reservation kept ahead of the clock.
const DefaultWindow = 3 * time.Second

// MinWindow is the shortest Window a lease accepts: a reservation that
// must be renewed more often than every few milliseconds would spend its
// life writing to the store.
const MinWindow = 10 * time.Millisecond

// maxSkips is how many node ids whose reservation is ahead of the clock
// Acquire passes over, looking for one it can use at once.
const maxSkips = 16

// withDefaults fills the zero fields and checks the others: a window too
// short to keep, or a refresh that comes after the reservation it renews
// has run out, is refused rather than left to fail later.
func (o Options) withDefaults() (Options, error) {
	switch {
	case o.Count < 0:
		return o, fmt.Errorf("%w: nodeid: Count %d is negative", snowlab.ErrInvalidConfig, o.Count)
	case o.Window < 0:
		return o, fmt.Errorf("%w: nodeid: Window %v is negative", snowlab.ErrInvalidConfig, o.Window)
	case o.Refresh < 0:
		return o, fmt.Errorf("%w: nodeid: Refresh %v is negative", snowlab.ErrInvalidConfig, o.Refresh)
	}
	if o.Count == 0 {
		o.Count = 1
	}
	if o.Preferred && o.Prefer < 0 {
		return o, fmt.Errorf("%w: nodeid: Prefer %d is negative", snowlab.ErrInvalidConfig, o.Prefer)
	}
	o.Layout = o.Layout.OrDefault()
	if o.Window == 0 {
		o.Window = DefaultWindow
	}
	if o.Refresh == 0 {
		o.Refresh = o.Window / 3
	}
	if o.Clock == nil {
		o.Clock = clocksrc.Default()
	}
	switch {
	case o.Window < MinWindow:
		return o, fmt.Errorf("%w: nodeid: Window %v is shorter than %v", snowlab.ErrInvalidConfig, o.Window, MinWindow)
	case o.Refresh > o.Window/2:
		return o, fmt.Errorf("%w: nodeid: Refresh %v is more than half the Window %v: the reservation would run out between refreshes",
			snowlab.ErrInvalidConfig, o.Refresh, o.Window)
	}
	return o, nil
}

// Lease is a held range of node ids with its reservation.
type Lease struct {
	claim  Claim
	fence  *snowlab.Fence
	opts   Options
	lost   chan struct{}
	stop   chan struct{}
	done   chan struct{}
	once   sync.Once
	mu     sync.Mutex
	err    error // the last refresh error, for Err
	closed bool
}

// Acquire takes opts.Count node ids from store, reserves the first window
// (durably, before returning) and starts the refresher. The lease's fence
// has the previous holders' reservation as its floor: generators built
// with Lease.Config wait for the clock to pass it.
func Acquire(ctx context.Context, store Store, opts Options) (*Lease, error) {
	opts, err := opts.withDefaults()
	if err != nil {
		return nil, err
	}
	if err := opts.Layout.Validate(); err != nil {
		return nil, err
	}
	if opts.Count > opts.Layout.MaxNode()+1 {
		return nil, fmt.Errorf("%w: %d node ids asked for, the layout has %d", snowlab.ErrInvalidNode, opts.Count, opts.Layout.MaxNode()+1)
	}
	if opts.Preferred && opts.Prefer+opts.Count-1 > opts.Layout.MaxNode() {
		return nil, fmt.Errorf("%w: preferred node ids %d..%d, the layout has 0..%d", snowlab.ErrInvalidNode, opts.Prefer, opts.Prefer+opts.Count-1, opts.Layout.MaxNode())
	}
	claim, err := pick(ctx, store, opts)
	if err != nil {
		return nil, err
	}
	floor := claim.Floor()
	until := addSat(max(opts.Clock.UnixNano(), floor), int64(opts.Window))
	if err := claim.Reserve(ctx, until); err != nil {
		_ = claim.Release(context.WithoutCancel(ctx), max(floor, 0))
		return nil, fmt.Errorf("nodeid: first reservation: %w", err)
	}
	l := &Lease{
		claim: claim, fence: snowlab.NewFenceFor(claim.First(), claim.Count(), floor, until), opts: opts,
		lost: make(chan struct{}), stop: make(chan struct{}), done: make(chan struct{}),
	}
	go l.refresh()
	return l, nil
}

// pick takes a claim whose previous reservation the clock has passed, so
// that the lease can be used at once. A claim whose reservation is ahead
// (its last holder crashed a moment ago, or had a clock running ahead) is
// held while the store is asked again, which hands out other ids; after
// maxSkips of them, or when the store has no more, the claim with the
// earliest reservation is kept. The others are released with their own
// reservation, unchanged: passing over an id never pushes its time forward.
func pick(ctx context.Context, store Store, opts Options) (Claim, error) {
	var held []Claim
	release := func(keep Claim) {
		for _, c := range held {
			if c != keep {
				_ = c.Release(context.WithoutCancel(ctx), c.Floor())
			}
		}
	}
	for {
		c, err := acquireOnce(ctx, store, opts, len(held) == 0)
		if err != nil {
			if len(held) > 0 && errors.Is(err, ErrNoFreeNode) {
				break
			}
			release(nil)
			return nil, err
		}
		if c.Floor() <= opts.Clock.UnixNano() {
			release(nil)
			return c, nil
		}
		held = append(held, c)
		if len(held) > maxSkips {
			break
		}
	}
	best := held[0]
	for _, c := range held[1:] {
		if c.Floor() < best.Floor() {
			best = c
		}
	}
	release(best)
	return best, nil
}

// acquireOnce asks store for a claim: through Preferrer, from
// opts.Prefer, on the first ask when a preference is set.
func acquireOnce(ctx context.Context, store Store, opts Options, first bool) (Claim, error) {
	if p, ok := store.(Preferrer); ok && first && opts.Preferred {
		return p.AcquireAt(ctx, opts.Layout, opts.Prefer, opts.Count, opts.Layout.MaxNode())
	}
	return store.Acquire(ctx, opts.Layout, opts.Count, opts.Layout.MaxNode())
}

// addSat is a+b for b >= 0, held at math.MaxInt64 instead of wrapping: a
// stored reservation near the end of time must not wrap to 1677.
func addSat(a, b int64) int64 {
	if a > math.MaxInt64-b {
		return math.MaxInt64
	}
	return a + b
}

// refresh moves the reservation ahead every Refresh. A failed refresh
// leaves the fence where it is, so generators keep minting up to the last
// durable reservation and then stop; a later success resumes them. Loss
// reported by the store revokes the fence at once.
func (l *Lease) refresh() {
	defer close(l.done)
	t := time.NewTicker(l.opts.Refresh)
	defer t.Stop()
	for {
		select {
		case <-l.stop:
		case <-l.claim.Lost():
		case <-t.C:
		}
		// A tick left pending while a Reserve ran (a slow store, a
		// paused process) and a Release or a loss are often ready
		// together, and Go's select picks among ready cases at random:
		// checked here first, a Release never waits for one more round
		// trip to the store, and the choice does not depend on chance
		// (internal/sim replays every schedule from its seed).
		if l.stopped() {
			return
		}
		until := addSat(l.opts.Clock.UnixNano(), int64(l.opts.Window))
		ctx, cancel := context.WithTimeout(context.Background(), l.opts.Refresh)
		err := l.claim.Reserve(ctx, until)
		cancel()
		l.mu.Lock()
		l.err = err
		l.mu.Unlock()
		switch {
		case err == nil:
			l.fence.Extend(until)
		case errors.Is(err, ErrLost):
			l.markLost(err)
			return
		}
	}
}

// stopped reports, Release first, whether the refresher must end: the
// lease was released, or the store says the claim is lost (the fence is
// then revoked).
func (l *Lease) stopped() bool {
	select {
	case <-l.stop:
		return true
	default:
	}
	select {
	case <-l.claim.Lost():
		l.markLost(lostErr(l.claim))
		return true
	default:
	}
	return false
}

// lostErr is why c, whose Lost is closed, was lost: its Err when it has
// one that wraps ErrLost (a ClaimState's names the claim and the store's
// reason, "the ZooKeeper session expired"), else ErrLost alone.
func lostErr(c Claim) error {
	if e, ok := c.(interface{ Err() error }); ok {
		if err := e.Err(); errors.Is(err, ErrLost) {
			return err
		}
	}
	return ErrLost
}

func (l *Lease) markLost(err error) {
	l.fence.Revoke()
	l.mu.Lock()
	l.err = err
	l.mu.Unlock()
	l.once.Do(func() { close(l.lost) })
}

// Node is the first node id held.
func (l *Lease) Node() int { return l.claim.First() }

// Nodes is the range held: first, and how many.
func (l *Lease) Nodes() (first, count int) { return l.claim.First(), l.claim.Count() }

// Token is the store's fencing token for this holder.
func (l *Lease) Token() int64 { return l.claim.Token() }

// Fence is the reservation generators must be built with (Lease.Config
// does it).
func (l *Lease) Fence() *snowlab.Fence { return l.fence }

// ReservedUntil is the end of the current durable reservation.
func (l *Lease) ReservedUntil() time.Time { return time.Unix(0, l.fence.Until()) }

// Lost is closed when the lease is lost; generators using it have stopped.
func (l *Lease) Lost() <-chan struct{} { return l.lost }

// Err is the last refresh's error (nil when it succeeded), or ErrLost.
func (l *Lease) Err() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.err
}

// Config returns base with the lease's first node id and its fence set
// (and the lease's layout and clock where base has none): the
// configuration for a generator that mints under this lease. The fence
// holds the lease's node ids, so a generator that would mint on more of
// them than the lease holds (a node-per-shard generator with more shards
// than Options.Count) is refused with snowlab.ErrInvalidNode; and building
// a generator stops any earlier one on the same ids.
func (l *Lease) Config(base snowlab.Config) snowlab.Config {
	base.Node = l.Node()
	base.Fence = l.fence
	if base.Clock == nil {
		base.Clock = l.opts.Clock
	}
	if base.Layout.IsZero() {
		base.Layout = l.opts.Layout
	}
	return base
}

// Release stops the generators using the lease (their fence is revoked),
// stores the end of the last tick they used as the node ids'
// reserved-until, so a successor waits only for time really spent (and a
// holder that minted nothing leaves the reservation where its predecessor
// left it), and frees the ids. It is safe to call more than once.
//
// Only generators built with Config report what they used: code that mints
// with Node alone, outside the fence, must not rely on Release.
func (l *Lease) Release(ctx context.Context) error {
	l.mu.Lock()
	if l.closed {
		l.mu.Unlock()
		return nil
	}
	l.closed = true
	l.mu.Unlock()
	close(l.stop)
	<-l.done
	l.fence.Revoke()
	return l.claim.Release(ctx, l.fence.LastEnd())
}
