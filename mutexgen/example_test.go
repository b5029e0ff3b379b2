package mutexgen_test

import (
	"fmt"
	"log"

	"github.com/snowlab/snowlab"
	"github.com/snowlab/snowlab/clocksrc"
	"github.com/snowlab/snowlab/mutexgen"
)

// The mutex generator is the reference baseline: the same IDs as atomicgen,
// one sync.Mutex around the state.
func ExampleNew() {
	gen, err := mutexgen.New(snowlab.Config{
		Node: 5,
		// The clock reads 2024-01-01T00:00:01Z (1,000 ticks after the
		// layout's epoch) and then 1 ms more per read: the IDs never change.
		Clock: clocksrc.ScriptedMillis(1704067201000),
	})
	if err != nil {
		log.Fatal(err)
	}
	ids := make([]snowlab.ID, 3)
	n, err := gen.NextIDs(ids) // a batch: one lock for all three
	if err != nil {
		log.Fatal(err)
	}
	for _, id := range ids[:n] {
		p := snowlab.DefaultLayout.Decode(id)
		fmt.Println(id, p.Time.UnixMilli(), p.Node, p.Seq)
	}
	// Output:
	// 4194324480 1704067201000 5 0
	// 4194324481 1704067201000 5 1
	// 4194324482 1704067201000 5 2
}
