package nodeid_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/snowlab/snowlab"
	"github.com/snowlab/snowlab/nodeid"
)

const maxNode = 1023 // the default layout's

func acquire(t *testing.T, s nodeid.Store, count int) nodeid.Claim {
	t.Helper()
	c, err := s.Acquire(context.Background(), snowlab.Layout{}, count, maxNode)
	require.NoError(t, err)
	return c
}

func release(t *testing.T, c nodeid.Claim, until int64) {
	t.Helper()
	require.NoError(t, c.Release(context.Background(), until))
}

// stored reads node id n's reservation file as until and generation.
func stored(t *testing.T, dir string, n int) (until, gen int64) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, fmt.Sprintf("slot-%04d.reserved", n)))
	require.NoError(t, err)
	f := strings.Fields(string(b))
	require.Len(t, f, 2, "reservation file %q", b)
	until, err = strconv.ParseInt(f[0], 10, 64)
	require.NoError(t, err)
	gen, err = strconv.ParseInt(f[1], 10, 64)
	require.NoError(t, err)
	return until, gen
}

// lockedElsewhere reports whether node id n's lock file is locked (flock, or
// LockFileEx on Windows) by some open file description other than a fresh
// one of ours.
func lockedElsewhere(t *testing.T, dir string, n int) bool {
	t.Helper()
	f, err := os.OpenFile(filepath.Join(dir, fmt.Sprintf("slot-%04d.lock", n)), os.O_RDWR|os.O_CREATE, 0o644)
	require.NoError(t, err)
	defer f.Close()
	return lockedByOther(t, f)
}

func TestDirCreatesFolder(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "a", "b")
	c := acquire(t, nodeid.Dir(dir), 1)
	defer release(t, c, 0)
	fi, err := os.Stat(dir)
	require.NoError(t, err)
	assert.True(t, fi.IsDir())
	assert.Equal(t, 0, c.First())
	assert.Equal(t, 1, c.Count())
	assert.Equal(t, int64(0), c.Floor(), "a never-held node id has no floor")
	assert.Equal(t, int64(1), c.Token(), "the first holder of a node id is generation 1")
}

// Two claims in one process exclude each other: each has its own open
// file description, and flock locks belong to those, not to the process.
func TestDirTwoAcquiresInOneProcess(t *testing.T) {
	dir := t.TempDir()
	s := nodeid.Dir(dir)
	a := acquire(t, s, 1)
	b := acquire(t, nodeid.Dir(dir), 1) // a second store value on the same folder
	assert.Equal(t, 0, a.First())
	assert.Equal(t, 1, b.First())
	assert.True(t, lockedElsewhere(t, dir, 0), "node id 0 is flocked while held")
	assert.True(t, lockedElsewhere(t, dir, 1), "node id 1 is flocked while held")

	release(t, a, 0)
	assert.False(t, lockedElsewhere(t, dir, 0), "release unlocks")
	c := acquire(t, s, 1)
	assert.Equal(t, 0, c.First(), "a released node id is taken again")
	release(t, b, 0)
	release(t, c, 0)
}

func TestDirConsecutive(t *testing.T) {
	dir := t.TempDir()
	s := nodeid.Dir(dir)
	one := acquire(t, s, 1)
	busy := acquire(t, s, 1)
	release(t, one, 0) // 0 is free, 1 is held
	require.Equal(t, 1, busy.First())

	four := acquire(t, s, 4)
	assert.Equal(t, 2, four.First(), "0..3 is not free, 2..5 is the first run of four")
	assert.Equal(t, 4, four.Count())
	for n := 2; n <= 5; n++ {
		assert.True(t, lockedElsewhere(t, dir, n), "node id %d is held", n)
	}
	assert.Equal(t, 0, acquire(t, s, 1).First())
	assert.Equal(t, 6, acquire(t, s, 1).First())

	// A run of 4 that fits only at the top of a small range.
	_, err := s.Acquire(context.Background(), snowlab.Layout{}, 4, 8)
	assert.ErrorIs(t, err, nodeid.ErrNoFreeNode, "7..8 is too short")
	nine := acquire(t, s, 1)
	assert.Equal(t, 7, nine.First())
	c, err := s.Acquire(context.Background(), snowlab.Layout{}, 3, 10)
	require.NoError(t, err)
	assert.Equal(t, 8, c.First())
	assert.Equal(t, 3, c.Count())
	release(t, c, 0)
	for n := 8; n <= 10; n++ {
		assert.False(t, lockedElsewhere(t, dir, n), "node id %d is released with its claim", n)
	}
}

