//go:build unix

package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net/url"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/snowlab/snowlab"
	"github.com/snowlab/snowlab/etcdlease"
	"github.com/snowlab/snowlab/etcdlease/etcdtest"
	"github.com/snowlab/snowlab/nodeid"
	"github.com/snowlab/snowlab/pglease"
	"github.com/snowlab/snowlab/snowidd/internal/testend"
)

// startGen starts snowid gen -lease spec in a process of its own (this
// test binary, running main), minting for minutes unless stopped, and
// returns it once it has said which node id it holds and printed its
// first ID. Its stdout is drained from then on, so that a full pipe never
// holds it; last waits for the end of that stdout, when the process has
// ended, and returns the last ID it printed. Call it before cmd.Wait,
// which closes the pipe.
func startGen(t *testing.T, spec string) (cmd *exec.Cmd, last func() snowlab.ID) {
	t.Helper()
	cmd, lines, _ := startGenPipe(t, spec)
	lastLine := lines.Text()
	done := make(chan struct{})
	go func() {
		defer close(done)
		for lines.Scan() {
			lastLine = lines.Text()
		}
	}()
	return cmd, func() snowlab.ID {
		<-done
		require.NoError(t, lines.Err())
		id, err := snowlab.ParseID(lastLine)
		require.NoError(t, err, "the last line is a whole ID")
		return id
	}
}

// startGenPipe is startGen up to the first ID, which lines holds; the
// rest of stdout is the caller's to read, or to close.
func startGenPipe(t *testing.T, spec string) (*exec.Cmd, *bufio.Scanner, io.Closer) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "gen", "-lease", spec, "-n", "1000000000")
	cmd.Env = append(os.Environ(), asSnowid+"=1")
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	stderr, err := cmd.StderrPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })

	errLine, err := bufio.NewReader(stderr).ReadString('\n')
	require.NoError(t, err)
	assert.Equal(t, "snowid: gen: node 0, leased from "+nodeid.Redact(spec)+"\n", errLine, "the node line comes before the IDs")
	go io.Copy(io.Discard, stderr)
	lines := bufio.NewScanner(stdout)
	require.True(t, lines.Scan(), "gen printed no ID: %v", lines.Err())
	return cmd, lines, stdout
}

// checkFloor asserts that a claim's floor is the end of the tick of last,
// the last ID the previous holder printed: what its Release stored. A
// holder killed without releasing leaves its reservation, a window (3 s)
// ahead of its clock.
func checkFloor(t *testing.T, c nodeid.Claim, last snowlab.ID) {
	t.Helper()
	l := snowlab.DefaultLayout
	assert.Equal(t, l.Decode(last).Time.Add(l.Unit).UnixNano(), c.Floor(),
		"the floor is the end of the last ID's tick (%v), not the reservation", l.Decode(last).Time)
}

// waitSignalled waits for cmd and asserts it died of sig (not an exit
// code): what a shell reads as 128+sig, and a shell loop as Ctrl-C.
func waitSignalled(t *testing.T, cmd *exec.Cmd, sig syscall.Signal) {
	t.Helper()
	err := cmd.Wait()
	require.Error(t, err)
	ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus)
	require.True(t, ok)
	require.True(t, ws.Signaled(), "%v: gen exited (%d) instead of dying of %v", err, ws.ExitStatus(), sig)
	assert.Equal(t, sig, ws.Signal())
}

// TestSignalReleasesLease sends SIGTERM and SIGINT to a real snowid gen
// -lease dir: in the middle of its run: it releases its node id before it
// dies of the signal, so the next holder's floor is the end of the last
// tick it used, not the reservation a window (3 s) ahead of the clock
// that a killed holder leaves (before the fix gen died at once, and the
// next holder waited for that reservation).
func TestSignalReleasesLease(t *testing.T) {
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGINT} {
		t.Run(sig.String(), func(t *testing.T) {
			dir := t.TempDir()
			cmd, last := startGen(t, "dir:"+dir)
			require.NoError(t, cmd.Process.Signal(sig))
			lastID := last()
			waitSignalled(t, cmd, sig)

			c, err := nodeid.Dir(dir).Acquire(context.Background(), snowlab.DefaultLayout, 1, snowlab.DefaultLayout.MaxNode())
			require.NoError(t, err)
			defer c.Release(context.Background(), c.Floor())
			require.Equal(t, 0, c.First())
			checkFloor(t, c, lastID)
		})
	}
}

