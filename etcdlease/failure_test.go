//go:build !windows

// The failure tests freeze and kill holder processes with Unix signals.

package etcdlease

import (
	"context"
	"errors"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/snowlab/snowlab"
	"github.com/snowlab/snowlab/atomicgen"
	"github.com/snowlab/snowlab/nodeid"
)

// idTime is the start of an ID's tick in the default layout.
func idTime(id snowlab.ID) time.Time { return snowlab.DefaultLayout.Decode(id).Time }

// checkUnique fails the test if any ID repeats across the sets.
func checkUnique(t *testing.T, sets ...[]snowlab.ID) int {
	t.Helper()
	seen := make(map[snowlab.ID]bool)
	for _, ids := range sets {
		for _, id := range ids {
			if seen[id] {
				t.Fatalf("ID %d (%v) issued twice", id, snowlab.DefaultLayout.Decode(id))
			}
			seen[id] = true
		}
	}
	return len(seen)
}

// TestTwoProcessesGetDifferentIDsAndTheRestFills: two processes acquiring
// from the same etcd hold different node ids; with those and 1,022 more
// held, the 1,025th acquirer gets nodeid.ErrNoFreeSlot; when one process
// releases, its id is free again, its reservation untouched by a holder
// that minted nothing.
func TestTwoProcessesGetDifferentIDsAndTheRestFills(t *testing.T) {
	eps := endpoints(t)
	st, p := dial(t, eps)
	a := startChild(t, "holder A", "hold", eps, p, 1023, 0)
	b := startChild(t, "holder B", "hold", eps, p, 1023, 0)
	a.waitIDs(0, 10*time.Second)
	b.waitIDs(0, 10*time.Second)
	na, _, _ := a.snapshot()
	nb, _, _ := b.snapshot()
	if na == nb {
		t.Fatalf("both processes hold node id %d", na)
	}
	t.Logf("process A holds %d, process B holds %d", na, nb)

	// Fill the other 1,022 ids, 64 per claim (one transaction each).
	var fill []nodeid.Claim
	defer func() {
		for _, c := range fill {
			_ = c.Release(context.Background(), 0)
		}
	}()
	for held := 2; held < 1024; {
		c, err := st.Acquire(ctxT(t), min(MaxCount, 1024-held), 1023)
		if err != nil {
			t.Fatalf("with %d ids held: %v", held, err)
		}
		fill = append(fill, c)
		held += c.Count()
	}
	_, err := st.Acquire(ctxT(t), 1, 1023)
	if !errors.Is(err, nodeid.ErrNoFreeSlot) {
		t.Fatalf("the 1,025th acquirer got %v, want ErrNoFreeSlot", err)
	}
	t.Logf("the 1,025th acquirer: %v", err)
	if _, err := nodeid.Acquire(ctxT(t), st, leaseOptions()); !errors.Is(err, nodeid.ErrNoFreeSlot) {
		t.Fatalf("nodeid.Acquire with all ids held = %v, want ErrNoFreeSlot", err)
	}

	// B releases (stdin closed): its id is the only free one.
	_ = b.in.Close()
	if code := b.wait(10 * time.Second); code != exitOK {
		t.Fatalf("holder B exited %d\n%s", code, b.tail())
	}
	c, err := st.Acquire(ctxT(t), 1, 1023)
	if err != nil {
		t.Fatal(err)
	}
	fill = append(fill, c)
	// B minted nothing, so its release left the reservation as B found
	// it (never held: 0) instead of pushing it forward.
	if c.First() != nb || c.Floor() != 0 || c.Token() <= b.token {
		t.Fatalf("after B released: took %d floor %d token %d, want %d, floor 0 (B minted nothing), a token above B's %d", c.First(), c.Floor(), c.Token(), nb, b.token)
	}
	a.signal(syscall.SIGTERM)
	if code := a.wait(10 * time.Second); code != exitOK {
		t.Fatalf("holder A exited %d\n%s", code, a.tail())
	}
}

