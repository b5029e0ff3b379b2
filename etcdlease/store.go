package etcdlease

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"go.etcd.io/etcd/api/v3/v3rpc/rpctypes"
	clientv3 "go.etcd.io/etcd/client/v3"
	"google.golang.org/grpc"
	"google.golang.org/grpc/backoff"

	"github.com/snowlab/snowlab"
	"github.com/snowlab/snowlab/nodeid"
)

const (
	// DefaultPrefix is the key prefix New uses for an empty prefix.
	DefaultPrefix = "/snowlab"
	// DefaultTTL is the etcd lease TTL New uses for a ttl of 0.
	DefaultTTL = 10 * time.Second
	// MinTTL is the shortest TTL granted: etcd refuses to expire a lease
	// sooner than about 1.5 election timeouts (2 s with its default timing)
	// and silently raises a shorter one, so New raises it the same way.
	MinTTL = 2 * time.Second
	// MaxCount is the most node ids one claim can hold. Acquire and Release
	// put two operations per node id in one transaction, and etcd refuses a
	// transaction with more than --max-txn-ops (default 128) operations in
	// a branch.
	MaxCount = 64
)

// Store is a nodeid.Store on etcd: see the package documentation for the
// keys it writes and how it fences a holder.
type Store struct {
	// cli is the client; nil until the first Acquire for a store dialled
	// with a password, which connect makes then.
	cliMu   sync.Mutex
	cli     *clientv3.Client
	connect func(context.Context) (*clientv3.Client, error)
	closed  bool

	prefix string
	ttl    time.Duration
	// reachTimeout bounds Acquire's first question to etcd: ReachTimeout,
	// shorter in tests of an etcd that does not answer.
	reachTimeout time.Duration

	// renewed, when set (ObserveRenewals), is told of every keep-alive
	// answer of every claim.
	renewed atomic.Pointer[func(Renewal)]
}

// A Renewal is one keep-alive answer etcd gave for a claim's etcd lease:
// the lease was alive when etcd renewed it, before Received, and it was
// granted TTL from then. Since is an instant before etcd renewed it: the
// start of the keep-alive, for its first answer; else the previous
// answer's arrival less the TTL (never before the start), assuming no
// answer reaches the holder more than a TTL after etcd sent it. (etcd
// renews in the order asked, so this renewal came after the previous
// answer's; but the client asks again whenever an answer is late, so it
// may answer a question asked before the previous answer arrived.)
type Renewal struct {
	First, Count    int
	Token           int64
	Since, Received time.Time
	TTL             time.Duration
}

// ObserveRenewals has f called with every keep-alive answer of every
// claim the store holds, on the goroutine that keeps the claim's lease
// alive (f must return at once). Renewals happen inside the store, unseen
// through nodeid.Store; this is for a history of the store's operations
// (snowidd's fault-injection build records one for the fault lab's
// Porcupine check). A nil f stops the calls.
func (s *Store) ObserveRenewals(f func(Renewal)) {
	if f == nil {
		s.renewed.Store(nil)
		return
	}
	s.renewed.Store(&f)
}

var _ nodeid.Store = (*Store)(nil)

// New returns a Store that keeps its keys under prefix (DefaultPrefix when
// empty; a trailing "/" is dropped) and grants each claim an etcd lease of
// ttl (DefaultTTL when 0, at least MinTTL, rounded up to whole seconds).
//
// The TTL is how long a crashed or frozen holder keeps its node ids from
// others; the reservation window (nodeid.Options.Window) is how long a
// successor then waits for the clock, and how long a holder cut off from
// etcd keeps minting. The client is used, not owned: close it after the
// leases acquired through the store are released. A client built for this
// should reconnect quickly after an outage (see Dial's dial options):
// with gRPC's default backoff a holder may wait up to two minutes after
// etcd is back before it refreshes its reservation again.
func New(client *clientv3.Client, prefix string, ttl time.Duration) nodeid.Store {
	return newStore(client, prefix, ttl)
}

