package storetest_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/snowlab/snowlab"
	"github.com/snowlab/snowlab/nodeid"
	"github.com/snowlab/snowlab/nodeid/storetest"
)

// memBackend is a store's data in memory: what every client of it shares.
// Its clients keep the whole contract, with expiry forced by hand and an
// outage switched on and off: they run every case of the suite, and each
// of the bugs, switched on, breaks one (see TestSuiteCatchesBrokenStores).
type memBackend struct {
	bug string // "" for none

	mu     sync.Mutex
	nodes  map[int]*memNode
	layout string // the layout recorded; "" for none yet
	down   bool
	// durable and durLayout are what survives lose: nodes and layout as
	// the last flush left them. Every write flushes before it returns,
	// but the ack-before-durable bug's Reserve.
	durable   map[int]memNode
	durLayout string
	checks    atomic.Int64 // the client-lock bug's checks, for its window
	shared    *memClient   // the shared-client bug's one client
}

// memNode is one id's record. An expired hold leaves the id free for
// another holder, but still its holder's by the record, as a row whose
// expires_at has passed or a key whose session timed out is: only a
// guard on every id of a range then refuses the writes of a zombie whose
// first id was taken.
type memNode struct {
	gen, until int64  // the last holder's token; the reserved-until
	holder     int64  // the holding claim's token; 0 once released
	expired    bool   // the holder's hold ran out
	layout     string // the layout-per-id bug's record
}

func (n *memNode) free() bool { return n.holder == 0 || n.expired }

var errDown = errors.New("memstore: the store is down")

func newMemBackend(bug string) *memBackend { return &memBackend{bug: bug, nodes: map[int]*memNode{}} }

func (b *memBackend) node(n int) *memNode {
	if b.nodes[n] == nil {
		b.nodes[n] = &memNode{}
	}
	return b.nodes[n]
}

// Client implements storetest.Backend.
func (b *memBackend) Client(*testing.T) nodeid.Store {
	if b.bug == "shared-client" {
		if b.shared == nil {
			b.shared = &memClient{b: b}
		}
		return b.shared
	}
	return &memClient{b: b}
}

// expire ends c's hold as a TTL running out would: nothing is written
// but the hold's end.
func (b *memBackend) expire(c nodeid.Claim) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for n := c.First(); n < c.First()+c.Count(); n++ {
		if nd := b.node(n); nd.holder == c.Token() {
			nd.expired = true
		}
	}
	b.flush()
	if b.bug == "guard-any-holder" {
		// Its monitors see the hold end, as etcd's watches and
		// ZooKeeper's session do: the claim is lost, and refuses its
		// own writes before they reach its guard.
		c.(*memClaim).lose()
	}
}

// flush makes nodes and layout durable; under mu.
func (b *memBackend) flush() {
	b.durable = make(map[int]memNode, len(b.nodes))
	for n, nd := range b.nodes {
		b.durable[n] = *nd
	}
	b.durLayout = b.layout
}

// lose is a crash of the backend that loses every write not flushed: the
// Lose hook.
func (b *memBackend) lose() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.nodes = make(map[int]*memNode, len(b.durable))
	for n, nd := range b.durable {
		b.nodes[n] = &nd
	}
	b.layout = b.durLayout
}

// steal frees c's ids by their records, as a hand edit would, without a
// word to c: the Steal hook.
func (b *memBackend) steal(c nodeid.Claim) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for n := c.First(); n < c.First()+c.Count(); n++ {
		if nd := b.node(n); nd.holder == c.Token() {
			nd.holder = 0
		}
	}
	b.flush()
}

func (b *memBackend) setDown(down bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.down = down
}

// freeRun is the first of count free ids among 0..maxNode, or -1; under mu.
func (b *memBackend) freeRun(count, maxNode int) int {
	for first := 0; first+count-1 <= maxNode; first++ {
		free := true
		for n := first; n < first+count; n++ {
			free = free && (b.node(n).free() || b.bug == "double-grant")
		}
		if free {
			return first
		}
	}
	return -1
}

// memClient is one client of a memBackend, as a process would have: the
// bugs that are right within one client keep their state here.
type memClient struct {
	b *memBackend

	mu     sync.Mutex    // the client-lock bug's lock
	gen    int64         // the client-local-tokens bug's counter
	untils map[int]int64 // the client-local-reservations bug's record
}

