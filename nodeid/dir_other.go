//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly || windows)

package nodeid

import (
	"fmt"
	"os"
	"runtime"
)

// errDirUnsupported is what a Dir store answers on a system with neither
// flock(2) nor LockFileEx.
var errDirUnsupported = fmt.Errorf("Dir is not supported on %s/%s: it needs flock(2) (Linux, macOS, the BSDs) or LockFileEx (Windows)", runtime.GOOS, runtime.GOARCH)

func openDir(string) (int, error) { return 0, errDirUnsupported }

func closeDir(int) {}

func (s dirStore) lockNode(_, _ int) (*os.File, error) { return nil, errDirUnsupported }

func unlockAll(files []*os.File) {
	for _, f := range files {
		_ = f.Close()
	}
}

func replaceFile(tmp, name string) error { return os.Rename(tmp, name) }

func syncDir(string) error { return errDirUnsupported }
