package nodeid_test

import (
	"testing"

	"github.com/snowlab/snowlab/nodeid"
	"github.com/snowlab/snowlab/nodeid/storetest"
)

// TestDirStore runs the Store suite on Dir: each case's backend is a
// folder, and each client of it a Dir value of its own on the folder, as
// two processes would have (flock locks belong to an open file
// description, so two claims in one process exclude each other just as
// two processes do). A Dir's hold lasts as long as the holder's process,
// so it has no expiry and no zombie to refuse: the suite skips those
// cases, and its Crash hook drops a claim's locks without a write, as the
// kernel does when the process ends (TestDirCrashAndRestart covers a real
// process that dies). A folder does not go away and come back: the suite
// skips that case too. Nor can the suite's two planted mutants be planted
// here. Durable (Config.Lose): Dir fsyncs each file and the folder before
// a write returns, and what it has not fsynced is lost only when the
// kernel goes down with its page cache (a process killed loses nothing it
// wrote); a test would need a file system that drops unsynced writes on
// command (dm-flakey as root, or a FUSE one such as LazyFS), which this
// suite does not assume. Stolen (Config.Steal): a Dir claim has no guard
// on its writes to take it from, only the flock, which the kernel holds
// for the holder's process as long as it lives.
func TestDirStore(t *testing.T) {
	storetest.Run(t, func(t *testing.T) storetest.Backend {
		dir := t.TempDir()
		return storetest.BackendFunc(func(*testing.T) nodeid.Store { return nodeid.Dir(dir) })
	}, storetest.Config{Crash: func(_ *testing.T, c nodeid.Claim) { nodeid.CrashDirClaim(c) }})
}