func (c *memClient) Acquire(ctx context.Context, layout snowlab.Layout, count, maxNode int) (nodeid.Claim, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("memstore: %w", err)
	}
	if count < 1 || maxNode < 0 || count > maxNode+1 {
		if c.b.bug == "bad-arguments-no-free" {
			return nil, nodeid.ErrNoFreeNode
		}
		return nil, fmt.Errorf("memstore: cannot take %d ids of 0..%d", count, maxNode)
	}
	text, err := layout.MarshalText()
	if err != nil {
		return nil, err
	}
	if c.b.bug == "client-lock" {
		return c.acquireApart(string(text), count, maxNode)
	}
	c.b.mu.Lock()
	defer c.b.mu.Unlock()
	if c.b.down {
		return nil, errDown
	}
	defer c.b.flush()
	if err := c.b.pinLayout(string(text)); err != nil {
		return nil, err
	}
	first := c.b.freeRun(count, maxNode)
	if first < 0 {
		return nil, noFree(count, maxNode)
	}
	if err := c.b.checkRun(string(text), first, count); err != nil {
		return nil, err
	}
	return c.grant(first, count, string(text)), nil
}

// pinLayout records the layout text when the backend has none and
// compares it with the record; under mu. The layout bugs skip it.
func (b *memBackend) pinLayout(text string) error {
	if b.bug == "layout-ignored" || b.bug == "layout-per-id" {
		return nil
	}
	if b.layout == "" {
		b.layout = text
	}
	return nodeid.CheckLayout("memstore", b.layout, mustLayout(text))
}

// checkRun is the layout-per-id bug: the layout compared only with the
// records of the ids to be taken (none on an id never held).
func (b *memBackend) checkRun(text string, first, count int) error {
	if b.bug != "layout-per-id" {
		return nil
	}
	for n := first; n < first+count; n++ {
		if l := b.node(n).layout; l != "" {
			if err := nodeid.CheckLayout(fmt.Sprintf("memstore id %d", n), l, mustLayout(text)); err != nil {
				return err
			}
		}
	}
	return nil
}

func mustLayout(text string) snowlab.Layout {
	var l snowlab.Layout
	if err := l.UnmarshalText([]byte(text)); err != nil {
		panic(err)
	}
	return l
}

func noFree(count, maxNode int) error {
	return fmt.Errorf("%w: memstore: no %d free ids in 0..%d", nodeid.ErrNoFreeNode, count, maxNode)
}

// acquireApart is the client-lock bug: the check and the set are atomic
// only within this client, which holds its own lock across them, while
// the backend's lock is let go in between. The window between them stays
// open until another client has made a check too, or for 1,000 yields
// (well under a millisecond when no one else is acquiring):
// two clients that acquire at once then both take the same free ids,
// however the scheduler runs them, instead of only when it interleaves
// them there.
func (c *memClient) acquireApart(layout string, count, maxNode int) (nodeid.Claim, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.b.mu.Lock()
	first, down := c.b.freeRun(count, maxNode), c.b.down
	err := c.b.pinLayout(layout)
	c.b.mu.Unlock()
	if down {
		return nil, errDown
	}
	if err != nil {
		return nil, err
	}
	if first < 0 {
		return nil, noFree(count, maxNode)
	}
	mine := c.b.checks.Add(1)
	for i := 0; i < 1000 && c.b.checks.Load() == mine; i++ {
		runtime.Gosched()
	}
	c.b.mu.Lock()
	defer c.b.mu.Unlock()
	defer c.b.flush()
	return c.grant(first, count, layout), nil
}

// grant makes the claim on first..first+count-1; under the backend's lock.
func (c *memClient) grant(first, count int, layout string) *memClaim {
	b, last := c.b, first+count-1
	cl := &memClaim{c: c, first: first, count: count, lost: make(chan struct{})}
	var gen int64
	for n := first; n <= last; n++ {
		nd := b.node(n)
		ends := n == first || n == last
		if b.bug != "token-of-first-only" || n == first {
			if b.bug != "token-of-ends-only" || ends {
				gen = max(gen, nd.gen)
			}
		}
		until := nd.until
		if b.bug == "client-local-reservations" {
			until = c.untils[n]
		}
		switch {
		case b.bug == "floor-of-first-only" && n != first,
			b.bug == "floor-of-last-only" && n != last,
			b.bug == "floor-of-ends-only" && !ends:
		default:
			cl.floor = max(cl.floor, until)
		}
	}
	cl.token = gen + 1
	switch b.bug {
	case "token-reused":
		cl.token = max(gen, 1)
	case "client-local-tokens":
		c.gen++
		cl.token = c.gen
	}
	for n := first; n <= last; n++ {
		*b.node(n) = memNode{gen: cl.token, until: b.node(n).until, holder: cl.token, layout: layout}
	}
	return cl
}

type memClaim struct {
	c            *memClient
	first, count int
	token, floor int64
	lost         chan struct{}
	once         sync.Once
}

