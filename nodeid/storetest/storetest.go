// Package storetest checks a nodeid.Store against the contract a
// nodeid.Lease relies on, in the manner of testing/fstest: a store's own
// tests call Run, and so can the tests of a Store written elsewhere (on
// Consul, ZooKeeper, a Kubernetes Lease) to prove it.
//
// The suite's cases, each a subtest of Run's:
//
//   - Contention: many goroutines acquire at once; no node id is handed
//     to two of them, and those left without one get nodeid.ErrNoFreeNode.
//   - Ranges: claims of several consecutive ids fit only where a whole
//     run is free; a range's floor is the latest reservation over its ids,
//     its token is above every one's earlier holders', and its Reserve and
//     Release write every id.
//   - Tokens: each new holder of an id gets a larger fencing token.
//   - Reservations: a released id's reserved-until outlives its holder, as
//     Release stored it (which may be below the last Reserve) but never
//     below what the holder found.
//   - Release: frees the ids for the next holder, is no loss, and a
//     released claim's Reserve is refused with nodeid.ErrLost.
//   - BadArguments: impossible counts and ranges, and a canceled context,
//     are errors, never nodeid.ErrNoFreeNode.
//   - Expiry: a holder that renews is kept past its TTL; one that stops
//     loses its ids, and the successor's floor is its last reservation.
//   - Zombie: after a successor took the id, the old holder's Reserve and
//     Release are refused with nodeid.ErrLost and change nothing the
//     successor or the next holder sees.
//   - Restart: the store goes away during a hold and comes back; the
//     holder's writes fail meanwhile without being taken for a loss, and
//     it goes on holding the same ids afterwards.
//   - Lease: a nodeid.Lease over the store refreshes its reservation, and
//     a successor's floor is the end of the last tick its predecessor used.
//
// Expiry and Zombie need Config.Expire, Restart needs Config.Stop and
// Config.Start: without them those cases are skipped, and say why.
//
// Each case runs on a store Open returns empty, and claims low node ids:
// 0..7, and in the Lease case whatever nodeid.Acquire takes first.
package storetest

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/snowlab/snowlab"
	"github.com/snowlab/snowlab/atomicgen"
	"github.com/snowlab/snowlab/clocksrc"
	"github.com/snowlab/snowlab/nodeid"
)

// Config is what Run needs to know of a store beyond opening it.
type Config struct {
	// Expire makes the holder of c stop renewing its hold, as a holder
	// that is frozen or cut off from the store would, and returns once
	// the store would hand c's ids to someone else: its TTL has run out
	// by the store's own judgement (a bounded wait, or forced through a
	// hook of the store's). It must neither release c nor write for it.
	// nil: the store's holds do not expire (Dir holds an id for as long
	// as the holder's process lives), and Expiry and Zombie are skipped.
	Expire func(t *testing.T, c nodeid.Claim)
	// TTL, when set, is how long a holder that stops renewing keeps its
	// ids: Expiry then also holds a claim for one and a half TTLs and
	// checks that the store's own renewal kept it.
	TTL time.Duration
	// Stop takes the store away with its data kept (its server stopped or
	// crashed); Start brings it back on the same data and address. Both
	// or neither: without them Restart is skipped. Start must not take
	// longer than the store's TTL: the case expects the holder to keep
	// its ids across the outage.
	Stop, Start func(t *testing.T)
	// Recover bounds how long a holder may take to reach the store again
	// after Start (reconnects, backoff); 0 is 20 s.
	Recover time.Duration
}

// opTimeout bounds each store call the suite makes.
const opTimeout = 30 * time.Second

// Run runs the suite on the stores open returns: a new, empty one for each
// case (a fresh folder, key prefix or table), whose resources open
// registers for cleanup with t.
func Run(t *testing.T, open func(t *testing.T) nodeid.Store, cfg Config) {
	t.Helper()
	if (cfg.Stop == nil) != (cfg.Start == nil) {
		t.Fatal("storetest: Config.Stop and Config.Start go together")
	}
	if cfg.Recover == 0 {
		cfg.Recover = 20 * time.Second
	}
	for _, c := range []struct {
		name string
		run  func(t *testing.T, s nodeid.Store, cfg Config)
	}{
		{"Contention", contention},
		{"Ranges", ranges},
		{"Tokens", tokens},
		{"Reservations", reservations},
		{"Release", release},
		{"BadArguments", badArguments},
		{"Expiry", expiry},
		{"Zombie", zombie},
		{"Restart", restart},
		{"Lease", lease},
	} {
		t.Run(c.name, func(t *testing.T) {
			switch {
			case (c.name == "Expiry" || c.name == "Zombie") && cfg.Expire == nil:
				t.Skip("storetest: Config.Expire is not set: this store's holds do not expire")
			case c.name == "Restart" && cfg.Stop == nil:
				t.Skip("storetest: Config.Stop and Config.Start are not set: this store cannot be taken away and brought back here")
			}
			c.run(t, open(t), cfg)
		})
	}
}

