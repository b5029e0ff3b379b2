package nodeid

// CrashDirClaim ends a Dir claim's hold as the end of its holder's
// process would: its lock files are unlocked and closed, as the kernel
// does for a process that exits, and nothing is written, neither a
// release nor a reservation. The claim holds nothing afterwards (its
// Reserve fails with ErrLost, its Release does nothing). The external
// tests use it as the Store suite's Crash hook.
func CrashDirClaim(c Claim) {
	dc := c.(*dirClaim)
	dc.mu.Lock()
	defer dc.mu.Unlock()
	if dc.files != nil {
		unlockAll(dc.files)
		dc.files = nil
	}
}