// Every node id of the default layout taken, the next Acquire fails with
// ErrNoFreeNode; a release makes exactly that node id available.
func TestDirFull(t *testing.T) {
	dir := t.TempDir()
	s := nodeid.Dir(dir)
	claims := make([]nodeid.Claim, 0, maxNode+1)
	for range maxNode + 1 {
		claims = append(claims, acquire(t, s, 1))
	}
	for i, c := range claims {
		require.Equal(t, i, c.First())
	}
	_, err := s.Acquire(context.Background(), snowlab.Layout{}, 1, maxNode)
	require.ErrorIs(t, err, nodeid.ErrNoFreeNode, "the 1,025th acquirer")
	require.ErrorIs(t, err, nodeid.ErrNoFreeSlot, "the deprecated name is the same error")
	assert.Contains(t, err.Error(), dir)
	assert.Contains(t, err.Error(), "no 1 consecutive")

	// A real process is refused the same way.
	refused := startChild(t, "hold", dir)
	line := refused.next()
	assert.True(t, strings.HasPrefix(line, "nofree "), "the 1,025th acquirer, in another process: %q", line)
	var e *exec.ExitError
	assert.Empty(t, refused.drainAndWait())
	require.ErrorAs(t, refused.wait(), &e)
	assert.Equal(t, 3, e.ExitCode())

	// A released id goes to the next acquirer, in another process too, and
	// comes back when that one ends.
	release(t, claims[517], 0)
	holder := startChild(t, "hold", dir)
	assert.Equal(t, 517, holder.header().node)
	_, err = s.Acquire(context.Background(), snowlab.Layout{}, 1, maxNode)
	assert.ErrorIs(t, err, nodeid.ErrNoFreeNode, "the other process holds 517")
	require.NoError(t, holder.stdin.Close())
	holder.drainAndWait()
	require.NoError(t, holder.wait())
	c := acquire(t, s, 1)
	assert.Equal(t, 517, c.First())
	_, err = s.Acquire(context.Background(), snowlab.Layout{}, 1, maxNode)
	assert.ErrorIs(t, err, nodeid.ErrNoFreeNode)

	release(t, claims[100], 0)
	_, err = s.Acquire(context.Background(), snowlab.Layout{}, 2, maxNode)
	assert.ErrorIs(t, err, nodeid.ErrNoFreeNode, "one free node id is no run of two")
	assert.Contains(t, err.Error(), "no 2 consecutive")

	claims[517] = c
	for i, c := range claims {
		if i != 100 {
			release(t, c, 0)
		}
	}
}

// TestDirReservation: what a claim writes to its node id's reservation file
// (the Store suite checks what the next holder sees of it): the
// generation at Acquire, forward-only reservations while held, the final
// value at Release, and no temporary file left behind.
func TestDirReservation(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	s := nodeid.Dir(dir)

	a := acquire(t, s, 1)
	require.NoError(t, a.Reserve(ctx, 5000))
	u, g := stored(t, dir, 0)
	assert.Equal(t, [2]int64{5000, 1}, [2]int64{u, g})
	require.NoError(t, a.Reserve(ctx, 4000), "an earlier until is not an error")
	u, _ = stored(t, dir, 0)
	assert.Equal(t, int64(5000), u, "but the reservation never moves back while held")
	require.NoError(t, a.Reserve(ctx, 6000))
	u, _ = stored(t, dir, 0)
	assert.Equal(t, int64(6000), u)

	select {
	case <-a.Lost():
		t.Fatal("a Dir claim is never lost")
	default:
	}

	// Release may lower it to what was used.
	release(t, a, 3000)
	u, g = stored(t, dir, 0)
	assert.Equal(t, [2]int64{3000, 1}, [2]int64{u, g})
	assert.NoError(t, a.Release(ctx, 1), "a second release is a no-op")
	u, _ = stored(t, dir, 0)
	assert.Equal(t, int64(3000), u)

	b := acquire(t, s, 1)
	_, g = stored(t, dir, 0)
	assert.Equal(t, int64(2), g, "the generation is stored at Acquire, before any Reserve")
	release(t, b, 0)

	tmp, err := filepath.Glob(filepath.Join(dir, "*.tmp"))
	require.NoError(t, err)
	assert.Empty(t, tmp, "no temporary file is left behind")
}

