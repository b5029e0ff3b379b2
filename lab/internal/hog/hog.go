// Package hog is the lab's CPU hog: a child process of busy goroutines
// that competes with a measured run for the host's CPUs, as a noisy
// neighbour does, so that the run's threads (a lock holder, a CAS loser)
// are descheduled by the operating system and not only by Go's scheduler.
//
// It is bounded three ways: Threads busy goroutines on as many Ps, never
// more than MaxThreads; the child ends by itself after Max even if the
// lab is killed (and on Linux the kernel kills it when the lab's thread
// that started it exits, PR_SET_PDEATHSIG); and Stop, or the context
// given to Start ending (Ctrl-C), kills it and waits for it.
//
// The child is `loadgen hog -threads N -for D` (Busy), started from the
// lab's own executable, so no other program is needed.
package hog

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"sync"
	"time"
)

// Bounds on a hog: more than MaxThreads busy goroutines or a Max over
// MaxFor is refused (errBounds). 1,024 is above any host's CPU count the
// lab has met; 10 minutes is twice the longest contention run.
const (
	MaxThreads = 1024
	MaxFor     = 10 * time.Minute
)

// errBounds is wrapped by the error for a hog out of its bounds.
var errBounds = errors.New("hog out of bounds")

// Config is one hog.
type Config struct {
	// Threads is how many goroutines spin, on as many Ps (1..MaxThreads).
	Threads int
	// Max is how long the child spins at most (up to MaxFor): it exits by
	// itself then, whether or not it was stopped.
	Max time.Duration
	// Command makes the child's command; nil is this executable's
	// `hog -threads N -for D` (tests give their own).
	Command func(threads int, max time.Duration) (*exec.Cmd, error)
}

// validate says what is out of bounds in c, naming the value.
func (c Config) validate() error {
	switch {
	case c.Threads < 1 || c.Threads > MaxThreads:
		return fmt.Errorf("%w: %d threads (want 1 to %d)", errBounds, c.Threads, MaxThreads)
	case c.Max <= 0 || c.Max > MaxFor:
		return fmt.Errorf("%w: for %v (want above 0, at most %v)", errBounds, c.Max, MaxFor)
	}
	return nil
}

// Hog is a started hog.
type Hog struct {
	cmd  *exec.Cmd
	done chan struct{} // closed once the child has been waited for
	err  error         // Wait's error, read after done
	once sync.Once
}

// Start starts the hog. It is killed when ctx ends or Stop is called,
// whichever comes first, and ends by itself after cfg.Max.
func Start(ctx context.Context, cfg Config) (*Hog, error) {
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	mk := cfg.Command
	if mk == nil {
		mk = selfCommand
	}
	cmd, err := mk(cfg.Threads, cfg.Max)
	if err != nil {
		return nil, err
	}
	dieWithParent(cmd)
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting the hog: %w", err)
	}
	h := &Hog{cmd: cmd, done: make(chan struct{})}
	stop := context.AfterFunc(ctx, h.kill)
	go func() {
		h.err = cmd.Wait()
		stop()
		close(h.done)
	}()
	return h, nil
}

// selfCommand is `<this executable> hog -threads N -for D`.
func selfCommand(threads int, max time.Duration) (*exec.Cmd, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("the hog runs this executable: %w", err)
	}
	return exec.Command(exe, "hog", "-threads", strconv.Itoa(threads), "-for", max.String()), nil
}

func (h *Hog) kill() {
	h.once.Do(func() { _ = h.cmd.Process.Kill() })
}

// Stop kills the child, waits for it and returns the CPU time it took
// (user and system), so that a report can say how hard it competed.
func (h *Hog) Stop() time.Duration {
	h.kill()
	<-h.done
	st := h.cmd.ProcessState
	if st == nil {
		return 0
	}
	return st.UserTime() + st.SystemTime()
}

// Busy is the child: threads goroutines spinning on as many Ps for d.
// Each spins on a counter of its own, padded apart, so that the hog
// loads the CPUs and not one cache line.
func Busy(threads int, d time.Duration) error {
	if err := (Config{Threads: threads, Max: d}).validate(); err != nil {
		return err
	}
	runtime.GOMAXPROCS(threads)
	deadline := time.Now().Add(d)
	var wg sync.WaitGroup
	sink := make([]struct {
		n uint64
		_ [120]byte
	}, threads)
	for i := range threads {
		wg.Go(func() {
			for time.Now().Before(deadline) {
				for range 1 << 16 {
					sink[i].n++
				}
			}
		})
	}
	wg.Wait()
	return nil
}