func newStore(client *clientv3.Client, prefix string, ttl time.Duration) *Store {
	prefix = strings.TrimRight(prefix, "/")
	if prefix == "" {
		prefix = DefaultPrefix
	}
	if ttl == 0 {
		ttl = DefaultTTL
	}
	ttl = max(ttl, MinTTL)
	ttl = (ttl + time.Second - 1).Truncate(time.Second)
	return &Store{cli: client, prefix: prefix, ttl: ttl, reachTimeout: ReachTimeout}
}

// Dial connects to the etcd cluster at endpoints and returns a Store on it
// (as New) and the function that closes the connection. The connection
// retries with a backoff capped at one second, so a holder resumes
// soon after an etcd outage ends, and does not log. Dial does not wait for
// the cluster: the store's Acquire asks it for its status first, so that
// an etcd that is not there is one error wrapping ErrUnreachable, naming
// the endpoints, within ReachTimeout whatever the caller's context. A
// secured etcd takes DialWith.
func Dial(endpoints []string, prefix string, ttl time.Duration) (nodeid.Store, func() error, error) {
	return DialWith(endpoints, prefix, ttl, Credentials{})
}

// DialOptions are the gRPC options Dial adds to the client's: a reconnect
// backoff from 100 ms up to 1 s instead of gRPC's default of up to 120 s.
// Add them to clientv3.Config.DialOptions when building a client for New.
func DialOptions() []grpc.DialOption {
	return []grpc.DialOption{grpc.WithConnectParams(grpc.ConnectParams{
		Backoff:           backoff.Config{BaseDelay: 100 * time.Millisecond, Multiplier: 1.6, Jitter: 0.2, MaxDelay: time.Second},
		MinConnectTimeout: 2 * time.Second,
	})}
}

func (s *Store) nodeKey(n int) string     { return s.prefix + "/nodes/" + strconv.Itoa(n) }
func (s *Store) reservedKey(n int) string { return s.prefix + "/reserved/" + strconv.Itoa(n) }
func (s *Store) layoutKey() string        { return s.prefix + "/layout" }

// Acquire grants an etcd lease and takes count consecutive free node ids
// among 0..maxNode with one transaction per candidate range: it creates
// <prefix>/nodes/N for each N of the range, attached to the lease, only if
// none of them exists, and reads their <prefix>/reserved/N in the same
// transaction. The transaction's revision (the node keys' create revision)
// is the claim's fencing token. When every range is held it fails with
// nodeid.ErrNoFreeNode. Before all that it asks etcd for its status: when
// no endpoint answers within ReachTimeout it fails with ErrUnreachable,
// naming them, rather than waiting out ctx on requests that cannot be
// answered (the etcd client retries an unavailable cluster until the
// context ends, and then says only "context deadline exceeded").
func (s *Store) Acquire(ctx context.Context, layout snowlab.Layout, count, maxNode int) (nodeid.Claim, error) {
	return s.AcquireAt(ctx, layout, -1, count, maxNode)
}

var _ nodeid.Preferrer = (*Store)(nil)

// AcquireAt is Acquire trying the range first..first+count-1 before any
// other (nodeid.Preferrer): when it is not free, any free range is taken,
// as Acquire would. A first of -1, or one whose range does not fit in
// 0..maxNode, prefers none.
func (s *Store) AcquireAt(ctx context.Context, layout snowlab.Layout, first, count, maxNode int) (nodeid.Claim, error) {
	if err := checkCount(count, maxNode); err != nil {
		return nil, err
	}
	cli, err := s.client(ctx)
	if err != nil {
		return nil, err
	}
	if err := reach(ctx, cli, s.reachTimeout); err != nil {
		return nil, err
	}
	if err := s.pinLayout(ctx, cli, layout); err != nil {
		return nil, err
	}
	grant, err := cli.Grant(ctx, int64(s.ttl/time.Second))
	if err != nil {
		return nil, fmt.Errorf("etcdlease: grant a lease: %w", refusedAuth(err))
	}
	lease := grant.ID
	done := false
	defer func() {
		if !done {
			s.revoke(ctx, lease)
		}
	}()
	a := &attempt{
		s: s, cli: cli, lease: lease, count: count, maxNode: maxNode, held: map[int]bool{}, prefer: first,
		holder: fmt.Sprintf("lease=%x pid=%d host=%s", int64(lease), os.Getpid(), hostname()),
	}
	if err := a.list(ctx); err != nil {
		return nil, err
	}
	c, err := a.run(ctx)
	if err != nil {
		return nil, err
	}
	c.start()
	done = true
	return c, nil
}

