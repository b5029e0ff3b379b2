package nodeid_test

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/snowlab/snowlab"
	"github.com/snowlab/snowlab/atomicgen"
	"github.com/snowlab/snowlab/clocksrc"
	"github.com/snowlab/snowlab/nodeid"
	"github.com/snowlab/snowlab/nodeid/storetest"
)

// The lease holder the process tests run is this test binary, started
// again with helperEnv set: TestMain then runs the holder instead of the
// tests.
const (
	helperEnv       = "NODEID_TEST_HOLDER"       // "hold" or "mint"
	helperDirEnv    = "NODEID_TEST_DIR"          // the Dir store's folder
	helperOffsetEnv = "NODEID_TEST_CLOCK_OFFSET" // a time.Duration added to the holder's clock
	helperStartEnv  = "NODEID_TEST_CLOCK_START"  // Unix ns: the holder's clock reads this first (startedAt)
	helperWindowEnv = "NODEID_TEST_WINDOW"       // Options.Window
	helperOnlyEnv   = "NODEID_TEST_ONLY_NODE_0"  // "1": the store offers node id 0 alone
)

func TestMain(m *testing.M) {
	if mode := os.Getenv(helperEnv); mode != "" {
		os.Exit(runHolder(mode))
	}
	os.Exit(m.Run())
}

// runHolder acquires a lease on the Dir store, prints
// "node N floor F token T" (or "nofree ERR" / "error ERR"), and then:
//
//   - hold: keeps the lease until stdin is closed, then releases it;
//   - mint: mints IDs with atomicgen for ever, one decimal ID a line,
//     flushing every 64 lines, until it is killed (or stdout breaks).
func runHolder(mode string) int {
	out := bufio.NewWriter(os.Stdout)
	fail := func(format string, args ...any) int {
		fmt.Fprintf(out, format+"\n", args...)
		out.Flush()
		return 1
	}
	var offset, window time.Duration
	for env, d := range map[string]*time.Duration{helperOffsetEnv: &offset, helperWindowEnv: &window} {
		if v := os.Getenv(env); v != "" {
			var err error
			if *d, err = time.ParseDuration(v); err != nil {
				return fail("error $%s: %v", env, err)
			}
		}
	}
	clock := clocksrc.Default()
	if offset != 0 {
		base := clock
		clock = clocksrc.Func(func() int64 { return base.UnixNano() + int64(offset) })
	}
	if v := os.Getenv(helperStartEnv); v != "" {
		start, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return fail("error $%s: %v", helperStartEnv, err)
		}
		clock = startedAt(start)
	}
	ctx := context.Background()
	store := nodeid.Dir(os.Getenv(helperDirEnv))
	if os.Getenv(helperOnlyEnv) == "1" {
		store = firstNodes{store, 0}
	}
	lease, err := nodeid.Acquire(ctx, store, nodeid.Options{Window: window, Clock: clock})
	if errors.Is(err, nodeid.ErrNoFreeNode) {
		fail("nofree %v", err)
		return 3
	}
	if err != nil {
		return fail("error %v", err)
	}
	fmt.Fprintf(out, "node %d floor %d token %d\n", lease.Node(), lease.Fence().Floor(), lease.Token())
	if err := out.Flush(); err != nil {
		return 1
	}
	switch mode {
	case "hold":
		_, _ = io.Copy(io.Discard, os.Stdin)
		if err := lease.Release(ctx); err != nil {
			fmt.Fprintln(os.Stderr, "release:", err)
			return 1
		}
		return 0
	case "mint":
		g, err := atomicgen.New(lease.Config(snowlab.Config{MaxFloorWait: time.Minute}))
		if err != nil {
			fmt.Fprintln(os.Stderr, "atomicgen.New:", err)
			return 1
		}
		// A holder whose test ended (its stdin closed with the test
		// process, or by the test) ends too: a fixed 2 minutes was the
		// bound before, which a slow test on a loaded machine outlived.
		ended := make(chan struct{})
		go func() { _, _ = io.Copy(io.Discard, os.Stdin); close(ended) }()
		for i := 0; ; i++ {
			select {
			case <-ended:
				_ = out.Flush()
				return 0
			default:
			}
			id, err := g.NextID()
			if errors.Is(err, snowlab.ErrNoReservation) {
				time.Sleep(time.Millisecond) // the refresher is behind: wait for it
				continue
			}
			if err != nil {
				fmt.Fprintln(os.Stderr, "NextID:", err)
				return 1
			}
			out.WriteString(strconv.FormatInt(int64(id), 10))
			out.WriteByte('\n')
			if i%64 == 63 {
				if err := out.Flush(); err != nil {
					return 1
				}
			}
		}
	}
	fmt.Fprintln(os.Stderr, "unknown mode", mode)
	return 2
}