func (c *memClaim) First() int            { return c.first }
func (c *memClaim) Count() int            { return c.count }
func (c *memClaim) Floor() int64          { return c.floor }
func (c *memClaim) Token() int64          { return c.token }
func (c *memClaim) Lost() <-chan struct{} { return c.lost }

// held checks, with the backend locked, that c still holds its ids by
// their records (expired or not, so long as no one took them); when it
// does not, Lost closes and the error wraps ErrLost.
func (c *memClaim) held() error {
	b := c.c.b
	if b.down {
		if b.bug == "outage-is-loss" {
			return nodeid.ErrLost
		}
		return errDown
	}
	if b.bug == "no-fence" {
		return nil
	}
	if b.bug == "guard-any-holder" {
		select {
		case <-c.lost:
			return fmt.Errorf("%w: memstore: ids %d.. were lost", nodeid.ErrLost, c.first)
		default:
		}
	}
	mine, anyone := 0, 0
	for n := c.first; n < c.first+c.count; n++ {
		if h := b.node(n).holder; h == c.token {
			mine++
		} else if h != 0 {
			anyone++
		}
	}
	switch {
	case mine == c.count,
		b.bug == "guard-any" && mine > 0,
		b.bug == "guard-any-holder" && mine+anyone == c.count:
		return nil
	}
	c.lose()
	return fmt.Errorf("%w: memstore: ids %d.. are not token %d's", nodeid.ErrLost, c.first, c.token)
}

func (c *memClaim) lose() { c.once.Do(func() { close(c.lost) }) }

// store writes until as id n's reserved-until; under the backend's lock.
func (c *memClaim) store(n int, until int64) {
	if c.c.b.bug == "client-local-reservations" {
		if c.c.untils == nil {
			c.c.untils = map[int]int64{}
		}
		c.c.untils[n] = until
		return
	}
	c.c.b.node(n).until = until
}

func (c *memClaim) Reserve(_ context.Context, until int64) error {
	b := c.c.b
	b.mu.Lock()
	defer b.mu.Unlock()
	if err := c.held(); err != nil {
		return err
	}
	if b.bug != "ack-before-durable" {
		defer b.flush()
	}
	for n := c.first; n < c.first+c.count; n++ {
		switch {
		case b.bug == "reserve-stores-nothing", b.bug == "reserve-writes-first-only" && n != c.first:
		case b.bug == "reserve-moves-back":
			c.store(n, until)
		default:
			c.store(n, max(b.node(n).until, until))
		}
	}
	return nil
}

func (c *memClaim) Release(_ context.Context, until int64) error {
	b := c.c.b
	b.mu.Lock()
	defer b.mu.Unlock()
	if err := c.held(); err != nil {
		return err
	}
	defer b.flush()
	for n := c.first; n < c.first+c.count; n++ {
		if b.bug != "release-ignores-until" {
			c.store(n, max(until, c.floor))
		}
		if b.bug != "release-keeps-hold" && b.node(n).holder == c.token {
			b.node(n).holder = 0
		}
	}
	return nil
}

// runMem runs the suite on memory backends with bug, and the hooks of
// config: "full" (Expire, Stop and Start, as etcd and PostgreSQL), "dir"
// (Crash alone, as Dir: holds that never expire) or "none".
func runMem(t *testing.T, bug, config string) {
	var mu sync.Mutex
	var cur *memBackend // the case's backend, for Stop and Start
	backend := func() *memBackend {
		mu.Lock()
		defer mu.Unlock()
		return cur
	}
	var cfg storetest.Config
	switch config {
	case "full":
		cfg = storetest.Config{
			Expire: func(_ *testing.T, c nodeid.Claim) { backend().expire(c) },
			Stop:   func(*testing.T) { backend().setDown(true) },
			Start:  func(*testing.T) { backend().setDown(false) },
			Lose:   func(*testing.T) { backend().lose() },
			Steal:  func(_ *testing.T, c nodeid.Claim) { backend().steal(c) },
		}
	case "dir":
		cfg = storetest.Config{Crash: func(_ *testing.T, c nodeid.Claim) { backend().expire(c) }}
	case "none":
	default:
		t.Fatalf("no hooks named %q", config)
	}
	storetest.Run(t, func(*testing.T) storetest.Backend {
		mu.Lock()
		defer mu.Unlock()
		cur = newMemBackend(bug)
		return cur
	}, cfg)
}

// TestMemStore: the suite passes, every case, on a store that keeps the
// contract, with every hook, and with Crash alone (as on Dir).
func TestMemStore(t *testing.T) {
	t.Run("full", func(t *testing.T) { runMem(t, "", "full") })
	t.Run("dir", func(t *testing.T) { runMem(t, "", "dir") })
}