// A claim on several node ids: the floor is the latest of theirs, the token
// is above every one's generation, and Reserve and Release write them all.
func TestDirReservationSeveralNodes(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "slot-0000.reserved"), []byte("100 3\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "slot-0001.reserved"), []byte("900 7\n"), 0o644))
	// node id 2 was never held
	c := acquire(t, nodeid.Dir(dir), 3)
	assert.Equal(t, int64(900), c.Floor())
	assert.Equal(t, int64(8), c.Token())
	require.NoError(t, c.Reserve(ctx, 2000))
	for n := range 3 {
		u, g := stored(t, dir, n)
		assert.Equal(t, [2]int64{2000, 8}, [2]int64{u, g}, "node id %d", n)
	}
	release(t, c, 1500)
	for n := range 3 {
		u, g := stored(t, dir, n)
		assert.Equal(t, [2]int64{1500, 8}, [2]int64{u, g}, "node id %d", n)
	}
	d := acquire(t, nodeid.Dir(dir), 1)
	assert.Equal(t, int64(9), d.Token())
	release(t, d, 0)
}

// A reservation file that does not parse is an error naming it, never a
// zero floor; the node id is not left locked.
func TestDirCorruptReservation(t *testing.T) {
	for _, content := range []string{
		"",
		"\n",
		"1700000000000000000\n", // no generation
		"1700000000000000000 1", // no newline: cut short
		"1700000000000000000 x\n",
		"x 1\n",
		"1.5 1\n",
		"1 2 3\n",
		"1 -2\n",
		"99999999999999999999 1\n",
	} {
		t.Run(strconv.Quote(content), func(t *testing.T) {
			dir := t.TempDir()
			name := filepath.Join(dir, "slot-0000.reserved")
			require.NoError(t, os.WriteFile(name, []byte(content), 0o644))
			_, err := nodeid.Dir(dir).Acquire(context.Background(), snowlab.Layout{}, 1, maxNode)
			require.Error(t, err)
			assert.Contains(t, err.Error(), name)
			assert.Contains(t, err.Error(), "corrupt")
			assert.NotErrorIs(t, err, nodeid.ErrNoFreeNode)
			assert.False(t, lockedElsewhere(t, dir, 0), "the failed Acquire unlocked the node id")
			b, err := os.ReadFile(name)
			require.NoError(t, err)
			assert.Equal(t, content, string(b), "the file is left for a person to look at")

			// Once a person has put it right, the node id can be had.
			require.NoError(t, os.WriteFile(name, []byte("1700000000000000000 4\n"), 0o644))
			c := acquire(t, nodeid.Dir(dir), 1)
			assert.Equal(t, int64(1700000000000000000), c.Floor())
			assert.Equal(t, int64(5), c.Token())
			release(t, c, 0)
		})
	}
}

// A corrupt file of a node id in the middle of a run fails the whole Acquire
// and unlocks the rest of the run.
func TestDirCorruptReservationInRun(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "slot-0002.reserved"), []byte("garbage\n"), 0o644))
	_, err := nodeid.Dir(dir).Acquire(context.Background(), snowlab.Layout{}, 4, maxNode)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "slot-0002.reserved")
	for n := range 4 {
		assert.False(t, lockedElsewhere(t, dir, n), "node id %d", n)
	}
}

// The folder's layout: recorded by the first Acquire in the file layout,
// refused with ErrLayout for another, also when the file holds no layout
// (a hand edit), which is left as it was.
func TestDirLayout(t *testing.T) {
	dir := t.TempDir()
	narrow := snowlab.Layout{TimeBits: 41, NodeBits: 8, SeqBits: 14, Unit: time.Millisecond, Epoch: snowlab.DefaultLayout.Epoch}
	release(t, acquire(t, nodeid.Dir(dir), 1), 0)
	b, err := os.ReadFile(filepath.Join(dir, "layout"))
	require.NoError(t, err)
	assert.Equal(t, "41/10/12,1ms,2024-01-01T00:00:00Z", string(b))
	_, err = nodeid.Dir(dir).Acquire(context.Background(), narrow, 1, 255)
	require.ErrorIs(t, err, nodeid.ErrLayout)
	assert.Contains(t, err.Error(), "dir "+dir+" (its file layout) records layout 41/10/12,1ms,2024-01-01T00:00:00Z, the holder's is 41/8/14,1ms,2024-01-01T00:00:00Z")

	require.NoError(t, os.WriteFile(filepath.Join(dir, "layout"), []byte("41/10/12 please\n"), 0o644))
	_, err = nodeid.Dir(dir).Acquire(context.Background(), snowlab.Layout{}, 1, maxNode)
	require.ErrorIs(t, err, nodeid.ErrLayout)
	assert.Contains(t, err.Error(), `holds "41/10/12 please\n", not a layout this version reads`)
	b, err = os.ReadFile(filepath.Join(dir, "layout"))
	require.NoError(t, err)
	assert.Equal(t, "41/10/12 please\n", string(b), "the file is left for a person to look at")
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	for _, e := range entries {
		assert.False(t, strings.HasSuffix(e.Name(), ".tmp"), "a temporary file left: %s", e.Name())
	}
}