func ctxFor(t *testing.T, d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}

// acquire takes count ids among 0..maxNode and fails t unless the claim
// is on first.. (first -1: anywhere). The claim is released when the test
// ends, if it still holds anything then; errors of that release are
// ignored (a lost claim's is one).
func acquire(t *testing.T, s nodeid.Store, count, maxNode, first int) nodeid.Claim {
	t.Helper()
	c, err := s.Acquire(ctxFor(t, opTimeout), count, maxNode)
	if err != nil {
		t.Fatalf("Acquire(%d, %d): %v", count, maxNode, err)
	}
	t.Cleanup(func() { _ = c.Release(context.Background(), c.Floor()) })
	checkShape(t, c, count, maxNode)
	if first >= 0 && c.First() != first {
		t.Fatalf("Acquire(%d, %d): ids %d.., want %d.. (the only free ones)", count, maxNode, c.First(), first)
	}
	return c
}

func checkShape(t *testing.T, c nodeid.Claim, count, maxNode int) {
	t.Helper()
	if c.Count() != count || c.First() < 0 || c.First()+count-1 > maxNode {
		t.Fatalf("Acquire(%d, %d): a claim on ids %d..%d", count, maxNode, c.First(), c.First()+c.Count()-1)
	}
}

// refused fails t unless Acquire(count, maxNode) fails with ErrNoFreeNode.
func refused(t *testing.T, s nodeid.Store, count, maxNode int, why string) {
	t.Helper()
	c, err := s.Acquire(ctxFor(t, opTimeout), count, maxNode)
	if err == nil {
		_ = c.Release(context.Background(), c.Floor())
		t.Fatalf("Acquire(%d, %d) took ids %d..%d; want nodeid.ErrNoFreeNode: %s", count, maxNode, c.First(), c.First()+c.Count()-1, why)
	}
	if !errors.Is(err, nodeid.ErrNoFreeNode) {
		t.Fatalf("Acquire(%d, %d): %v; want nodeid.ErrNoFreeNode: %s", count, maxNode, err, why)
	}
}

func reserve(t *testing.T, c nodeid.Claim, until int64) {
	t.Helper()
	if err := c.Reserve(ctxFor(t, opTimeout), until); err != nil {
		t.Fatalf("Reserve(%d) on ids %d..%d: %v", until, c.First(), c.First()+c.Count()-1, err)
	}
}

func releaseAt(t *testing.T, c nodeid.Claim, until int64) {
	t.Helper()
	if err := c.Release(ctxFor(t, opTimeout), until); err != nil {
		t.Fatalf("Release(%d) on ids %d..%d: %v", until, c.First(), c.First()+c.Count()-1, err)
	}
}

func isLost(c nodeid.Claim) bool {
	select {
	case <-c.Lost():
		return true
	default:
		return false
	}
}

func wantFloor(t *testing.T, c nodeid.Claim, floor int64, why string) {
	t.Helper()
	if c.Floor() != floor {
		t.Fatalf("ids %d..%d: Floor %d, want %d: %s", c.First(), c.First()+c.Count()-1, c.Floor(), floor, why)
	}
}

func wantTokenAbove(t *testing.T, c nodeid.Claim, prev ...nodeid.Claim) {
	t.Helper()
	for _, p := range prev {
		if c.Token() <= p.Token() {
			t.Fatalf("ids %d..%d: Token %d, want above %d (an earlier holder's of ids %d..%d)",
				c.First(), c.First()+c.Count()-1, c.Token(), p.Token(), p.First(), p.First()+p.Count()-1)
		}
	}
}

