//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package nodeid_test

import (
	"os"
	"testing"

	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"
)

// lockedByOther tries to flock f, and undoes it when it could.
func lockedByOther(t *testing.T, f *os.File) bool {
	t.Helper()
	err := unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB)
	if err == unix.EWOULDBLOCK {
		return true
	}
	require.NoError(t, err)
	require.NoError(t, unix.Flock(int(f.Fd()), unix.LOCK_UN))
	return false
}