// pinLayout records layout under <prefix>/layout when no layout is
// recorded there (a transaction that puts it only if the key was never
// created, else reads it), and compares it with the record (nodeid's
// Store contract).
func (s *Store) pinLayout(ctx context.Context, cli *clientv3.Client, layout snowlab.Layout) error {
	text, err := layout.MarshalText()
	if err != nil {
		return err
	}
	k := s.layoutKey()
	resp, err := cli.Txn(ctx).If(clientv3.Compare(clientv3.CreateRevision(k), "=", 0)).
		Then(clientv3.OpPut(k, string(text))).Else(clientv3.OpGet(k)).Commit()
	if err != nil {
		return fmt.Errorf("etcdlease: record the layout at %s: %w", k, refusedAuth(err))
	}
	if resp.Succeeded {
		return nil
	}
	kvs := resp.Responses[0].GetResponseRange().GetKvs()
	if len(kvs) == 0 {
		return fmt.Errorf("etcdlease: %s was deleted while it was read: try again", k)
	}
	return nodeid.CheckLayout("etcd key "+k, string(kvs[0].Value), layout)
}

// checkCount refuses a claim of count node ids among 0..maxNode that no
// range can hold, or that is larger than one transaction takes.
func checkCount(count, maxNode int) error {
	if count < 1 || maxNode < 0 || count > maxNode+1 {
		return fmt.Errorf("%w: etcdlease: %d node ids asked for among 0..%d", snowlab.ErrInvalidNode, count, maxNode)
	}
	if count > MaxCount {
		return fmt.Errorf("%w: etcdlease: %d node ids asked for, one claim holds at most %d", snowlab.ErrInvalidNode, count, MaxCount)
	}
	return nil
}

// attempt is one Acquire under way: the etcd lease granted for it, and
// the node ids it believes held, from which it picks the ranges to try.
type attempt struct {
	s              *Store
	cli            *clientv3.Client
	lease          clientv3.LeaseID
	holder         string // the node keys' value: who holds them
	count, maxNode int
	prefer         int // the first id of the range to try first, or -1

	// held are the node ids held now: only a hint, the transaction decides.
	held map[int]bool
	// alive is when the lease was last known alive.
	alive time.Time
}

// list reads afresh which node ids are held.
func (a *attempt) list(ctx context.Context) error {
	resp, err := a.cli.Get(ctx, a.s.prefix+"/nodes/", clientv3.WithPrefix(), clientv3.WithKeysOnly())
	if err != nil {
		return fmt.Errorf("etcdlease: list held node ids under %s/nodes/: %w", a.s.prefix, refusedAuth(err))
	}
	clear(a.held)
	for _, kv := range resp.Kvs {
		if n, err := strconv.Atoi(strings.TrimPrefix(string(kv.Key), a.s.prefix+"/nodes/")); err == nil {
			a.held[n] = true
		}
	}
	return nil
}

