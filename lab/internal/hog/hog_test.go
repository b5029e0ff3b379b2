//go:build linux

package hog

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"syscall"
	"testing"
	"time"
)

// childEnv makes this test binary the hog's child: TestMain runs Busy
// instead of the tests when it is set.
const childEnv = "SNOWLAB_HOG_TEST_CHILD"

func TestMain(m *testing.M) {
	if v := os.Getenv(childEnv); v != "" {
		d, _ := time.ParseDuration(v)
		if err := Busy(1, d); err != nil {
			os.Exit(2)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// testChild starts this test binary as the hog, spinning for max.
func testChild(threads int, max time.Duration) (*exec.Cmd, error) {
	cmd := exec.Command(os.Args[0], "-test.run", "^$")
	cmd.Env = append(os.Environ(), childEnv+"="+max.String())
	return cmd, nil
}

// gone reports whether pid no longer exists (it was killed and reaped).
func gone(pid int) bool {
	return errors.Is(syscall.Kill(pid, 0), syscall.ESRCH)
}

func TestStopKillsTheHog(t *testing.T) {
	h, err := Start(context.Background(), Config{Threads: 1, Max: MaxFor, Command: testChild})
	if err != nil {
		t.Fatal(err)
	}
	select {
	case <-h.exited():
		t.Fatal("the hog ended before it was stopped")
	default:
	}
	h.Stop()
	<-h.exited()
	if !gone(h.pid()) {
		t.Errorf("pid %d still exists after Stop", h.pid())
	}
	if ws, ok := h.cmd.ProcessState.Sys().(syscall.WaitStatus); !ok || ws.Signal() != syscall.SIGKILL {
		t.Errorf("the hog ended with %v, want killed", h.cmd.ProcessState)
	}
	h.Stop() // a second Stop is harmless
}

func TestCancelKillsTheHog(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	h, err := Start(ctx, Config{Threads: 1, Max: MaxFor, Command: testChild})
	if err != nil {
		t.Fatal(err)
	}
	cancel() // Ctrl-C: the runner's context ends
	<-h.exited()
	if !gone(h.pid()) {
		t.Errorf("pid %d still exists after cancel", h.pid())
	}
	if h.cmd.ProcessState.Success() {
		t.Errorf("the hog exited by itself, want killed on cancel")
	}
}

// TestHogEndsByItself: never stopped, the child ends after its Max, so a
// lab that dies leaves no hog spinning.
func TestHogEndsByItself(t *testing.T) {
	h, err := Start(context.Background(), Config{Threads: 1, Max: 20 * time.Millisecond, Command: testChild})
	if err != nil {
		t.Fatal(err)
	}
	<-h.exited()
	if !h.cmd.ProcessState.Success() {
		t.Errorf("the hog ended with %v, want exit 0 after its time", h.cmd.ProcessState)
	}
	if cpu := h.Stop(); cpu <= 0 {
		t.Errorf("the hog took %v CPU, want some", cpu)
	}
}

func TestBounds(t *testing.T) {
	for _, c := range []Config{{Threads: 0, Max: time.Second}, {Threads: MaxThreads + 1, Max: time.Second},
		{Threads: 1, Max: 0}, {Threads: 1, Max: MaxFor + 1}} {
		_, err := Start(context.Background(), c)
		if !errors.Is(err, errBounds) {
			t.Errorf("%+v: %v, want ErrBounds", c, err)
		}
	}
	if err := Busy(0, time.Second); !errors.Is(err, errBounds) {
		t.Errorf("Busy(0): %v", err)
	}
}
