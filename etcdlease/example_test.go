package etcdlease_test

import (
	"context"
	"fmt"
	"log"
	"os"
	"strings"
	"time"

	"github.com/snowlab/snowlab"
	"github.com/snowlab/snowlab/atomicgen"
	"github.com/snowlab/snowlab/etcdlease"
	"github.com/snowlab/snowlab/nodeid"
)

// A node id leased from etcd. It needs a server, so it is compiled but not
// run: eval "$(scripts/etcd.sh start)" sets ETCD_ENDPOINTS to one.
func ExampleDial() {
	endpoints := strings.Split(os.Getenv("ETCD_ENDPOINTS"), ",") // e.g. http://127.0.0.1:2379
	store, closeStore, err := etcdlease.Dial(endpoints, "/myapp", etcdlease.DefaultTTL)
	if err != nil {
		log.Fatal(err)
	}
	defer closeStore()

	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	lease, err := nodeid.Acquire(ctx, store, nodeid.Options{})
	if err != nil {
		log.Fatal(err) // nodeid.ErrNoFreeSlot when all 1,024 ids are held
	}
	defer lease.Release(context.Background())

	gen, err := atomicgen.New(lease.Config(snowlab.Config{}))
	if err != nil {
		log.Fatal(err)
	}
	id, err := gen.NextID() // snowlab.ErrNoReservation once the lease is lost: see <-lease.Lost()
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(id, "node", lease.Node())
}

// The same from a lease spec, as snowid gen -lease takes it: an etcd that
// cannot be reached is one error within etcdlease.ReachTimeout.
func ExampleOpener() {
	spec := "etcd:" + os.Getenv("ETCD_ENDPOINTS") + "/myapp" // etcd:http://127.0.0.1:2379/myapp
	stores := map[string]nodeid.Opener{"etcd": etcdlease.Opener(etcdlease.DefaultTTL)}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	lease, err := nodeid.AcquireSpec(ctx, spec, stores, nodeid.Options{})
	if err != nil {
		log.Fatal(err)
	}
	defer lease.Release(context.Background())
	fmt.Println("node", lease.Node())
}