// run tries ranges until one is claimed or none is free. The preferred
// range first when it is free, else the lowest free range: alone, a holder takes the lowest free ids, and a successor
// the ids its predecessor left. Each conflict (another holder took the
// range first) doubles the lowest free ranges the next try picks among at
// random, so that a fleet starting at once spreads out in a few tries each
// instead of every holder walking up past every id taken before it, a
// transaction each (1,024 holders made half a million of them). The view
// is listed afresh every 16 conflicts, and before saying none is free.
func (a *attempt) run(ctx context.Context) (*claim, error) {
	conflicts, listed, tries := 0, true, 0
	a.alive = time.Now()
	for {
		cands := freeRanges(a.held, a.count, a.maxNode)
		if len(cands) == 0 {
			if listed {
				return nil, a.noneFree()
			}
			if err := a.list(ctx); err != nil {
				return nil, err
			}
			listed = true
			continue
		}
		first := cands[0]
		switch {
		case conflicts > 0:
			first = cands[rand.IntN(min(len(cands), 1<<min(conflicts, 16)))]
		case slices.Contains(cands, a.prefer):
			first = a.prefer
		}
		if err := a.keepAlive(ctx); err != nil {
			return nil, err
		}
		resp, err := a.try(ctx, first)
		if err != nil {
			return nil, err
		}
		listed = false
		if resp.Succeeded {
			return a.claim(resp, first)
		}
		seen := a.noteHeld(resp, first)
		if tries++; !seen && tries > 100 {
			return nil, fmt.Errorf("etcdlease: claim node ids %d..%d: the range keeps changing under contention", first, first+a.count-1)
		}
		if conflicts++; conflicts%16 == 0 {
			if err := a.list(ctx); err != nil {
				return nil, err
			}
			listed = true
		}
	}
}

// keepAlive keeps the lease alive while the tries go on: nothing else
// keeps it alive until the claim is made, and a Put on an expired lease
// fails.
func (a *attempt) keepAlive(ctx context.Context) error {
	if time.Since(a.alive) <= a.s.ttl/3 {
		return nil
	}
	if _, err := a.cli.KeepAliveOnce(ctx, a.lease); err != nil {
		return fmt.Errorf("etcdlease: keep the lease alive while claiming: %w", refusedAuth(err))
	}
	a.alive = time.Now()
	return nil
}

// try is the transaction that claims first..first+count-1: it creates
// the node keys only if none exists, and then reads their reserved-until;
// else it reads which of them exist.
func (a *attempt) try(ctx context.Context, first int) (*clientv3.TxnResponse, error) {
	cmps := make([]clientv3.Cmp, a.count)
	then := make([]clientv3.Op, 0, 2*a.count)
	orElse := make([]clientv3.Op, a.count)
	for i := range a.count {
		k := a.s.nodeKey(first + i)
		cmps[i] = clientv3.Compare(clientv3.CreateRevision(k), "=", 0)
		then = append(then, clientv3.OpPut(k, a.holder, clientv3.WithLease(a.lease)))
		orElse[i] = clientv3.OpGet(k, clientv3.WithKeysOnly())
	}
	for i := range a.count {
		then = append(then, clientv3.OpGet(a.s.reservedKey(first+i)))
	}
	resp, err := a.cli.Txn(ctx).If(cmps...).Then(then...).Else(orElse...).Commit()
	if err != nil {
		return nil, fmt.Errorf("etcdlease: claim node ids %d..%d: %w", first, first+a.count-1, refusedAuth(err))
	}
	return resp, nil
}

// noteHeld marks held the node ids of a failed try that someone holds,
// and reports whether there was any.
func (a *attempt) noteHeld(resp *clientv3.TxnResponse, first int) bool {
	seen := false
	for i, r := range resp.Responses {
		if len(r.GetResponseRange().GetKvs()) > 0 {
			a.held[first+i], seen = true, true
		}
	}
	return seen
}

// claim is the claim a successful try made: its floor is the highest
// reserved-until the try read.
func (a *attempt) claim(resp *clientv3.TxnResponse, first int) (*claim, error) {
	var floor int64
	for i, r := range resp.Responses[a.count:] {
		for _, kv := range r.GetResponseRange().GetKvs() {
			v, err := strconv.ParseInt(string(kv.Value), 10, 64)
			if err != nil {
				return nil, fmt.Errorf("etcdlease: node id %d: reserved-until %q at %s is not a number: %w", first+i, kv.Value, kv.Key, err)
			}
			floor = max(floor, v)
		}
	}
	s, count := a.s, a.count
	c := &claim{s: s, first: first, count: count, token: resp.Header.Revision, floor: floor, lease: a.lease}
	c.st = nodeid.NewClaimState(fmt.Sprintf("etcdlease: node ids %d..%d (token %d)", first, first+count-1, c.token), floor,
		func() { c.stopMonitors() })
	return c, nil
}