// A child is a running holder.
type child struct {
	t      *testing.T
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	lines  chan string
	stderr syncBuffer
	once   sync.Once
	err    error           // Wait's
	ends   context.Context // storetest.UntilTestEnds
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func startChild(t *testing.T, mode, dir string, env ...string) *child {
	t.Helper()
	exe, err := os.Executable()
	require.NoError(t, err)
	c := &child{t: t, lines: make(chan string, 1024), ends: storetest.UntilTestEnds(t)}
	c.cmd = exec.Command(exe)
	// A race-enabled binary sleeps 1 s on exit unless told not to.
	gorace := strings.TrimSpace(os.Getenv("GORACE") + " atexit_sleep_ms=0")
	c.cmd.Env = append(os.Environ(), append([]string{helperEnv + "=" + mode, helperDirEnv + "=" + dir, "GORACE=" + gorace}, env...)...)
	c.cmd.Stderr = &c.stderr
	c.stdin, err = c.cmd.StdinPipe()
	require.NoError(t, err)
	stdout, err := c.cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, c.cmd.Start())
	go func() {
		defer close(c.lines)
		r := bufio.NewReader(stdout)
		for {
			line, err := r.ReadString('\n')
			if err != nil {
				return // a last line without its newline was cut by a kill: not an ID
			}
			c.lines <- strings.TrimSuffix(line, "\n")
		}
	}()
	t.Cleanup(func() { c.kill() })
	return c
}

// next returns the next line, failing the test when the child ends, or
// when the test ends first (30 s of silence was the bound before).
func (c *child) next() string {
	c.t.Helper()
	select {
	case line, ok := <-c.lines:
		if !ok {
			c.t.Fatalf("the holder ended: %v\nstderr: %s", c.wait(), c.stderr.String())
		}
		return line
	case <-c.ends.Done():
		c.t.Fatalf("the holder printed no next line by the test's end\nstderr: %s", c.stderr.String())
	}
	return ""
}

type header struct {
	node         int
	floor, token int64
}

func (c *child) header() header {
	c.t.Helper()
	line := c.next()
	var h header
	_, err := fmt.Sscanf(line, "node %d floor %d token %d", &h.node, &h.floor, &h.token)
	require.NoError(c.t, err, "holder's first line %q\nstderr: %s", line, c.stderr.String())
	return h
}

func (c *child) id() snowlab.ID {
	c.t.Helper()
	line := c.next()
	id, err := snowlab.ParseID(line)
	require.NoError(c.t, err, "holder's line %q", line)
	return id
}

// kill ends the child with SIGKILL and returns the lines it printed that
// were not read yet.
func (c *child) kill() []string {
	_ = c.cmd.Process.Kill()
	return c.drainAndWait()
}

// drainAndWait reads the rest of the output and waits for the child.
func (c *child) drainAndWait() []string {
	var rest []string
	for line := range c.lines {
		rest = append(rest, line)
	}
	c.wait()
	return rest
}

// wait waits for the child to end (the output must have been drained, or
// the child killed, first) and returns Wait's error.
func (c *child) wait() error {
	c.once.Do(func() { c.err = c.cmd.Wait() })
	return c.err
}

// Real processes acquiring from one folder at once hold different ids; a
// holder that ends frees its id.
func TestDirProcessesGetDifferentIDs(t *testing.T) {
	dir := t.TempDir()
	const n = 4
	children := make([]*child, n)
	for i := range children {
		children[i] = startChild(t, "hold", dir)
	}
	seen := map[int]bool{}
	for _, c := range children {
		h := c.header()
		assert.False(t, seen[h.node], "node %d held by two processes", h.node)
		seen[h.node] = true
		assert.Equal(t, int64(1), h.token)
	}
	for i := range n {
		assert.True(t, seen[i], "the holders took the lowest ids; %d is missing", i)
	}
	// While they all hold, this process gets the next one.
	c := acquire(t, nodeid.Dir(dir), 1)
	assert.Equal(t, n, c.First())
	release(t, c, 0)

	for _, c := range children {
		require.NoError(t, c.stdin.Close())
		assert.Empty(t, c.drainAndWait())
		require.NoError(t, c.wait(), "the holder released and exited cleanly; stderr: %s", c.stderr.String())
	}
	for i := range n {
		assert.False(t, lockedElsewhere(t, dir, i), "node id %d is free once its holder ended", i)
		_, gen := stored(t, dir, i)
		assert.Equal(t, int64(1), gen)
	}
}

