package peers

import (
	"fmt"
	"sync"
	"time"

	"github.com/bwmarrin/snowflake"

	"github.com/snowlab/snowlab/lab/subject"
)

// epochMu serialises BwmarrinBehind's writes of snowflake.Epoch.
var epochMu sync.Mutex

// BwmarrinBehind returns a bwmarrin/snowflake node (v0.3.0, default
// layout) as NewNode builds it in a process started while the wall clock
// read behind less than it does: the restart after a clock rollback of
// bwmarrin/snowflake PR #53.
//
// The library takes no clock: NewNode reads time.Now once, and Generate
// measures time.Since that reading on the monotonic clock, so a wall-clock
// step inside a running process never reaches it, and the rollback reaches
// it only through a restart. NewNode anchors the node's time to the
// package's Epoch (Unix ms): the ID's time field is the wall clock at
// NewNode less Epoch, plus the monotonic time since. A clock behind by d at
// NewNode and an Epoch later by d give the same field, so the node is built
// with Epoch moved d later, and Epoch is put back before this returns;
// the Node keeps the epoch it was built with. (In a testing/synctest
// bubble the peerfaults tests check that this node mints what a node
// built d earlier does.) behind must be whole milliseconds, Epoch's unit.
//
// Epoch is a package variable that ID.Time and NewNode read: nothing may
// build or decode bwmarrin IDs concurrently with this call (the lab's
// suite and its decoders never run beside an experiment).
func BwmarrinBehind(node int64, behind time.Duration) (subject.Minter, error) {
	if behind < 0 || behind%time.Millisecond != 0 {
		return nil, fmt.Errorf("peers: bwmarrin rollback %v: want whole milliseconds, not negative", behind)
	}
	epochMu.Lock()
	defer epochMu.Unlock()
	saved := snowflake.Epoch
	snowflake.Epoch += behind.Milliseconds()
	n, err := snowflake.NewNode(node)
	snowflake.Epoch = saved
	if err != nil {
		return nil, err
	}
	return bwmarrinMinter{n}, nil
}