// TestClosedPipeReleasesLease: snowid gen -lease … | head, the reader
// gone after one line: gen's next write fails, and it releases its lease
// before it dies of SIGPIPE, as any command writing into a closed pipe
// does (before, the runtime ended it on that SIGPIPE with its lease held).
func TestClosedPipeReleasesLease(t *testing.T) {
	dir := t.TempDir()
	cmd, lines, stdout := startGenPipe(t, "dir:"+dir)
	first, err := snowlab.ParseID(lines.Text())
	require.NoError(t, err)
	require.NoError(t, stdout.Close())
	waitSignalled(t, cmd, syscall.SIGPIPE)

	c, err := nodeid.Dir(dir).Acquire(context.Background(), snowlab.DefaultLayout, 1, snowlab.DefaultLayout.MaxNode())
	require.NoError(t, err)
	defer c.Release(context.Background(), c.Floor())
	checked := time.Now()
	l := snowlab.DefaultLayout
	require.Equal(t, 0, c.First())
	assert.Greater(t, c.Floor(), l.Decode(first).Time.UnixNano(), "the floor is past the IDs printed")
	assert.LessOrEqual(t, c.Floor(), checked.Add(l.Unit).UnixNano(),
		"the floor is the last tick used (its end at most a tick past the clock), not the reservation a window ahead")
}

// TestSignalReleasesEtcdLease: the same on etcd, where a holder killed
// without releasing keeps its node id for the lease's TTL (10 s): after
// SIGTERM the next claim takes node id 0 at once, its floor the end of
// the last tick used.
func TestSignalReleasesEtcdLease(t *testing.T) {
	if _, err := etcdtest.Binary(); err != nil {
		if os.Getenv("SNOWLAB_REQUIRE_ETCD") == "1" {
			t.Fatalf("etcd is required when SNOWLAB_REQUIRE_ETCD=1: %v", err)
		}
		t.Skip(err)
	}
	srv, err := etcdtest.Start(t.TempDir())
	require.NoError(t, err)
	t.Cleanup(srv.Stop)
	spec := "etcd:" + srv.Endpoints()[0] + prefix + "/signal"
	cmd, last := startGen(t, spec)
	require.NoError(t, cmd.Process.Signal(syscall.SIGTERM))
	lastID := last()
	waitSignalled(t, cmd, syscall.SIGTERM)

	store, err := nodeid.OpenStore(spec, map[string]nodeid.Opener{"etcd": etcdlease.Opener(0)})
	require.NoError(t, err)
	c, err := store.Acquire(testend.Context(t), snowlab.DefaultLayout, 1, snowlab.DefaultLayout.MaxNode())
	require.NoError(t, err)
	defer c.Release(context.Background(), c.Floor())
	assert.Equal(t, 0, c.First(), "node id 0 is free at once, not held for the TTL")
	checkFloor(t, c, lastID)
}

// TestSignalReleasesPGLease: the same on PostgreSQL (PG_DSN), where a
// holder killed without releasing keeps its row for the TTL (10 s).
func TestSignalReleasesPGLease(t *testing.T) {
	dsn := strings.TrimSpace(os.Getenv("PG_DSN"))
	if dsn == "" {
		if os.Getenv("SNOWLAB_REQUIRE_PG") == "1" {
			t.Fatal("SNOWLAB_REQUIRE_PG=1 but PG_DSN is not set: .ci/run starts PostgreSQL with scripts/pg.sh")
		}
		t.Skip("PG_DSN not set: PG_DSN=$(scripts/pg.sh start) make test-pg runs it")
	}
	u, err := url.Parse(dsn)
	require.NoError(t, err, "scripts/pg.sh prints a postgres:// URL")
	q := u.Query()
	q.Set("snowlab_table", fmt.Sprintf("snowid_signal_%d", time.Now().UnixNano()))
	u.RawQuery = q.Encode()
	spec := "pg:" + u.String()
	cmd, last := startGen(t, spec)
	require.NoError(t, cmd.Process.Signal(syscall.SIGTERM))
	lastID := last()
	waitSignalled(t, cmd, syscall.SIGTERM)

	store, err := nodeid.OpenStore(spec, map[string]nodeid.Opener{"pg": pglease.Opener(0)})
	require.NoError(t, err)
	c, err := store.Acquire(testend.Context(t), snowlab.DefaultLayout, 1, snowlab.DefaultLayout.MaxNode())
	require.NoError(t, err)
	defer c.Release(context.Background(), c.Floor())
	assert.Equal(t, 0, c.First(), "node id 0 is free at once, not held for the TTL")
	checkFloor(t, c, lastID)
}