// TestZombieFrozenPastTTL: a holder frozen (SIGSTOP) past its TTL while a
// second process takes its node id and mints; resumed (SIGCONT), the first
// refuses to mint (ErrNoReservation) and learns it lost the lease. No ID
// repeats and the two holders' time ranges do not overlap.
func TestZombieFrozenPastTTL(t *testing.T) {
	eps := endpoints(t)
	_, p := dial(t, eps)
	a := startChild(t, "holder A", "mint", eps, p, 0, 0)
	a.waitIDs(200, 15*time.Second)
	a.signal(syscall.SIGSTOP)
	stopped := time.Now()
	defer func() { _ = a.cmd.Process.Signal(syscall.SIGCONT) }()

	b := startChild(t, "holder B", "mint", eps, p, 0, 15*time.Second)
	b.waitIDs(200, 20*time.Second)
	tookOver := time.Since(stopped)
	a.signal(syscall.SIGCONT)
	resumed := time.Now()
	code := a.wait(10 * time.Second)
	refusedAfter := time.Since(resumed)
	b.signal(syscall.SIGTERM)
	if code := b.wait(10 * time.Second); code != exitOK {
		t.Fatalf("holder B exited %d\n%s", code, b.tail())
	}

	_, idsA, errsA := a.snapshot()
	_, idsB, _ := b.snapshot()
	t.Logf("B took node %d over %v after A froze (token %d > %d); A printed %d IDs, B %d; A refused %v after resuming: %v; %s",
		b.node, tookOver.Round(time.Millisecond), b.token, a.token, len(idsA), len(idsB), refusedAfter.Round(time.Millisecond), errsA, a.lost)
	if a.node != b.node || b.token <= a.token {
		t.Fatalf("B holds node %d token %d, A held %d token %d: want the same id, a larger token", b.node, b.token, a.node, a.token)
	}
	if code != exitNoReservation || len(errsA) != 1 || !strings.Contains(errsA[0], snowlab.ErrNoReservation.Error()) {
		t.Fatalf("resumed holder exited %d with %v, want %d and ErrNoReservation\n%s", code, errsA, exitNoReservation, a.tail())
	}
	if !strings.HasPrefix(a.lost, "LOST") {
		t.Fatalf("resumed holder did not learn it lost the lease: %q", a.lost)
	}
	checkUnique(t, idsA, idsB)
	lastA, firstB := slices.Max(idsA), slices.Min(idsB)
	if !idTime(lastA).Before(idTime(firstB)) {
		t.Fatalf("time ranges overlap: A's last ID at %v, B's first at %v", idTime(lastA), idTime(firstB))
	}
	// Nothing after resuming: A's last ID is from before it froze (give or
	// take the signal's delivery and the two processes' clocks), seconds
	// before it was resumed.
	if idTime(lastA).After(stopped.Add(20 * time.Millisecond)) {
		t.Fatalf("A minted an ID at %v: it was frozen at %v and resumed at %v", idTime(lastA), stopped, resumed)
	}
	if floor := time.Unix(0, b.floor); idTime(firstB).Before(floor) || idTime(lastA).Add(time.Millisecond).After(floor) {
		t.Fatalf("B's floor %v (A's reservation) does not separate A's last ID %v from B's first %v", floor, idTime(lastA), idTime(firstB))
	}
}

// TestCrashAndRestart: a holder killed with SIGKILL while minting; a new
// process on the same store takes the node id once the lease expires, and
// every ID it mints is greater than every ID the dead one printed.
func TestCrashAndRestart(t *testing.T) {
	eps := endpoints(t)
	_, p := dial(t, eps)
	a := startChild(t, "holder A", "mint", eps, p, 0, 0)
	a.waitIDs(300, 15*time.Second)
	a.signal(syscall.SIGKILL)
	killed := time.Now()
	if code := a.wait(5 * time.Second); code != -1 {
		t.Fatalf("killed holder exited with %d", code)
	}
	b := startChild(t, "holder B", "mint", eps, p, 0, 15*time.Second)
	b.waitIDs(300, 20*time.Second)
	b.signal(syscall.SIGTERM)
	if code := b.wait(10 * time.Second); code != exitOK {
		t.Fatalf("holder B exited %d\n%s", code, b.tail())
	}
	_, idsA, _ := a.snapshot()
	_, idsB, _ := b.snapshot()
	t.Logf("A printed %d IDs before SIGKILL; B took node %d (floor %v, %v after A's last ID) %v after the kill and printed %d",
		len(idsA), b.node, time.Unix(0, b.floor).UTC(), time.Unix(0, b.floor).Sub(idTime(slices.Max(idsA))), time.Since(killed).Round(time.Millisecond), len(idsB))
	checkUnique(t, idsA, idsB)
	if lastA, firstB := slices.Max(idsA), slices.Min(idsB); firstB <= lastA {
		t.Fatalf("B's first ID %d (%v) is not above A's last %d (%v)", firstB, idTime(firstB), lastA, idTime(lastA))
	}
	if b.node != a.node || time.Unix(0, b.floor).Before(idTime(slices.Max(idsA)).Add(time.Millisecond)) {
		t.Fatalf("B: node %d floor %v; want A's node %d and a floor after A's last ID", b.node, time.Unix(0, b.floor), a.node)
	}
}