// base is a reserved-until value like a lease's: the clock now. The suite
// only compares reservations, so any value would do.
func base() int64 { return time.Now().UnixNano() }

// contention: 16 goroutines take one id each of 8, then 12 take two ids
// each of 8; no id goes to two claims, those refused get ErrNoFreeNode,
// and no run of free ids is left that the store would still hand out.
func contention(t *testing.T, s nodeid.Store, _ Config) {
	const maxNode = 7
	for _, tc := range []struct{ contenders, count int }{{16, 1}, {12, 2}} {
		claims := make([]nodeid.Claim, tc.contenders)
		errs := make([]error, tc.contenders)
		start := make(chan struct{})
		var wg sync.WaitGroup
		for i := range tc.contenders {
			wg.Go(func() {
				<-start
				claims[i], errs[i] = s.Acquire(ctxFor(t, opTimeout), tc.count, maxNode)
			})
		}
		close(start)
		wg.Wait()
		held := map[int]int{} // id: the contender holding it
		var got []nodeid.Claim
		for i, c := range claims {
			if errs[i] != nil {
				if !errors.Is(errs[i], nodeid.ErrNoFreeNode) {
					t.Errorf("contender %d of %d taking %d ids: %v; want a claim or nodeid.ErrNoFreeNode", i, tc.contenders, tc.count, errs[i])
				}
				continue
			}
			got = append(got, c)
			t.Cleanup(func() { _ = c.Release(context.Background(), c.Floor()) })
			checkShape(t, c, tc.count, maxNode)
			for n := c.First(); n < c.First()+c.Count(); n++ {
				if other, dup := held[n]; dup {
					t.Fatalf("id %d handed to contenders %d and %d at once", n, other, i)
				}
				held[n] = i
			}
		}
		if t.Failed() {
			return
		}
		if tc.count == 1 && len(got) != maxNode+1 {
			t.Fatalf("%d contenders for %d ids: %d got one, want every id taken", tc.contenders, maxNode+1, len(got))
		}
		if n := freeRun(held, maxNode, tc.count); n >= 0 {
			t.Fatalf("%d contenders for %d ids each: %d refused while ids %d..%d stayed free",
				tc.contenders, tc.count, tc.contenders-len(got), n, n+tc.count-1)
		}
		refused(t, s, tc.count, maxNode, "every run of free ids is held")
		t.Logf("%d contenders for %d of ids 0..%d each: %d claims, %d refused with ErrNoFreeNode",
			tc.contenders, tc.count, maxNode, len(got), tc.contenders-len(got))

		// A released claim's ids go to the next acquirer.
		releaseAt(t, got[0], got[0].Floor())
		for n := got[0].First(); n < got[0].First()+tc.count; n++ {
			delete(held, n)
		}
		c := acquire(t, s, tc.count, maxNode, -1)
		for n := c.First(); n < c.First()+tc.count; n++ {
			if other, ok := held[n]; ok {
				t.Fatalf("after a release, id %d handed out again while contender %d holds it", n, other)
			}
		}
		// Leave the store empty for the next round.
		releaseAt(t, c, c.Floor())
		for _, c := range got[1:] {
			releaseAt(t, c, c.Floor())
		}
	}
}

// freeRun is the first id of a run of count ids among 0..maxNode that
// held does not have, or -1.
func freeRun(held map[int]int, maxNode, count int) int {
	run := 0
	for n := 0; n <= maxNode; n++ {
		if _, ok := held[n]; ok {
			run = 0
			continue
		}
		if run++; run == count {
			return n - count + 1
		}
	}
	return -1
}

