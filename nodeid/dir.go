package nodeid

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"

	"github.com/snowlab/snowlab"
)

// Dir is the store for the processes of one host: a folder (created 0o755
// on the first Acquire when missing) holding two files per node id N:
//
//   - slot-NNNN.lock, which a holder keeps locked with flock(2) for as long
//     as it holds N. The kernel drops the lock when the holder's process
//     ends, however it ends, so a crashed holder's id is free at once.
//     flock locks belong to an open file description, so two claims in
//     one process exclude each other just as two processes do.
//
//   - slot-NNNN.reserved, the text "UNTIL GEN\n": UNTIL is N's
//     reserved-until in decimal Unix nanoseconds and GEN the generation of
//     its last holder, which Acquire increments and Claim.Token reports (a
//     claim on several ids takes one more than the highest of theirs, so
//     the token grows for each of them). A missing file is a never-held id
//     (0 0); a file that does not parse is an error naming it, never read
//     as 0, which would let a successor reuse time. It is replaced
//     atomically: a temporary file in the folder is written and fsynced,
//     renamed over it, and the folder fsynced. Acquire, Reserve and
//     Release return only after that, so a reservation is on disk before
//     any ID uses it and survives a crash of the process or of the host.
//
//   - layout, the folder's layout as Layout.MarshalText writes it: the
//     first Acquire writes it (a temporary file, fsynced, hard-linked into
//     place, so that of two first holders racing only one makes it, and
//     no one reads it half-written) and an Acquire with another layout
//     fails with ErrLayout.
//
// Acquire takes the lowest count consecutive ids whose lock files it can
// lock without waiting. Do not delete the files while they are in use:
// Acquire checks that the file it locked is still the one the name leads
// to, but a holder whose file was deleted has nothing to show a newcomer.
// Dir does not work across hosts, and is only as good as flock on the
// folder's file system (local file systems; not every network one).
//
// On Windows the lock is LockFileEx's instead of flock's, with the same
// properties (held per open handle, dropped when the process ends), and
// the rename is written through instead of the folder fsynced. On systems
// with neither (Solaris, AIX, Plan 9, WebAssembly) Acquire fails with an
// error naming the system.
func Dir(path string) Store { return dirStore{path: path} }

type dirStore struct{ path string }

// fileName is "slot-NNNN" + ext: at least four digits, so that the
// default layout's names sort by node id. The prefix stays "slot-" although
// the code says node id: a holder built with another prefix would lock
// other files than a running holder of the same node id, and both would
// mint with it.
func fileName(n int, ext string) string {
	var b [32]byte
	buf := append(b[:0], "slot-"...)
	for w := 1000; w > 1 && n < w; w /= 10 {
		buf = append(buf, '0')
	}
	buf = strconv.AppendInt(buf, int64(n), 10)
	return string(append(buf, ext...))
}

func (s dirStore) lockName(n int) string { return filepath.Join(s.path, fileName(n, ".lock")) }

func (s dirStore) reservedName(n int) string {
	return filepath.Join(s.path, fileName(n, ".reserved"))
}

// Acquire implements Store.
func (s dirStore) Acquire(ctx context.Context, layout snowlab.Layout, count, maxNode int) (Claim, error) {
	return s.AcquireAt(ctx, layout, -1, count, maxNode)
}

// AcquireAt implements Preferrer: the run from first is tried before the
// lowest free one.
func (s dirStore) AcquireAt(ctx context.Context, layout snowlab.Layout, first, count, maxNode int) (Claim, error) {
	if count < 1 || maxNode < 0 || count > maxNode+1 {
		return nil, fmt.Errorf("nodeid: dir %s: cannot take %d node ids out of 0..%d", s.path, count, maxNode)
	}
	if err := os.MkdirAll(s.path, 0o755); err != nil {
		return nil, fmt.Errorf("nodeid: dir store: %w", err)
	}
	if err := s.pinLayout(layout); err != nil {
		return nil, err
	}
	dfd, err := openDir(s.path)
	if err != nil {
		return nil, fmt.Errorf("nodeid: dir store: open %s: %w", s.path, err)
	}
	defer closeDir(dfd)
	if first >= 0 && first+count-1 <= maxNode {
		files, busy, err := s.lockRun(dfd, first, count)
		if err != nil {
			return nil, err
		}
		if busy < 0 {
			return s.claimOrUnlock(first, files)
		}
	}
	for first := 0; first+count-1 <= maxNode; {
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("nodeid: dir %s: %w", s.path, err)
		}
		files, busy, err := s.lockRun(dfd, first, count)
		if err != nil {
			return nil, err
		}
		if busy >= 0 {
			first = busy + 1 // no run that includes the busy node id can be had
			continue
		}
		return s.claimOrUnlock(first, files)
	}
	return nil, fmt.Errorf("%w: dir %s has no %d consecutive free node ids in 0..%d", ErrNoFreeNode, s.path, count, maxNode)
}