// TestClockBehindReservation: the stored reserved-until of a node id is
// ahead of the new holder's clock; the generator waits for the clock to
// pass it, or refuses with ErrClockBackwards when it is further ahead than
// Config.MaxFloorWait.
func TestClockBehindReservation(t *testing.T) {
	st, _ := dial(t, endpoints(t))
	one := slotLimit{st, 0}

	ahead := time.Now().Add(1500 * time.Millisecond).UnixNano()
	if _, err := st.cli.Put(ctxT(t), st.reservedKey(0), itoa(ahead)); err != nil {
		t.Fatal(err)
	}
	lease, err := nodeid.Acquire(ctxT(t), one, leaseOptions())
	if err != nil {
		t.Fatal(err)
	}
	if lease.Fence().Floor() != ahead {
		t.Fatalf("floor %d, want the stored reserved-until %d", lease.Fence().Floor(), ahead)
	}
	start := time.Now()
	gen, err := atomicgen.New(lease.Config(snowlab.Config{MaxFloorWait: 5 * time.Second}))
	if err != nil {
		t.Fatal(err)
	}
	waited := time.Since(start)
	id, err := gen.NextID()
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("waited %v for the clock to pass the previous reservation; first ID at %v", waited.Round(time.Millisecond), idTime(id))
	if idTime(id).Before(time.Unix(0, ahead)) || waited < time.Second {
		t.Fatalf("first ID at %v after waiting %v; want at or after the floor %v", idTime(id), waited, time.Unix(0, ahead))
	}
	if err := lease.Release(ctxT(t)); err != nil {
		t.Fatal(err)
	}

	far := time.Now().Add(time.Hour).UnixNano()
	if _, err := st.cli.Put(ctxT(t), st.reservedKey(0), itoa(far)); err != nil {
		t.Fatal(err)
	}
	lease, err = nodeid.Acquire(ctxT(t), one, leaseOptions())
	if err != nil {
		t.Fatal(err)
	}
	defer lease.Release(context.Background())
	start = time.Now()
	_, err = atomicgen.New(lease.Config(snowlab.Config{MaxFloorWait: 2 * time.Second}))
	if !errors.Is(err, snowlab.ErrClockBackwards) || time.Since(start) > 500*time.Millisecond {
		t.Fatalf("with the reservation an hour ahead: %v after %v, want ErrClockBackwards at once", err, time.Since(start))
	}
	t.Logf("an hour behind: %v", err)
}