// noneFree is the error when every range is held.
func (a *attempt) noneFree() error {
	if a.count == 1 {
		return fmt.Errorf("%w: etcdlease: all %d node ids (0..%d) under %s/nodes/ are held by live leases",
			nodeid.ErrNoFreeNode, a.maxNode+1, a.maxNode, a.s.prefix)
	}
	return fmt.Errorf("%w: etcdlease: no %d consecutive node ids among 0..%d under %s/nodes/ are free (%d of them are held by live leases)",
		nodeid.ErrNoFreeNode, a.count, a.maxNode, a.s.prefix, countHeld(a.held, a.maxNode))
}

// freeRanges are the first ids of the ranges of count consecutive ids
// among 0..maxNode that held shows free, ascending.
func freeRanges(held map[int]bool, count, maxNode int) []int {
	var out []int
	for first := 0; first+count-1 <= maxNode; {
		if n := lastHeld(held, first, count); n >= 0 {
			first = n + 1
			continue
		}
		out = append(out, first)
		first++
	}
	return out
}

func countHeld(held map[int]bool, maxNode int) int {
	n := 0
	for k := range held {
		if k >= 0 && k <= maxNode {
			n++
		}
	}
	return n
}

// lastHeld returns the last held node id in first..first+count-1 (the next
// candidate range starts after it), or -1 when none is held.
func lastHeld(held map[int]bool, first, count int) int {
	for n := first + count - 1; n >= first; n-- {
		if held[n] {
			return n
		}
	}
	return -1
}

func (s *Store) revoke(ctx context.Context, lease clientv3.LeaseID) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 2*time.Second)
	defer cancel()
	_, _ = s.cli.Revoke(ctx, lease)
}

func hostname() string {
	h, err := os.Hostname()
	if err != nil {
		return "?"
	}
	return h
}

// claim is a held range of node ids: an etcd lease, the node keys created
// with it, and the monitors that notice when they are gone.
type claim struct {
	s            *Store
	first, count int
	token, floor int64
	lease        clientv3.LeaseID

	// st is the state Reserve and Release share: their lock, the highest
	// reserved-until made durable, and whether the claim is lost and why.
	st *nodeid.ClaimState

	stopMonitors context.CancelFunc
	monitors     sync.WaitGroup
	keepAlives   atomic.Int64 // keep-alive streams started, for tests
	keepAliveEnd atomic.Int64 // keep-alive channels closed, for tests
	compactReads atomic.Int64 // watches resumed after a compaction, the key read still this claim's, for tests
}

func (c *claim) First() int            { return c.first }
func (c *claim) Count() int            { return c.count }
func (c *claim) Floor() int64          { return c.floor }
func (c *claim) Token() int64          { return c.token }
func (c *claim) Lost() <-chan struct{} { return c.st.Lost() }

// Err says why the claim was lost, once Lost is closed: nodeid.Lease.Err
// reports it.
func (c *claim) Err() error { return c.st.Err() }

// guardsOf is the condition of a claim's writes, guards. (A variable only
// so that the module's tests can plant the mutant of a write without it,
// which the Store suite must fail.)
var guardsOf = (*claim).guards

// guards are the transaction conditions that hold only while this claim's
// node keys are the ones it created.
func (c *claim) guards() []clientv3.Cmp {
	cmps := make([]clientv3.Cmp, c.count)
	for i := range cmps {
		cmps[i] = clientv3.Compare(clientv3.CreateRevision(c.s.nodeKey(c.first+i)), "=", c.token)
	}
	return cmps
}

// lose closes Lost, once, and stops the monitors (the state's onLose):
// without keep-alives the etcd lease, if it still exists, expires by itself.
func (c *claim) lose(why string) { c.st.Lose(why) }