// pinLayout records layout as the folder's when it has none (see Dir), and
// compares it with the folder's.
func (s dirStore) pinLayout(layout snowlab.Layout) error {
	text, err := layout.MarshalText()
	if err != nil {
		return err
	}
	name := filepath.Join(s.path, "layout")
	b, err := os.ReadFile(name)
	if errors.Is(err, os.ErrNotExist) {
		if err := s.createOnce(name, text); err != nil {
			return fmt.Errorf("nodeid: dir store: record the layout: %w", err)
		}
		b, err = os.ReadFile(name)
	}
	if err != nil {
		return fmt.Errorf("nodeid: dir store: %w", err)
	}
	return CheckLayout("dir "+s.path+" (its file layout)", string(b), layout)
}

// createOnce makes the file name hold b, unless it exists: b goes to a
// temporary file, fsynced, which is hard-linked to name (a link never
// replaces a file, so of two racing writers one makes it and the other's
// link fails) and removed; the folder is fsynced. A reader sees name
// whole or not at all.
func (s dirStore) createOnce(name string, b []byte) error {
	f, err := os.CreateTemp(s.path, filepath.Base(name)+".*.tmp")
	if err != nil {
		return err
	}
	tmp := f.Name()
	defer os.Remove(tmp)
	_, err = f.Write(b)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	if err := os.Link(tmp, name); err != nil && !errors.Is(err, os.ErrExist) {
		return err
	}
	return syncDir(s.path)
}

// claimOrUnlock is claim, the locks given back when it fails.
func (s dirStore) claimOrUnlock(first int, files []*os.File) (Claim, error) {
	c, err := s.claim(first, files)
	if err != nil {
		unlockAll(files)
		return nil, err
	}
	return c, nil
}

// lockRun locks the node ids first..first+count-1 in the folder open as
// dfd. When one is held by someone else it unlocks the others and reports
// that node id as busy (busy is -1 when all were locked).
func (s dirStore) lockRun(dfd, first, count int) (files []*os.File, busy int, err error) {
	files = make([]*os.File, 0, count)
	for n := first; n < first+count; n++ {
		f, err := s.lockNode(dfd, n)
		if err != nil || f == nil {
			unlockAll(files)
			if err != nil {
				return nil, -1, err
			}
			return nil, n, nil
		}
		files = append(files, f)
	}
	return files, -1, nil
}

// claim reads the locked node ids' reservations and records the new
// holder's generation in them before the claim is handed out, so that no
// two holders of a node id ever get the same token, even if the first crashes at
// once.
func (s dirStore) claim(first int, files []*os.File) (*dirClaim, error) {
	c := &dirClaim{store: s, first: first, n: len(files), files: files, never: make(chan struct{})}
	untils := make([]int64, len(files))
	var gen int64
	for i := range files {
		name := s.reservedName(first + i)
		u, g, err := readReserved(name)
		if err != nil {
			return nil, err
		}
		if g == math.MaxInt64 {
			// The next token would wrap negative and read as corrupt.
			return nil, fmt.Errorf("nodeid: dir store: reservation file %s: generation %d is the last there is; the node id cannot be handed out again", name, g)
		}
		untils[i] = u
		c.floor = max(c.floor, u)
		gen = max(gen, g)
	}
	c.token = gen + 1
	if err := c.write(untils); err != nil {
		return nil, err
	}
	return c, nil
}

