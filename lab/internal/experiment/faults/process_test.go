package faults

import (
	"fmt"
	"os"
	"os/signal"
	"runtime"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// childEnv makes this test binary, run as a child, the process the tests
// supervise: "term" exits on SIGTERM (Go's default), "ignore" ignores it;
// both say "ready" once their signal handling is set, then wait.
const childEnv = "FAULTS_PROCESS_CHILD"

func TestMain(m *testing.M) {
	switch os.Getenv(childEnv) {
	case "":
		os.Exit(m.Run())
	case "ignore":
		signal.Ignore(syscall.SIGTERM)
	}
	fmt.Println("ready")
	// Until a signal ends it: an empty select would be a deadlock the
	// runtime reports, with no other goroutine alive.
	time.Sleep(time.Hour)
	os.Exit(3)
}

// startChild starts a child of the given kind and waits for its "ready".
func startChild(t *testing.T, kind string) *process {
	t.Helper()
	p := newProcess("child", 4<<10, os.Args[0])
	p.env = []string{childEnv + "=" + kind}
	ready, err := p.start("ready\n")
	require.NoError(t, err)
	t.Cleanup(p.kill)
	select {
	case <-ready:
	case <-p.done():
		t.Fatalf("the child exited before it was ready: %v\n%s", p.state(), p.out)
	}
	return p
}

func TestTailKeepsTheLastBytes(t *testing.T) {
	tail := &tailBuffer{max: 4}
	for _, s := range []string{"ab", "cde", "", "f"} {
		n, err := tail.Write([]byte(s))
		require.NoError(t, err)
		assert.Equal(t, len(s), n)
	}
	assert.Equal(t, "cdef", tail.String())
	_, _ = tail.Write([]byte("0123456789"))
	assert.Equal(t, "6789", tail.String(), "one write longer than the bound")
	var none *tailBuffer
	assert.Empty(t, none.String())
}

// A mark is seen once written, whole or split across two writes.
func TestTailSeesItsMark(t *testing.T) {
	for _, writes := range [][]string{{"x serving\n"}, {"x ser", "ving\n"}} {
		tail := &tailBuffer{max: 4}
		tail.mark, tail.seen = []byte("serving"), make(chan struct{})
		for i, w := range writes {
			select {
			case <-tail.seen:
				t.Fatalf("%q: seen after %d of %d writes", writes, i, len(writes))
			default:
			}
			_, _ = tail.Write([]byte(w))
		}
		select {
		case <-tail.seen:
		default:
			t.Fatalf("%q: mark not seen", writes)
		}
	}
}

// A process started again keeps the output of its earlier runs and
// counts the restart.
func TestProcessRestarts(t *testing.T) {
	p := startChild(t, "term")
	p.kill()
	assert.False(t, p.running())
	ready, err := p.start("ready\n")
	require.NoError(t, err)
	<-ready
	_, err = p.start("")
	assert.ErrorContains(t, err, "child is running")
	assert.Equal(t, 1, p.restarts())
	p.kill()
	assert.Equal(t, "--- child ---\nready\n--- restarted ---\nready\n", p.logs(1<<10))
}

// TestFreePortsAreDistinct: and outside the ephemeral range, where the
// kernel would lend them to outgoing connections.
func TestFreePortsAreDistinct(t *testing.T) {
	ports, err := freePorts(16)
	require.NoError(t, err)
	low, high := belowEphemeral()
	if runtime.GOOS == "linux" {
		require.Less(t, low, high, "Linux says where its ephemeral range starts")
	}
	seen := map[int]bool{}
	for _, p := range ports {
		assert.Greater(t, p, 0)
		if high > low {
			assert.True(t, p >= low && p < high, "port %d outside [%d, %d)", p, low, high)
		}
		assert.False(t, seen[p], "port %d twice", p)
		seen[p] = true
	}
}

func TestProcessStopsOnSIGTERM(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no SIGTERM on Windows: Stop kills at once")
	}
	p := startChild(t, "term")
	assert.Nil(t, p.state(), "running: no exit state yet")
	// 10 s: far beyond the milliseconds a SIGTERM takes, so that only a
	// Stop that never signalled could reach the kill.
	assert.True(t, p.stop(10*time.Second))
	st := p.state()
	require.NotNil(t, st)
	ws, ok := st.Sys().(syscall.WaitStatus)
	require.True(t, ok)
	assert.Equal(t, syscall.SIGTERM, ws.Signal(), "ended by the SIGTERM, not the kill")
	assert.True(t, p.stop(time.Second), "a second Stop finds it gone")
}

func TestProcessKilledAfterGrace(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no SIGTERM on Windows: Stop kills at once")
	}
	p := startChild(t, "ignore")
	assert.False(t, p.stop(50*time.Millisecond), "it ignores SIGTERM: the kill ends it")
	ws, ok := p.state().Sys().(syscall.WaitStatus)
	require.True(t, ok)
	assert.Equal(t, syscall.SIGKILL, ws.Signal())
	select {
	case <-p.done():
	default:
		t.Fatal("Exited not closed after Stop")
	}
}
