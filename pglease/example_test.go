package pglease_test

import (
	"context"
	"log"
	"os"

	"github.com/snowlab/snowlab"
	"github.com/snowlab/snowlab/atomicgen"
	"github.com/snowlab/snowlab/nodeid"
	"github.com/snowlab/snowlab/pglease"
)

// A node id leased from PostgreSQL, as the README shows it (compiled, not
// run: it needs a server).
func ExampleOpen() {
	ctx := context.Background()
	store, closeStore, err := pglease.Open(os.Getenv("PG_DSN"), pglease.DefaultTTL)
	if err != nil {
		log.Fatal(err) // a DSN that does not parse; its password is never in the message
	}
	defer closeStore()
	lease, err := nodeid.Acquire(ctx, store, nodeid.Options{})
	if err != nil {
		log.Fatal(err) // nodeid.ErrNoFreeNode when every id is held
	}
	defer lease.Release(context.Background())
	gen, err := atomicgen.New(lease.Config(snowlab.Config{}))
	if err != nil {
		log.Fatal(err)
	}
	id, err := gen.NextID()
	if err != nil {
		log.Fatal(err)
	}
	log.Println(id)
}
