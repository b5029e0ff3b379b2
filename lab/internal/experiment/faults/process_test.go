package faults

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
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
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), childEnv+"="+kind)
	out, err := cmd.StdoutPipe()
	require.NoError(t, err)
	p, err := startProcess(cmd)
	require.NoError(t, err)
	t.Cleanup(p.Kill)
	line, err := bufio.NewReader(out).ReadString('\n')
	require.NoError(t, err)
	require.Equal(t, "ready\n", line)
	return p
}

func TestTailKeepsTheLastBytes(t *testing.T) {
	tail := newTailBuffer(4)
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
	assert.Nil(t, p.State(), "running: no exit state yet")
	// 10 s: far beyond the milliseconds a SIGTERM takes, so that only a
	// Stop that never signalled could reach the kill.
	assert.True(t, p.Stop(10*time.Second))
	st := p.State()
	require.NotNil(t, st)
	ws, ok := st.Sys().(syscall.WaitStatus)
	require.True(t, ok)
	assert.Equal(t, syscall.SIGTERM, ws.Signal(), "ended by the SIGTERM, not the kill")
	assert.True(t, p.Stop(time.Second), "a second Stop finds it gone")
}

func TestProcessKilledAfterGrace(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no SIGTERM on Windows: Stop kills at once")
	}
	p := startChild(t, "ignore")
	assert.False(t, p.Stop(50*time.Millisecond), "it ignores SIGTERM: the kill ends it")
	ws, ok := p.State().Sys().(syscall.WaitStatus)
	require.True(t, ok)
	assert.Equal(t, syscall.SIGKILL, ws.Signal())
	select {
	case <-p.Exited():
	default:
		t.Fatal("Exited not closed after Stop")
	}
}
