package storetest_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"

	"github.com/snowlab/snowlab/nodeid"
	"github.com/snowlab/snowlab/nodeid/storetest"
)

// memStore is a store in memory that keeps the whole contract, with
// expiry forced by hand and an outage switched on and off: it runs every
// case of the suite, and each of its bugs, switched on, breaks one.
type memStore struct {
	bug string // "" for none; see TestSuiteCatchesBrokenStores

	mu    sync.Mutex
	nodes map[int]*memNode
	down  bool
}

type memNode struct {
	gen, until int64
	holder     int64 // the holding claim's token; 0 when free
}

var errDown = errors.New("memstore: the store is down")

func newMemStore(bug string) *memStore { return &memStore{bug: bug, nodes: map[int]*memNode{}} }

func (s *memStore) node(n int) *memNode {
	if s.nodes[n] == nil {
		s.nodes[n] = &memNode{}
	}
	return s.nodes[n]
}

func (s *memStore) Acquire(ctx context.Context, count, maxNode int) (nodeid.Claim, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("memstore: %w", err)
	}
	if count < 1 || maxNode < 0 || count > maxNode+1 {
		if s.bug == "bad-arguments-no-free" {
			return nil, nodeid.ErrNoFreeNode
		}
		return nil, fmt.Errorf("memstore: cannot take %d ids of 0..%d", count, maxNode)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.down {
		return nil, errDown
	}
	for first := 0; first+count-1 <= maxNode; first++ {
		free := true
		for n := first; n < first+count; n++ {
			free = free && (s.node(n).holder == 0 || s.bug == "double-grant")
		}
		if !free {
			continue
		}
		c := &memClaim{s: s, first: first, count: count, lost: make(chan struct{})}
		var gen int64
		for n := first; n < first+count; n++ {
			gen = max(gen, s.node(n).gen)
			if n == first || s.bug != "floor-of-first-only" {
				c.floor = max(c.floor, s.node(n).until)
			}
		}
		c.token = gen + 1
		if s.bug == "token-reused" {
			c.token = max(gen, 1)
		}
		for n := first; n < first+count; n++ {
			s.node(n).gen, s.node(n).holder = c.token, c.token
		}
		return c, nil
	}
	return nil, fmt.Errorf("%w: memstore: no %d free ids in 0..%d", nodeid.ErrNoFreeNode, count, maxNode)
}

// expire frees c's ids as a TTL running out would.
func (s *memStore) expire(c nodeid.Claim) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for n := c.First(); n < c.First()+c.Count(); n++ {
		if sl := s.node(n); sl.holder == c.Token() {
			sl.holder = 0
		}
	}
}

func (s *memStore) setDown(down bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.down = down
}

type memClaim struct {
	s            *memStore
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

// held checks, with the store locked, that c still holds its ids; when it
// does not, Lost closes and the error wraps ErrLost.
func (c *memClaim) held() error {
	if c.s.down {
		if c.s.bug == "outage-is-loss" {
			return nodeid.ErrLost
		}
		return errDown
	}
	if c.s.bug == "no-fence" {
		return nil
	}
	for n := c.first; n < c.first+c.count; n++ {
		if c.s.node(n).holder != c.token {
			c.once.Do(func() { close(c.lost) })
			return fmt.Errorf("%w: memstore: ids %d.. are not token %d's", nodeid.ErrLost, c.first, c.token)
		}
	}
	return nil
}

func (c *memClaim) Reserve(_ context.Context, until int64) error {
	c.s.mu.Lock()
	defer c.s.mu.Unlock()
	if err := c.held(); err != nil {
		return err
	}
	for n := c.first; n < c.first+c.count; n++ {
		sl := c.s.node(n)
		if c.s.bug == "reserve-moves-back" {
			sl.until = until
		} else {
			sl.until = max(sl.until, until)
		}
	}
	return nil
}

func (c *memClaim) Release(_ context.Context, until int64) error {
	c.s.mu.Lock()
	defer c.s.mu.Unlock()
	if err := c.held(); err != nil {
		return err
	}
	for n := c.first; n < c.first+c.count; n++ {
		sl := c.s.node(n)
		if c.s.bug != "release-ignores-until" {
			sl.until = max(until, c.floor)
		}
		if c.s.bug != "release-keeps-hold" {
			sl.holder = 0
		}
	}
	return nil
}

// runMem runs the suite on memory stores with bug.
func runMem(t *testing.T, bug string) {
	var mu sync.Mutex
	var cur *memStore // the case's store, for Stop and Start
	storetest.Run(t, func(t *testing.T) nodeid.Store {
		mu.Lock()
		defer mu.Unlock()
		cur = newMemStore(bug)
		return cur
	}, storetest.Config{
		Expire: func(t *testing.T, c nodeid.Claim) { cur.expire(c) },
		Stop:   func(t *testing.T) { cur.setDown(true) },
		Start:  func(t *testing.T) { cur.setDown(false) },
	})
}

// TestMemStore: the suite passes, every case, on a store that keeps the
// contract.
func TestMemStore(t *testing.T) { runMem(t, "") }

// brokenEnv names the bug TestBrokenStore runs the suite with.
const brokenEnv = "STORETEST_BROKEN"

// TestBrokenStore runs the suite on a memory store with the bug $STORETEST_BROKEN;
// it is skipped without it. TestSuiteCatchesBrokenStores runs it.
func TestBrokenStore(t *testing.T) {
	bug := os.Getenv(brokenEnv)
	if bug == "" {
		t.Skip("run by TestSuiteCatchesBrokenStores with " + brokenEnv + " set")
	}
	runMem(t, bug)
}

// TestSuiteCatchesBrokenStores: each bug a store could have fails the case
// that checks it (the suite runs in a child process, whose failure is the
// point).
func TestSuiteCatchesBrokenStores(t *testing.T) {
	for _, tc := range []struct{ bug, failing, says string }{
		{"double-grant", "Contention", "handed to contenders"},
		{"floor-of-first-only", "Ranges", "latest reserved-until over its ids"},
		{"token-reused", "Tokens", "want above"},
		{"release-ignores-until", "Reservations", "Release stores the reserved-until it is given"},
		{"release-keeps-hold", "Release", "Reserve after Release"},
		{"bad-arguments-no-free", "BadArguments", "not nodeid.ErrNoFreeNode"},
		{"reserve-moves-back", "Expiry", "Reserve only moves it forward"},
		{"no-fence", "Zombie", "want nodeid.ErrLost"},
		{"outage-is-loss", "Restart", "a store that is away is no loss"},
	} {
		t.Run(tc.bug, func(t *testing.T) {
			cmd := exec.Command(os.Args[0], "-test.run=^TestBrokenStore$", "-test.v", "-test.count=1")
			cmd.Env = append(os.Environ(), brokenEnv+"="+tc.bug)
			out, err := cmd.CombinedOutput()
			var exit *exec.ExitError
			if !errors.As(err, &exit) {
				t.Fatalf("the suite with bug %s: %v, want it to fail\n%s", tc.bug, err, out)
			}
			if !strings.Contains(string(out), "--- FAIL: TestBrokenStore/"+tc.failing+" ") {
				t.Fatalf("the suite with bug %s did not fail case %s:\n%s", tc.bug, tc.failing, out)
			}
			if !strings.Contains(string(out), tc.says) {
				t.Fatalf("the suite with bug %s failed without saying %q:\n%s", tc.bug, tc.says, out)
			}
		})
	}
}