func (c *claim) lostErr() error { return c.st.Err() }

// Reserve stores until as reserved-until of every node id of the claim, in
// one transaction guarded by the node keys' create revision. The stored
// value only moves forward. A failed guard means another holder has (or
// had) the ids: the error wraps nodeid.ErrLost. Any other error (etcd
// unreachable, a timeout) is returned as it is, and the lease keeps minting
// only up to the last reservation that was stored.
func (c *claim) Reserve(ctx context.Context, until int64) error {
	return c.st.Reserve(ctx, until, "the node keys were deleted or re-created (a reservation's guard failed)", c.reserve)
}

// reserve is Reserve's guarded write of v.
func (c *claim) reserve(ctx context.Context, v int64) (bool, error) {
	puts := make([]clientv3.Op, c.count)
	for i := range puts {
		puts[i] = clientv3.OpPut(c.s.reservedKey(c.first+i), strconv.FormatInt(v, 10))
	}
	resp, err := c.s.cli.Txn(ctx).If(guardsOf(c)...).Then(puts...).Commit()
	if err != nil {
		return false, fmt.Errorf("etcdlease: reserve node ids %d..%d until %v: %w", c.first, c.first+c.count-1, time.Unix(0, v).UTC(), err)
	}
	return resp.Succeeded, nil
}

// Release stores until (at least the claim's floor) as the final
// reserved-until and deletes the node keys, in one guarded transaction,
// then revokes the etcd lease.
func (c *claim) Release(ctx context.Context, until int64) error {
	c.st.Lock()
	defer c.st.Unlock()
	// Stop watching first: the deletes below are not a loss.
	c.stopMonitors()
	c.monitors.Wait()
	defer c.s.revoke(ctx, c.lease)
	v := max(until, c.floor)
	ops := make([]clientv3.Op, 0, 2*c.count)
	for i := range c.count {
		ops = append(ops, clientv3.OpPut(c.s.reservedKey(c.first+i), strconv.FormatInt(v, 10)))
		ops = append(ops, clientv3.OpDelete(c.s.nodeKey(c.first+i)))
	}
	resp, err := c.s.cli.Txn(ctx).If(guardsOf(c)...).Then(ops...).Commit()
	if err != nil {
		return fmt.Errorf("etcdlease: release node ids %d..%d: %w", c.first, c.first+c.count-1, err)
	}
	if !resp.Succeeded {
		c.lose("the node keys were deleted or re-created before the release")
		return c.lostErr()
	}
	return nil
}

// start runs the monitors: the lease's keep-alive with its expiry check,
// and a watch on every node key.
func (c *claim) start() {
	ctx, cancel := context.WithCancel(c.s.cli.Ctx())
	c.stopMonitors = cancel
	c.monitors.Add(1 + c.count)
	go func() {
		defer c.monitors.Done()
		c.keepAlive(ctx)
	}()
	for i := range c.count {
		go func() {
			defer c.monitors.Done()
			c.watch(ctx, c.s.nodeKey(c.first+i))
		}()
	}
}

