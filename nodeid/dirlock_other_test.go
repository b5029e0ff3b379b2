//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly || windows)

package nodeid_test

import (
	"os"
	"runtime"
	"testing"
)

func lockedByOther(t *testing.T, _ *os.File) bool {
	t.Skipf("nodeid.Dir has no file lock on %s", runtime.GOOS)
	return false
}