// ranges: a claim of several ids fits only where the whole run is free;
// its floor is the latest reservation over its ids and its token is above
// every one's earlier holders'; its Reserve and Release write each id.
func ranges(t *testing.T, s nodeid.Store, _ Config) {
	a := acquire(t, s, 1, 0, 0)
	b := acquire(t, s, 2, 2, 1) // 0 is held: 1..2 is the only run of two in 0..2
	refused(t, s, 1, 2, "ids 0..2 are held")
	refused(t, s, 2, 3, "only id 3 of 0..3 is free")
	d := acquire(t, s, 1, 3, 3)
	releaseAt(t, d, d.Floor())
	releaseAt(t, a, a.Floor())
	refused(t, s, 2, 2, "only id 0 of 0..2 is free")
	releaseAt(t, b, b.Floor())

	// Earlier holders of 0 and 1 leave different reservations.
	r := base()
	h0 := acquire(t, s, 1, 0, 0)
	h1 := acquire(t, s, 1, 1, 1)
	reserve(t, h0, r+1e9)
	reserve(t, h1, r+2e9)
	releaseAt(t, h0, r+1e9)
	releaseAt(t, h1, r+2e9)
	both := acquire(t, s, 2, 1, 0)
	wantFloor(t, both, r+2e9, "a range's floor is the latest reserved-until over its ids")
	wantTokenAbove(t, both, h0, h1, a, b)
	reserve(t, both, r+3e9)
	releaseAt(t, both, r+3e9)
	for range 2 {
		c := acquire(t, s, 1, 1, -1)
		wantFloor(t, c, r+3e9, fmt.Sprintf("id %d after a range's Release stored it for each of its ids", c.First()))
		wantTokenAbove(t, c, both)
	}
}

// tokens: each new holder of an id gets a larger token; the first holder
// of an id never held has floor 0.
func tokens(t *testing.T, s nodeid.Store, _ Config) {
	var prev []nodeid.Claim
	for i := range 4 {
		c := acquire(t, s, 1, 0, 0)
		if i == 0 {
			wantFloor(t, c, 0, "id 0 was never held")
		}
		wantTokenAbove(t, c, prev...)
		releaseAt(t, c, c.Floor())
		prev = append(prev, c)
	}
	t.Logf("four holders of id 0 in turn: tokens %d, %d, %d, %d", prev[0].Token(), prev[1].Token(), prev[2].Token(), prev[3].Token())
}

// reservations: what Release stores outlives the holder and is the next
// holder's floor: below the last Reserve when the holder says it used
// less, never below what the holder found.
func reservations(t *testing.T, s nodeid.Store, _ Config) {
	r := base()
	a := acquire(t, s, 1, 0, 0)
	reserve(t, a, r+2e9)
	releaseAt(t, a, r+1e9)
	b := acquire(t, s, 1, 0, 0)
	wantFloor(t, b, r+1e9, "Release stores the reserved-until it is given, below the last Reserve too")
	releaseAt(t, b, r) // below its floor
	c := acquire(t, s, 1, 0, 0)
	wantFloor(t, c, r+1e9, "Release never stores less than the holder's floor")
	releaseAt(t, c, c.Floor()) // a holder that used nothing
	d := acquire(t, s, 1, 0, 0)
	wantFloor(t, d, r+1e9, "a holder that used nothing leaves the reservation as it found it")
	releaseAt(t, d, d.Floor())
}

// release: frees the ids, is no loss, and a released claim can no longer
// reserve: its Reserve fails with ErrLost and stores nothing.
func release(t *testing.T, s nodeid.Store, _ Config) {
	r := base()
	a := acquire(t, s, 3, 2, 0)
	releaseAt(t, a, r)
	if isLost(a) {
		t.Fatal("Lost closed by Release: a release is not a loss")
	}
	err := a.Reserve(ctxFor(t, opTimeout), r+1e9)
	if !errors.Is(err, nodeid.ErrLost) {
		t.Fatalf("Reserve after Release: %v, want nodeid.ErrLost", err)
	}
	seen := map[int]bool{}
	for range 3 {
		c := acquire(t, s, 1, 2, -1)
		if seen[c.First()] {
			t.Fatalf("id %d handed out twice", c.First())
		}
		seen[c.First()] = true
		wantFloor(t, c, r, fmt.Sprintf("id %d: the released claim's Reserve stored nothing", c.First()))
		wantTokenAbove(t, c, a)
	}
}