// readReserved parses a reservation file; a missing one is 0, 0.
func readReserved(name string) (until, gen int64, err error) {
	b, err := os.ReadFile(name)
	if errors.Is(err, os.ErrNotExist) {
		return 0, 0, nil
	}
	if err != nil {
		return 0, 0, fmt.Errorf("nodeid: dir store: %w", err)
	}
	f := strings.Fields(string(b))
	if len(f) != 2 || !strings.HasSuffix(string(b), "\n") {
		return 0, 0, fmt.Errorf("nodeid: dir store: reservation file %s is corrupt: %q, want \"UNTIL GEN\\n\"", name, b)
	}
	until, err1 := strconv.ParseInt(f[0], 10, 64)
	gen, err2 := strconv.ParseInt(f[1], 10, 64)
	if err := errors.Join(err1, err2); err != nil || gen < 0 {
		return 0, 0, fmt.Errorf("nodeid: dir store: reservation file %s is corrupt: %q, want \"UNTIL GEN\\n\" with a non-negative GEN", name, b)
	}
	return until, gen, nil
}

// dirClaim is a Dir store's hold on consecutive node ids: their lock files,
// kept open and locked until Release.
type dirClaim struct {
	store        dirStore
	first, n     int
	floor, token int64

	// never is the Lost channel: one per claim, made with it, so that a
	// lease taken inside a testing/synctest bubble waits on a channel of
	// the bubble (one package-level channel, made outside every bubble,
	// kept its refresher from ever counting as durably blocked, and
	// virtual time from moving).
	never chan struct{}

	mu     sync.Mutex
	files  []*os.File // nil once released
	stored []int64    // each node id's reserved-until as last written
}

func (c *dirClaim) First() int   { return c.first }
func (c *dirClaim) Count() int   { return c.n }
func (c *dirClaim) Floor() int64 { return c.floor }
func (c *dirClaim) Token() int64 { return c.token }

// Lost returns a channel that is never closed: a flock is held until the
// process unlocks it or ends, so while this process lives nobody can take
// the node ids from it (short of deleting the lock files, which Dir's
// contract forbids).
func (c *dirClaim) Lost() <-chan struct{} { return c.never }

// Reserve writes until as every node id's reserved-until. It only moves the
// reservation forward: a node id already at or past until keeps its value,
// and when all are it writes nothing.
func (c *dirClaim) Reserve(ctx context.Context, until int64) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.files == nil {
		return fmt.Errorf("%w: dir %s: node ids %d..%d were released", ErrLost, c.store.path, c.first, c.first+c.n-1)
	}
	untils := make([]int64, c.n)
	change := false
	for i, u := range c.stored {
		untils[i] = max(u, until)
		change = change || u < until
	}
	if !change {
		return nil
	}
	return c.write(untils)
}

// Release writes until as the final reserved-until of every node id, never
// below the previous holders' (Floor), then unlocks the node ids. The value
// may be below the last Reserve: a lease passes the end of the last tick
// it really used. When the write fails the node ids are still unlocked: the
// files then keep the last reservation, which covers every ID minted.
// Release ignores ctx: it always finishes, so that the node ids are never
// left locked by a release given up half-way.
func (c *dirClaim) Release(_ context.Context, until int64) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.files == nil {
		return nil
	}
	until = max(until, c.floor)
	untils := make([]int64, c.n)
	change := false
	for i, u := range c.stored {
		untils[i] = until
		change = change || u != until
	}
	var err error
	if change {
		err = c.write(untils)
	}
	unlockAll(c.files)
	c.files = nil
	return err
}

// write replaces the node ids' reservation files with untils[i] and the
// claim's token, each through a temporary file that is fsynced and renamed
// over the old one; one fsync of the folder then makes the renames
// durable, and only then is the write recorded in stored. The temporary
// names are fixed per node id: only the node id's holder writes them, and a
// leftover from a crash is overwritten.
func (c *dirClaim) write(untils []int64) error {
	for i, u := range untils {
		name := c.store.reservedName(c.first + i)
		tmp := name + ".tmp"
		if err := writeSync(tmp, fmt.Appendf(nil, "%d %d\n", u, c.token)); err != nil {
			return fmt.Errorf("nodeid: dir store: %w", err)
		}
		if err := replaceFile(tmp, name); err != nil {
			return fmt.Errorf("nodeid: dir store: %w", err)
		}
	}
	if err := syncDir(c.store.path); err != nil {
		return err
	}
	c.stored = untils
	return nil
}

func writeSync(name string, b []byte) error {
	f, err := os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return err
	}
	_, err = f.Write(b)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}
