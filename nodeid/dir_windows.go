package nodeid

import (
	"errors"
	"fmt"
	"os"

	"golang.org/x/sys/windows"
)

// On Windows a node id's lock is LockFileEx's exclusive lock on the first
// byte of its lock file. Like flock's, it belongs to the open handle, not
// to the process (two claims in one process exclude each other), and the
// system drops it when the handle is closed or the process ends, however
// it ends. A file open here cannot be deleted or renamed over (Go opens
// files without FILE_SHARE_DELETE), so the check Unix needs, that the file
// locked is still the one its name leads to, has nothing to catch.

// openDir has nothing to open: lock files are opened by name.
func openDir(string) (int, error) { return 0, nil }

func closeDir(int) {}

// lockNode opens and locks node id n's lock file; nil, nil when someone else
// holds it.
func (s dirStore) lockNode(_, n int) (*os.File, error) {
	name := s.lockName(n)
	f, err := os.OpenFile(name, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("nodeid: dir store: open %s: %w", name, err)
	}
	err = windows.LockFileEx(windows.Handle(f.Fd()),
		windows.LOCKFILE_EXCLUSIVE_LOCK|windows.LOCKFILE_FAIL_IMMEDIATELY, 0, 1, 0, new(windows.Overlapped))
	if err != nil {
		_ = f.Close()
		if errors.Is(err, windows.ERROR_LOCK_VIOLATION) {
			return nil, nil
		}
		return nil, fmt.Errorf("nodeid: dir store: LockFileEx %s: %w", name, err)
	}
	return f, nil
}

// unlockAll unlocks and closes the lock files.
func unlockAll(files []*os.File) {
	for _, f := range files {
		_ = windows.UnlockFileEx(windows.Handle(f.Fd()), 0, 1, 0, new(windows.Overlapped))
		_ = f.Close()
	}
}

// replaceFile renames tmp over name and returns only once the rename is on
// disk (MOVEFILE_WRITE_THROUGH): Windows cannot fsync a folder.
func replaceFile(tmp, name string) error {
	from, err := windows.UTF16PtrFromString(tmp)
	if err != nil {
		return &os.LinkError{Op: "rename", Old: tmp, New: name, Err: err}
	}
	to, err := windows.UTF16PtrFromString(name)
	if err != nil {
		return &os.LinkError{Op: "rename", Old: tmp, New: name, Err: err}
	}
	if err := windows.MoveFileEx(from, to, windows.MOVEFILE_REPLACE_EXISTING|windows.MOVEFILE_WRITE_THROUGH); err != nil {
		return &os.LinkError{Op: "rename", Old: tmp, New: name, Err: err}
	}
	return nil
}

// syncDir has nothing to do: replaceFile wrote the rename through.
func syncDir(string) error { return nil }