// TestStoreUnreachable: etcd stops while a holder mints. Minting goes on up
// to the last durable reservation, then stops with ErrNoReservation; the
// outage outlasts the TTL, so the client's keep-alive channel closes, which
// must not count as a loss; etcd restarts on the same data and ports and
// minting resumes under the same lease. No ID repeats.
func TestStoreUnreachable(t *testing.T) {
	srv := ownServer(t)
	st, _ := dial(t, srv.Endpoints())
	rec := &recorder{Store: st}
	lease, err := nodeid.Acquire(ctxT(t), rec, leaseOptions())
	if err != nil {
		t.Fatal(err)
	}
	defer lease.Release(context.Background())
	c := rec.claims[0]
	gen, err := atomicgen.New(lease.Config(snowlab.Config{}))
	if err != nil {
		t.Fatal(err)
	}
	var ids []snowlab.ID
	mint := func(d time.Duration) (stopErr error) {
		end := time.Now().Add(d)
		for time.Now().Before(end) {
			id, err := gen.NextID()
			if err != nil {
				return err
			}
			ids = append(ids, id)
			time.Sleep(100 * time.Microsecond)
		}
		return nil
	}
	if err := mint(500 * time.Millisecond); err != nil {
		t.Fatal(err)
	}
	before := len(ids)

	srv.Stop()
	down := time.Now()
	err = mint(5 * time.Second)
	stoppedAt := time.Now()
	if !errors.Is(err, snowlab.ErrNoReservation) {
		t.Fatalf("with etcd down, minting ended with %v, want ErrNoReservation", err)
	}
	// The last reservation etcd stored before it stopped: nothing can
	// extend the fence while it is down.
	durable := lease.Fence().Until()
	last := ids[len(ids)-1]
	if end := idTime(last).Add(time.Millisecond); end.After(time.Unix(0, durable)) {
		t.Fatalf("an ID's tick ends at %v, after the last durable reservation %v", end, time.Unix(0, durable))
	}
	if !idTime(last).After(down) {
		t.Fatalf("nothing was minted after etcd stopped (at %v; last ID at %v): the holder should mint up to its reservation", down, idTime(last))
	}
	// It stopped at the reservation's end: within the last tick before it,
	// and not much after.
	if late := stoppedAt.Sub(time.Unix(0, durable)); late < -time.Millisecond || late > 100*time.Millisecond {
		t.Fatalf("minting stopped %v after the reservation's end", late)
	}
	t.Logf("etcd down: minted %d more IDs for %v, up to the reservation's end (last ID at %v, reservation %v): %v",
		len(ids)-before, stoppedAt.Sub(down).Round(time.Millisecond), idTime(last), time.Unix(0, durable).UTC(), err)

	// Stay down past the TTL: the keep-alive channel closes.
	time.Sleep(time.Until(down.Add(testTTL + 1500*time.Millisecond)))
	if _, err := gen.NextID(); !errors.Is(err, snowlab.ErrNoReservation) {
		t.Fatalf("still down: NextID = %v, want ErrNoReservation", err)
	}
	if err := srv.Restart(); err != nil {
		t.Fatal(err)
	}
	up := time.Now()
	resumed := time.Time{}
	for deadline := up.Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if id, err := gen.NextID(); err == nil {
			ids = append(ids, id)
			resumed = time.Now()
			break
		}
	}
	if resumed.IsZero() {
		t.Fatalf("minting did not resume within 10 s of etcd's restart: %v", lease.Err())
	}
	if err := mint(500 * time.Millisecond); err != nil {
		t.Fatal(err)
	}
	select {
	case <-lease.Lost():
		t.Fatalf("the outage was taken for a loss: %v", lease.Err())
	default:
	}
	if n := c.keepAlives.Load(); n < 2 {
		t.Fatalf("the keep-alive was started %d times: the outage did not close its channel", n)
	}
	_, rev, ok := stored(t, st, st.nodeKey(c.First()))
	if !ok || rev != c.Token() {
		t.Fatalf("after the outage the node key is present %v with create revision %d, want token %d", ok, rev, c.Token())
	}
	n := checkUnique(t, ids)
	if !slices.IsSorted(ids) {
		t.Fatal("IDs are not increasing across the outage")
	}
	t.Logf("etcd down %v (keep-alive channel closed and restarted: %d keep-alives); minting resumed %v after its restart under the same lease; %d IDs, none repeated",
		up.Sub(down).Round(time.Millisecond), c.keepAlives.Load(), resumed.Sub(up).Round(time.Millisecond), n)
}

func itoa(v int64) string { return strconv.FormatInt(v, 10) }

// recorder keeps the claims a store hands out.
type recorder struct {
	nodeid.Store
	claims []*claim
}

func (r *recorder) Acquire(ctx context.Context, count, maxNode int) (nodeid.Claim, error) {
	c, err := r.Store.Acquire(ctx, count, maxNode)
	if err == nil {
		r.claims = append(r.claims, c.(*claim))
	}
	return c, err
}
