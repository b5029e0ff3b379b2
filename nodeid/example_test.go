package nodeid_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"os"
	"time"

	"github.com/snowlab/snowlab"
	"github.com/snowlab/snowlab/atomicgen"
	"github.com/snowlab/snowlab/nodeid"
)

// A node id leased from a lock folder shared by the processes of one host,
// a generator fenced by its reservation, and what to do when the lease is
// lost.
func ExampleAcquire() {
	dir, err := os.MkdirTemp("", "nodeids") // e.g. /var/lib/myapp/nodeids
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	lease, err := nodeid.Acquire(ctx, nodeid.Dir(dir), nodeid.Options{})
	if err != nil {
		log.Fatal(err) // nodeid.ErrNoFreeNode when all 1,024 ids are held
	}
	defer lease.Release(context.Background()) // frees the id; a successor waits only for time used

	// lease.Config sets the node id and the reservation fence: the
	// generator mints only inside the reservation the lease keeps durable.
	gen, err := atomicgen.New(lease.Config(snowlab.Config{}))
	if err != nil {
		log.Fatal(err)
	}

	go func() {
		select {
		case <-lease.Lost():
			// The store says the id is someone else's now (an etcd lease
			// that expired): gen has stopped. Acquire a new lease and
			// build a new generator from it.
			log.Printf("node id %d lost: %v", lease.Node(), lease.Err())
		case <-ctx.Done():
		}
	}()

	id, err := gen.NextID()
	switch {
	case errors.Is(err, snowlab.ErrNoReservation):
		// The reservation could not be moved ahead in time (the store is
		// unreachable), or the lease was lost: no ID past it is minted.
		// Release the lease, Acquire again, and build a new generator.
		log.Fatal(err)
	case err != nil:
		log.Fatal(err)
	}
	fmt.Println("node", lease.Node(), "minted for node", snowlab.DefaultLayout.Decode(id).Node)
	// Output:
	// node 0 minted for node 0
}

// A node id assigned by hand (Static, or FromEnv, Ordinal) and a
// monotonic generator on it that a restart, after a crash or a SIGKILL,
// never makes repeat an ID, whatever policy and lead the restarted
// process has: no run on a static id leads the clock by more than
// StaticMaxLead (100 ms), and StaticConfig starts every run past that.
func ExampleStaticConfig() {
	node, err := nodeid.Static(37, snowlab.Layout{})
	if err != nil {
		log.Fatal(err)
	}
	cfg, err := nodeid.StaticConfig(snowlab.Config{
		Node:    node,
		Policy:  snowlab.Monotonic,
		MaxLead: nodeid.StaticMaxLead, // starts at once, 100 ms (and a tick) ahead; a strict run would wait that long
	}, 1)
	if err != nil {
		log.Fatal(err) // snowlab.ErrInvalidConfig with MaxLead 0 or above StaticMaxLead: a later run could not start past it
	}
	gen, err := atomicgen.New(cfg)
	if err != nil {
		log.Fatal(err)
	}
	id, err := gen.NextID()
	if err != nil {
		log.Fatal(err)
	}
	p := snowlab.DefaultLayout.Decode(id)
	fmt.Println("node", p.Node, "ahead of the clock:", p.Time.After(time.Now()))
	// Output:
	// node 37 ahead of the clock: true
}
