package shardedgen_test

import (
	"fmt"
	"log"
	"sync"
	"sync/atomic"
	"time"

	"github.com/snowlab/snowlab"
	"github.com/snowlab/snowlab/clocksrc"
	"github.com/snowlab/snowlab/shardedgen"
)

func ExampleNew() {
	gen, err := shardedgen.New(shardedgen.Config{
		Config: snowlab.Config{Node: 8, Clock: clocksrc.FixedMillis(1737747358021)},
		Shards: 4, // NodePerShard (the default mode): shards 0..3 mint for nodes 8..11
	})
	if err != nil {
		log.Fatal(err)
	}
	id, err := gen.NextID() // from the shard of the P this goroutine runs on
	if err != nil {
		log.Fatal(err)
	}
	p := snowlab.DefaultLayout.Decode(id)
	fmt.Println("node in 8..11:", p.Node >= 8 && p.Node <= 11)
	fmt.Println("shard is node-8:", gen.ShardOf(id) == p.Node-8)
	// Output:
	// node in 8..11: true
	// shard is node-8: true
}

// Each goroutine's IDs increase within a shard, not across shards: ShardOf
// says which shard issued an ID, the key to check order by (or to route on).
func ExampleGenerator_ShardOf() {
	gen, err := shardedgen.New(shardedgen.Config{
		Config: snowlab.Config{Node: 100, Clock: clocksrc.ScriptedMillis(1737747358021)},
		Shards: 2,
	})
	if err != nil {
		log.Fatal(err)
	}
	var (
		wg         sync.WaitGroup
		total      atomic.Int64
		increasing atomic.Bool
	)
	increasing.Store(true)
	for range 8 {
		wg.Go(func() {
			last := map[int]snowlab.ID{} // this goroutine's last ID per shard
			for range 1000 {
				id, err := gen.NextID()
				if err != nil {
					log.Fatal(err)
				}
				s := gen.ShardOf(id)
				if id <= last[s] {
					increasing.Store(false)
				}
				last[s] = id
				total.Add(1)
			}
		})
	}
	wg.Wait()
	fmt.Println("IDs:", total.Load(), "increasing per shard:", increasing.Load())

	// An ID of another node's is no shard's.
	other, _ := snowlab.DefaultLayout.Compose(time.UnixMilli(1737747358021), 7, 0)
	fmt.Println("shard of node 7's ID:", gen.ShardOf(other))
	// Output:
	// IDs: 8000 increasing per shard: true
	// shard of node 7's ID: -1
}
