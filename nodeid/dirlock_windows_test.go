package nodeid_test

import (
	"errors"
	"os"
	"testing"

	"github.com/stretchr/testify/require"
	"golang.org/x/sys/windows"
)

// lockedByOther tries to take f's LockFileEx lock, and undoes it when it
// could.
func lockedByOther(t *testing.T, f *os.File) bool {
	t.Helper()
	h := windows.Handle(f.Fd())
	err := windows.LockFileEx(h, windows.LOCKFILE_EXCLUSIVE_LOCK|windows.LOCKFILE_FAIL_IMMEDIATELY, 0, 1, 0, new(windows.Overlapped))
	if errors.Is(err, windows.ERROR_LOCK_VIOLATION) {
		return true
	}
	require.NoError(t, err)
	require.NoError(t, windows.UnlockFileEx(h, 0, 1, 0, new(windows.Overlapped)))
	return false
}
