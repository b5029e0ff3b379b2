package peers

import (
	"time"

	"github.com/bwmarrin/snowflake"

	"github.com/snowlab/snowlab/lab/subject"
)

// bwmarrinNode is the node id every bwmarrin/snowflake instance holds.
const bwmarrinNode = 1

// bwmarrinSubject is github.com/bwmarrin/snowflake with its default layout.
// The library takes its layout from package-level variables (Epoch,
// NodeBits, StepBits); they are read here and never written, so the lab
// measures exactly what a user with the defaults gets. Decode works from
// the documented default layout by hand rather than through ID.Time and
// ID.Node, which read deprecated package globals that NewNode rewrites
// (a data race when a node is built while another goroutine decodes).
func bwmarrinSubject() subject.Subject {
	return subject.Subject{
		Name:    "bwmarrin/snowflake",
		Library: "github.com/bwmarrin/snowflake@v0.3.0",
		Strict:  true, // a spent millisecond is waited out (by spinning, under the node's mutex)
		Nodes:   1,
		PerTick: 4096,
		Tick:    time.Millisecond,
		Decode: func(id subject.ID) (time.Time, int) {
			ms := snowflake.Epoch + int64(id.Lo>>22)
			return time.UnixMilli(ms), int(id.Lo>>12) & 1023
		},
		New: func() (subject.Minter, error) {
			n, err := snowflake.NewNode(bwmarrinNode)
			if err != nil {
				return nil, err
			}
			return bwmarrinMinter{n}, nil
		},
		Note: "layout set by package globals; defaults 41/10/12, epoch 2010-11-04; " +
			"one sync.Mutex per node, and a spent millisecond is busy-waited while holding it; " +
			"time comes from the monotonic clock since NewNode, so wall-clock steps after that are not seen",
	}
}

type bwmarrinMinter struct{ n *snowflake.Node }

func (m bwmarrinMinter) Next() (subject.ID, error) {
	return subject.ID{Lo: uint64(m.n.Generate())}, nil
}