// hooksEnv is the hooks TestBrokenStore runs the suite with (runMem's
// config; "full" when unset).
const hooksEnv = "STORETEST_HOOKS"

// TestBrokenStore runs the suite on a memory store with the bug
// storetest.PlantedMutant names; it is skipped without one.
// TestSuiteCatchesBrokenStores runs it.
func TestBrokenStore(t *testing.T) {
	bug := storetest.PlantedMutant()
	if bug == "" {
		t.Skip("run by TestSuiteCatchesBrokenStores, through storetest.CatchMutants")
	}
	hooks := os.Getenv(hooksEnv)
	if hooks == "" {
		hooks = "full"
	}
	runMem(t, bug, hooks)
}

// brokenStores are the bugs a store could have, each with the hooks the
// suite runs it with, the case that must fail ("" for Run itself) and
// what that case must say. Bug "none" has none: the hooks are what is
// wrong.
var brokenStores = []struct{ bug, hooks, failing, says string }{
	{"double-grant", "full", "Contention", "handed to contenders"},
	// Right within one client, wrong across two.
	{"client-lock", "full", "Contention", "handed to contenders"},
	{"client-lock", "dir", "Contention", "handed to contenders"},
	{"client-local-tokens", "full", "Tokens", "want above"},
	{"client-local-reservations", "full", "Reservations", "Release stores the reserved-until it is given"},
	{"shared-client", "full", "Contention", "the suite needs independent clients"},
	// A range judged by some of its ids.
	{"floor-of-first-only", "full", "Ranges", "latest reserved-until over its ids, here id 1's"},
	{"floor-of-last-only", "full", "Ranges", "latest reserved-until over its ids, here id 1's"},
	{"floor-of-ends-only", "full", "Ranges", "latest reserved-until over its ids, here id 1's"},
	{"token-of-first-only", "full", "Ranges", "want above"},
	{"token-of-ends-only", "full", "Ranges", "want above"},
	{"guard-any", "full", "Zombie", "after a successor took (some of) them"},
	{"reserve-writes-first-only", "dir", "Crash", "id 1: the reservation its holder made durable"},
	// Reserve seen only once its holder is gone.
	{"reserve-stores-nothing", "dir", "Crash", "the reservation its holder made durable (its highest) before it crashed"},
	{"reserve-stores-nothing", "full", "Expiry", "the expired holder's reservation outlives it"},
	{"reserve-moves-back", "full", "Expiry", "Reserve only moves it forward"},
	{"reserve-moves-back", "dir", "Crash", "(its highest)"},
	{"none", "none", "", "neither Config.Crash nor Config.Expire is set"},
	// The rest of the contract.
	{"token-reused", "full", "Tokens", "want above"},
	{"release-ignores-until", "full", "Reservations", "Release stores the reserved-until it is given"},
	{"release-keeps-hold", "full", "Release", "Reserve after Release"},
	{"bad-arguments-no-free", "full", "BadArguments", "not nodeid.ErrNoFreeNode"},
	{"no-fence", "full", "Zombie", "want nodeid.ErrLost"},
	{"no-fence", "full", "Stolen", "want nodeid.ErrLost (its guard let it write over the successor)"},
	// Issue 37's survivors. A Reserve acknowledged before it is durable
	// (PostgreSQL with synchronous_commit off): only a backend that loses
	// unflushed writes shows it.
	{"ack-before-durable", "full", "Durable", "a Reserve acknowledged before it was durable"},
	// A guard that holds while anyone holds the ids (a reservation znode
	// written whatever its version), on a store whose monitors notice an
	// expiry and refuse the write themselves: Zombie cannot see it.
	{"guard-any-holder", "full", "Stolen", "want nodeid.ErrLost (its guard let it write over the successor)"},
	{"outage-is-loss", "full", "Restart", "a store that is away is no loss"},
	// The layout: unrecorded, or recorded per id (node 0 of 41/8/14 then
	// mints the IDs of held ids 0..3 of 41/10/12).
	{"layout-ignored", "full", "Layout", "want nodeid.ErrLayout"},
	{"layout-ignored", "full", "LayoutRace", "one store, two layouts"},
	{"layout-per-id", "full", "Layout", "want nodeid.ErrLayout"},
}

// TestSuiteCatchesBrokenStores: each bug a store could have fails the case
// that checks it (the suite runs in a child process, whose failure is the
// point).
func TestSuiteCatchesBrokenStores(t *testing.T) {
	var mutants []storetest.Mutant
	for _, b := range brokenStores {
		mutants = append(mutants, storetest.Mutant{Name: b.bug, Case: b.failing, Says: b.says, Env: []string{hooksEnv + "=" + b.hooks}})
	}
	storetest.CatchMutants(t, "TestBrokenStore", mutants)
}
