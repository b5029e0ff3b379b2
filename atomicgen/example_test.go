package atomicgen_test

import (
	"fmt"
	"log"
	"time"

	"github.com/snowlab/snowlab"
	"github.com/snowlab/snowlab/atomicgen"
	"github.com/snowlab/snowlab/clocksrc"
)

func ExampleNew() {
	gen, err := atomicgen.New(snowlab.Config{
		Node: 37,
		// A clock stopped at 2025-01-24T19:35:58.021Z, so that the IDs below
		// are always the same. Leave Clock nil for clocksrc.Default().
		Clock: clocksrc.FixedMillis(1737747358021),
	})
	if err != nil {
		log.Fatal(err) // e.g. snowlab.ErrInvalidNode for a node outside 0..1023
	}
	for range 3 {
		id, err := gen.NextID() // errors.Is(err, snowlab.ErrClockBackwards) on a large rewind
		if err != nil {
			log.Fatal(err)
		}
		p := snowlab.DefaultLayout.Decode(id)
		fmt.Println(id, p.Time.Format(time.RFC3339Nano), p.Node, p.Seq)
	}
	// Output:
	// 141264821508263936 2025-01-24T19:35:58.021Z 37 0
	// 141264821508263937 2025-01-24T19:35:58.021Z 37 1
	// 141264821508263938 2025-01-24T19:35:58.021Z 37 2
}