// badArguments: counts and ranges no claim can satisfy, and a canceled
// context, are errors, never ErrNoFreeNode, and leave nothing held.
func badArguments(t *testing.T, s nodeid.Store, _ Config) {
	for _, a := range []struct{ count, maxNode int }{{0, 7}, {-1, 7}, {1, -1}, {9, 7}} {
		c, err := s.Acquire(ctxFor(t, opTimeout), a.count, a.maxNode)
		if err == nil {
			_ = c.Release(context.Background(), c.Floor())
			t.Fatalf("Acquire(%d, %d) gave ids %d..%d; want an error", a.count, a.maxNode, c.First(), c.First()+c.Count()-1)
		}
		if errors.Is(err, nodeid.ErrNoFreeNode) {
			t.Errorf("Acquire(%d, %d): %v; want an error that is not nodeid.ErrNoFreeNode: no claim could ever satisfy it", a.count, a.maxNode, err)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	c, err := s.Acquire(ctx, 1, 7)
	if err == nil {
		_ = c.Release(context.Background(), c.Floor())
		t.Fatal("Acquire with a canceled context took an id")
	}
	if !errors.Is(err, context.Canceled) {
		t.Errorf("Acquire with a canceled context: %v; want an error wrapping context.Canceled", err)
	}
	acquire(t, s, 8, 7, 0) // nothing was left held
}

// expiry: a holder that keeps renewing is kept past its TTL; one that
// stops loses its ids, and its last reservation, the highest it stored,
// outlives it as the successor's floor.
func expiry(t *testing.T, s nodeid.Store, cfg Config) {
	a := acquire(t, s, 1, 0, 0)
	if cfg.TTL > 0 {
		// The TTL must pass for the check to mean anything: what is
		// checked after is that the store's renewal kept the hold.
		time.Sleep(cfg.TTL * 3 / 2)
		if isLost(a) {
			t.Fatalf("a holder renewing its hold lost it within 1.5 TTL (%v)", cfg.TTL*3/2)
		}
		refused(t, s, 1, 0, "a holder renewing its hold keeps it past its TTL")
	}
	r := base()
	reserve(t, a, r+2e9)
	reserve(t, a, r+1e9) // a reservation only moves forward
	refused(t, s, 1, 0, "id 0 is held")
	cfg.Expire(t, a)
	b := acquire(t, s, 1, 0, 0)
	wantFloor(t, b, r+2e9, "the expired holder's reservation outlives it (its highest: Reserve only moves it forward)")
	wantTokenAbove(t, b, a)
	releaseAt(t, b, b.Floor())
}

// zombie: a holder whose id was taken over after it expired is refused
// every write, and what it tried to write reaches neither the successor
// nor the next holder.
func zombie(t *testing.T, s nodeid.Store, cfg Config) {
	r := base()
	a := acquire(t, s, 2, 1, 0)
	reserve(t, a, r+1e9)
	cfg.Expire(t, a)
	b := acquire(t, s, 2, 1, 0)
	wantFloor(t, b, r+1e9, "the expired holder's reservation")
	wantTokenAbove(t, b, a)

	if err := a.Reserve(ctxFor(t, opTimeout), r+3600e9); !errors.Is(err, nodeid.ErrLost) {
		t.Fatalf("the zombie's Reserve after a successor took its ids: %v, want nodeid.ErrLost", err)
	}
	select {
	case <-a.Lost():
	case <-time.After(opTimeout):
		t.Fatal("the zombie's Lost is still open after the store refused its Reserve")
	}
	if err := a.Release(ctxFor(t, opTimeout), r+7200e9); !errors.Is(err, nodeid.ErrLost) {
		t.Fatalf("the zombie's Release after a successor took its ids: %v, want nodeid.ErrLost", err)
	}
	refused(t, s, 1, 1, "the zombie's Release must not free its successor's ids")
	if isLost(b) {
		t.Fatal("the successor's Lost closed after the zombie's writes")
	}
	reserve(t, b, r+2e9)
	releaseAt(t, b, r+2e9)
	c := acquire(t, s, 2, 1, 0)
	wantFloor(t, c, r+2e9, "the successor's reservation, not the zombie's")
	wantTokenAbove(t, c, b)
}

// restart: the store goes away while a claim is held and comes back. The
// holder's writes fail meanwhile, bounded by their context and not as a
// loss; afterwards it goes on holding the same ids with the same token.
func restart(t *testing.T, s nodeid.Store, cfg Config) {
	r := base()
	a := acquire(t, s, 1, 0, 0)
	reserve(t, a, r+1e9)
	cfg.Stop(t)
	started := false
	t.Cleanup(func() {
		if !started {
			cfg.Start(t)
		}
	})

	const bound = 3 * time.Second
	begin := time.Now()
	err := a.Reserve(ctxFor(t, bound), r+2e9)
	took := time.Since(begin)
	switch {
	case err == nil:
		t.Fatal("Reserve succeeded with the store stopped")
	case errors.Is(err, nodeid.ErrLost):
		t.Fatalf("Reserve with the store stopped: %v; a store that is away is no loss", err)
	case took > bound+5*time.Second:
		t.Fatalf("Reserve with the store stopped returned after %v, its context ended after %v", took, bound)
	}
	t.Logf("Reserve with the store stopped: %v (after %v)", err, took.Round(time.Millisecond))
	c, err := s.Acquire(ctxFor(t, bound), 1, 1)
	if err == nil {
		_ = c.Release(context.Background(), c.Floor())
		t.Fatal("Acquire succeeded with the store stopped")
	}
	if errors.Is(err, nodeid.ErrNoFreeNode) {
		t.Fatalf("Acquire with the store stopped: %v; the store did not say every id is held", err)
	}

	cfg.Start(t)
	started = true
	deadline := time.Now().Add(cfg.Recover)
	for {
		err := a.Reserve(ctxFor(t, bound), r+2e9)
		if err == nil {
			break
		}
		if errors.Is(err, nodeid.ErrLost) || time.Now().After(deadline) {
			t.Fatalf("Reserve after the store came back: %v (within %v of Start)", err, cfg.Recover)
		}
		time.Sleep(50 * time.Millisecond)
	}
	if isLost(a) {
		t.Fatal("the holder's Lost closed across the restart")
	}
	refused(t, s, 1, 0, "the holder keeps id 0 across the restart")
	releaseAt(t, a, r+2e9)
	b := acquire(t, s, 1, 0, 0)
	wantFloor(t, b, r+2e9, "the reservation stored after the restart")
	wantTokenAbove(t, b, a)
}

// lease: a nodeid.Lease over the store reserves ahead and refreshes
// through Reserve; its Release hands the next lease the end of the last
// tick used as its floor.
func lease(t *testing.T, s nodeid.Store, _ Config) {
	opts := nodeid.Options{Window: 300 * time.Millisecond, Refresh: 50 * time.Millisecond}
	l, err := nodeid.Acquire(ctxFor(t, opTimeout), s, opts)
	if err != nil {
		t.Fatalf("nodeid.Acquire: %v", err)
	}
	t.Cleanup(func() { _ = l.Release(context.Background()) })
	first := l.Fence().Until()
	deadline := time.Now().Add(opTimeout)
	for l.Fence().Until() == first {
		if time.Now().After(deadline) {
			t.Fatalf("the lease's refresher did not move its reservation within %v: %v", opTimeout, l.Err())
		}
		time.Sleep(5 * time.Millisecond)
	}
	gen, err := atomicgen.New(l.Config(snowlab.Config{}))
	if err != nil {
		t.Fatalf("a generator on the lease: %v", err)
	}
	var last snowlab.ID
	for i := 0; i < 1000; {
		id, err := gen.NextID()
		if errors.Is(err, snowlab.ErrNoReservation) && time.Now().Before(deadline) {
			// A stall past the window on a loaded host: the refresher
			// moves the fence on.
			time.Sleep(time.Millisecond)
			continue
		}
		if err != nil {
			t.Fatalf("NextID %d: %v", i, err)
		}
		last, i = id, i+1
	}
	if err := l.Release(ctxFor(t, opTimeout)); err != nil {
		t.Fatalf("Release: %v", err)
	}
	// The next lease takes the same id only once the clock has passed its
	// floor (otherwise it prefers a fresh one): at most one tick.
	end := snowlab.DefaultLayout.Decode(last).Time.Add(snowlab.DefaultLayout.Unit).UnixNano()
	for clocksrc.Default().UnixNano() <= end {
		time.Sleep(100 * time.Microsecond)
	}
	next, err := nodeid.Acquire(ctxFor(t, opTimeout), s, opts)
	if err != nil {
		t.Fatalf("nodeid.Acquire after a release: %v", err)
	}
	t.Cleanup(func() { _ = next.Release(context.Background()) })
	if next.Node() != l.Node() || next.Fence().Floor() != end {
		t.Fatalf("the next lease: node %d with floor %d; want node %d with floor %d, the end of the last tick used", next.Node(), next.Fence().Floor(), l.Node(), end)
	}
	if next.Token() <= l.Token() {
		t.Fatalf("the next lease's token %d, want above %d", next.Token(), l.Token())
	}
}
