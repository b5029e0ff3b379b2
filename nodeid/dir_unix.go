//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package nodeid

import (
	"fmt"
	"os"

	"golang.org/x/sys/unix"
)

// openDir opens the store's folder, to open its lock files relative to it.
func openDir(path string) (int, error) {
	return unix.Open(path, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
}

func closeDir(dfd int) { _ = unix.Close(dfd) }

// lockNode opens and locks node id n's lock file in the folder open as dfd;
// nil, nil when someone else holds it. It works on raw descriptors
// relative to the folder because a scan tries every held node id below the
// first free one: a busy node id costs an open, a flock and a close.
func (s dirStore) lockNode(dfd, n int) (*os.File, error) {
	base := fileName(n, ".lock")
	for range 10 {
		// Without O_CREAT first: opening an existing name does not take
		// the folder's lock, which a scan of a busy folder feels.
		fd, err := unix.Openat(dfd, base, unix.O_RDWR|unix.O_CLOEXEC, 0)
		if err == unix.ENOENT {
			fd, err = unix.Openat(dfd, base, unix.O_RDWR|unix.O_CREAT|unix.O_CLOEXEC, 0o644)
		}
		if err != nil {
			return nil, fmt.Errorf("nodeid: dir store: open %s: %w", s.lockName(n), err)
		}
		if err := flockFd(fd, unix.LOCK_EX|unix.LOCK_NB); err != nil {
			unix.Close(fd)
			if err == unix.EWOULDBLOCK {
				return nil, nil
			}
			return nil, fmt.Errorf("nodeid: dir store: flock %s: %w", s.lockName(n), err)
		}
		// The file may have been unlinked (and the name given to a new
		// file that someone else locks) between the open and the lock:
		// hold the lock only on the file the name leads to now.
		var held, named unix.Stat_t
		err = unix.Fstat(fd, &held)
		if err == nil {
			err = unix.Fstatat(dfd, base, &named, 0)
		}
		if err == nil && held.Dev == named.Dev && held.Ino == named.Ino {
			return os.NewFile(uintptr(fd), s.lockName(n)), nil
		}
		unix.Close(fd)
		if err != nil && err != unix.ENOENT {
			return nil, fmt.Errorf("nodeid: dir store: stat %s: %w", s.lockName(n), err)
		}
	}
	return nil, fmt.Errorf("nodeid: dir store: %s keeps being replaced while it is locked", s.lockName(n))
}

func flockFd(fd, how int) error {
	for {
		err := unix.Flock(fd, how)
		if err != unix.EINTR {
			return err
		}
	}
}

// unlockAll unlocks and closes the lock files. Closing the last descriptor
// of an open file description drops its flock anyway; the explicit unlock
// makes the release not depend on descriptors the process may have
// inherited or duplicated.
func unlockAll(files []*os.File) {
	for _, f := range files {
		_ = flockFd(int(f.Fd()), unix.LOCK_UN)
		_ = f.Close()
	}
}

// replaceFile renames tmp over name; syncDir then makes the rename durable.
func replaceFile(tmp, name string) error { return os.Rename(tmp, name) }

// syncDir fsyncs the folder, which makes the renames in it durable.
func syncDir(path string) error {
	d, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("nodeid: dir store: %w", err)
	}
	err = d.Sync()
	if cerr := d.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("nodeid: dir store: fsync %s: %w", path, err)
	}
	return nil
}