// keepAlive keeps the etcd lease alive with the client's KeepAlive. The
// client closes the keep-alive channel when the server says the lease is
// gone, but also when it got no answer for a whole TTL, which happens
// when etcd is down or partitioned away, while the server may still hold
// the lease (etcd renews every lease when a leader takes over) and the
// holder may still refresh its reservation once it is back. So a closed
// channel only makes keepAlive ask the server with TimeToLive: the lease
// is lost only when the server answers that it does not exist; errors are
// retried, and a live lease gets a new keep-alive.
func (c *claim) keepAlive(ctx context.Context) {
	for {
		c.keepAlives.Add(1)
		start := time.Now()
		ch, err := c.s.cli.KeepAlive(ctx, c.lease)
		if err == nil {
			since := start
			for resp := range ch {
				since = c.renewed(resp, start, since)
			}
		}
		c.keepAliveEnd.Add(1)
		// Backoff from 50 ms up to a sixth of the TTL (a second at most):
		// a restarted etcd extends the lease by about a TTL, and the next
		// keep-alive must reach it by then. Capped at a second, a holder
		// with the 2 s MinTTL had about two tries in that time, and on a
		// loaded machine (snowidd's fleet test beside a 4-thread hog, load
		// 20) one lost its lease after etcd came back.
		wait := 50 * time.Millisecond
		for {
			if !sleep(ctx, wait) {
				return
			}
			wait = min(2*wait, c.s.ttl/6, time.Second)
			tctx, cancel := context.WithTimeout(ctx, 2*time.Second)
			r, err := c.s.cli.TimeToLive(tctx, c.lease)
			cancel()
			if ctx.Err() != nil {
				return
			}
			// A lease that does not exist has TTL -1 (etcd 3.4 and later
			// answer so rather than with an error); 0 is a live lease with
			// less than a second left.
			if errors.Is(err, rpctypes.ErrLeaseNotFound) || err == nil && r.TTL < 0 {
				c.lose("the etcd lease expired")
				return
			}
			if err == nil {
				break // alive: keep it alive again
			}
		}
	}
}

// renewed tells the store's observer, if any, of the keep-alive answer
// resp, of the keep-alive begun at start, with since as its Since, and
// returns the next answer's.
func (c *claim) renewed(resp *clientv3.LeaseKeepAliveResponse, start, since time.Time) time.Time {
	f := c.s.renewed.Load()
	if f == nil {
		return since
	}
	now := time.Now()
	ttl := time.Duration(resp.TTL) * time.Second
	(*f)(Renewal{First: c.first, Count: c.count, Token: c.token, Since: since, Received: now, TTL: ttl})
	if next := now.Add(-ttl); next.After(start) {
		return next
	}
	return start
}

// watch closes Lost when key, one of the claim's node keys, is deleted
// (lease expired or revoked, or removed by hand) or re-created by another
// holder after this claim created it.
func (c *claim) watch(ctx context.Context, key string) {
	rev := c.token + 1
	for {
		wctx, cancel := context.WithCancel(ctx)
		compacted := false
		for resp := range c.s.cli.Watch(wctx, key, clientv3.WithRev(rev)) {
			for _, ev := range resp.Events {
				switch {
				case ev.Type == clientv3.EventTypeDelete:
					c.lose(fmt.Sprintf("%s was deleted at revision %d (the etcd lease expired or was revoked)", key, ev.Kv.ModRevision))
				case ev.Kv.CreateRevision != c.token:
					c.lose(fmt.Sprintf("%s was re-created at revision %d by another holder", key, ev.Kv.CreateRevision))
				default: // the value was rewritten in place: still this claim's key
					rev = ev.Kv.ModRevision + 1
					continue
				}
				cancel()
				return
			}
			if resp.CompactRevision != 0 {
				compacted = true // the history from rev is gone: the server cancels the watch
				break
			}
		}
		cancel()
		if ctx.Err() != nil {
			return
		}
		if compacted {
			if !c.check(ctx, key, &rev) {
				return
			}
		} else if !sleep(ctx, 100*time.Millisecond) {
			return
		}
	}
}

// check reads key after a compaction: lost unless it is still the one this
// claim created. It sets *rev to the revision to watch from.
func (c *claim) check(ctx context.Context, key string, rev *int64) bool {
	for {
		tctx, cancel := context.WithTimeout(ctx, 2*time.Second)
		r, err := c.s.cli.Get(tctx, key)
		cancel()
		if ctx.Err() != nil {
			return false
		}
		if err != nil {
			if !sleep(ctx, 200*time.Millisecond) {
				return false
			}
			continue
		}
		if len(r.Kvs) == 0 || r.Kvs[0].CreateRevision != c.token {
			c.lose(fmt.Sprintf("%s is gone or held by another holder (seen after a compaction)", key))
			return false
		}
		*rev = r.Header.Revision + 1
		c.compactReads.Add(1)
		return true
	}
}

func sleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}
