package nodeid_test

import (
	"testing"

	"github.com/snowlab/snowlab/nodeid"
	"github.com/snowlab/snowlab/nodeid/storetest"
)

// TestDirStore runs the Store suite on Dir. A Dir's hold lasts as long as
// the holder's process (the kernel drops its flock when the process ends),
// so it has no expiry and no zombie to refuse: the suite skips those
// cases, and TestDirCrashAndRestart covers a holder that dies. A folder
// does not go away and come back: the suite skips that case too.
func TestDirStore(t *testing.T) {
	storetest.Run(t, func(t *testing.T) nodeid.Store { return nodeid.Dir(t.TempDir()) }, storetest.Config{})
}