// A holder killed with SIGKILL in the middle of minting, on a clock 1.5 s
// ahead: a successor on the same folder prefers another id, whose
// reservation is behind its clock; one that can only have the same id
// mints above every ID the dead one printed, because it starts past the
// dead one's stored reservation.
//
// The successors are restarted at once: their clocks start where the
// real clock stood when the dead holder stamped its last ID (startedAt),
// however long the test took to get there. On the real clock a loaded
// machine that spent 1.5 s between the kill and a successor's start
// (seen at load average 18-20) moved the successor past the dead
// holder's IDs, and the control below failed: nothing was left for the
// floor to do.
func TestDirCrashAndRestart(t *testing.T) {
	dir := t.TempDir()
	const ahead = 1500 * time.Millisecond
	dead := startChild(t, "mint", dir, helperOffsetEnv+"="+ahead.String(), helperWindowEnv+"=500ms")
	h := dead.header()
	require.Equal(t, header{node: 0, floor: 0, token: 1}, h)
	var deadIDs []snowlab.ID
	for len(deadIDs) < 5000 {
		deadIDs = append(deadIDs, dead.id())
	}
	for _, line := range dead.kill() {
		id, err := snowlab.ParseID(line)
		require.NoError(t, err, "dead holder's line %q", line)
		deadIDs = append(deadIDs, id)
	}
	var e *exec.ExitError
	require.ErrorAs(t, dead.wait(), &e)
	require.False(t, e.Exited(), "the holder was killed, not exited: %v", e)
	maxDead := deadIDs[0]
	for i, id := range deadIDs[1:] {
		require.Greater(t, id, deadIDs[i], "the dead holder's IDs increase")
		maxDead = max(maxDead, id)
	}
	r, gen := stored(t, dir, 0)
	require.Equal(t, int64(1), gen)
	require.LessOrEqual(t, tickEnd(maxDead), r, "every ID the dead holder printed was inside its stored reservation")
	t.Logf("dead holder printed %d IDs up to %v; stored reservation %v",
		len(deadIDs), snowlab.DefaultLayout.Decode(maxDead).Time.UTC().Format(time.StampMicro), time.Unix(0, r).UTC().Format(time.StampMicro))

	// The successors' clock: the right one, as it read when the dead
	// holder stamped its last ID.
	start := snowlab.DefaultLayout.Decode(maxDead).Time.UnixNano() - int64(ahead)
	startEnv := fmt.Sprintf("%s=%d", helperStartEnv, start)

	// The control: a successor without the floor, on that clock, would
	// mint below the dead holder's IDs. So the check below tests the
	// floor, not luck.
	bare, err := atomicgen.New(snowlab.Config{Node: h.node, Clock: startedAt(start)})
	require.NoError(t, err)
	id, err := bare.NextID()
	require.NoError(t, err)
	require.Less(t, id, maxDead, "without the floor the successor would reuse the dead holder's time")

	other := startChild(t, "mint", dir, helperWindowEnv+"=500ms", startEnv)
	assert.Equal(t, header{node: 1, floor: 0, token: 1}, other.header(),
		"a successor passes over the id whose reservation is ahead of its clock")
	other.kill()
	_ = other.wait()
	r0, _ := stored(t, dir, 0)
	assert.Equal(t, r, r0, "passing over an id leaves its reservation where it was")

	succ := startChild(t, "mint", dir, helperWindowEnv+"=500ms", helperOnlyEnv+"=1", startEnv)
	h2 := succ.header()
	assert.Equal(t, h.node, h2.node, "the dead holder's id is free again")
	assert.Equal(t, r, h2.floor, "the successor's floor is the dead holder's stored reservation")
	assert.Equal(t, int64(3), h2.token, "token 2 went to the holder that passed over it")
	var prev snowlab.ID
	for i := range 2000 {
		id := succ.id()
		if i == 0 {
			assert.GreaterOrEqual(t, snowlab.DefaultLayout.Decode(id).Time.UnixNano(), r, "the first new ID starts at or after the stored reservation")
		}
		require.Greater(t, id, maxDead, "new ID %d is not above every ID of the dead holder", i)
		require.Greater(t, id, prev)
		prev = id
	}
	succ.kill()
}
