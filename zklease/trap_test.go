package zklease

import (
	"testing"
	"time"

	"github.com/snowlab/snowlab"
	"github.com/snowlab/snowlab/atomicgen"
	"github.com/snowlab/snowlab/clocksrc"
	"github.com/snowlab/snowlab/nodeid"
)

// TestEphemeralTrap is the design's trap: node 0's holder, its clock 2 s
// ahead of the next one's, mints an ID; its session ends, so ZooKeeper
// deletes its ephemeral claim znode and node 0 is free; a new process
// takes node 0 with a clock that is behind the dead one's last ID. Only
// the persistent reservation znode keeps it from minting that ID again:
// its floor is the dead holder's reservation, and its first ID comes
// after the dead one's last. (With the floor read as 0, the successor
// would mint at once, 2 s in the past of the dead one's IDs: this test
// fails.)
func TestEphemeralTrap(t *testing.T) {
	t.Parallel() // each test runs servers of its own: their waits overlap
	e := startEnsemble(t, 1)
	server := e.servers()[0]
	root := newRoot(t)
	ahead := clocksrc.Func(func() int64 { return time.Now().Add(2 * time.Second).UnixNano() })
	opts := nodeid.Options{Window: time.Second, Clock: ahead}

	dead := client(t, server, root)
	l1, err := nodeid.Acquire(ctx(t), dead, opts)
	if err != nil {
		t.Fatal(err)
	}
	g1, err := atomicgen.New(l1.Config(snowlab.Config{Clock: ahead}))
	if err != nil {
		t.Fatal(err)
	}
	last, err := g1.NextID()
	if err != nil {
		t.Fatal(err)
	}
	dead.Close() // the process dies: its session ends, its claim znode goes

	reserved := l1.ReservedUntil()
	dead.Close() // the process dies: its session ends, its claim znode goes

	// The new process asks the store for node 0 itself (nodeid.Acquire
	// would pass over an id reserved ahead of its clock while others are
	// free, which hides the trap rather than closing it).
	c, err := client(t, server, root).Acquire(ctx(t), snowlab.Layout{}, 1, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Release(ctx(t), c.Floor())
	if c.Token() <= l1.Token() {
		t.Fatalf("the successor's token %d is not above the dead holder's %d", c.Token(), l1.Token())
	}
	// A generator on the claim waits for its clock to pass the floor
	// before it mints (snowlab.Config.Fence): a floor at or past the
	// reservation puts its first ID after the dead holder's last.
	if c.Floor() < reserved.UnixNano() {
		t.Fatalf("the successor on node 0 has floor %v, below the dead holder's reservation %v (its last ID %v): the reservation znode was not honoured",
			time.Unix(0, c.Floor()).UTC(), reserved.UTC(), last)
	}
}
