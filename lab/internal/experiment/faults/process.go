package faults

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"
)

// freePorts returns n distinct loopback TCP ports that were free when it
// returned: it holds all n listeners open until it has them, so that none
// repeats. It draws them below the kernel's ephemeral range
// (ip_local_port_range, 32768-60999 by default), where a port from
// 127.0.0.1:0 would come from: there every outgoing connection (a
// scenario's clients open thousands) may take the port between this check
// and the child's bind, or while a killed replica is down before its
// restart on the same port. Another listener may still take one first, so
// a caller that starts a server on them retries the start (the fault rig
// tries three times).
func freePorts(n int) ([]int, error) {
	var ls []net.Listener
	defer func() {
		for _, l := range ls {
			_ = l.Close()
		}
	}()
	low, high := belowEphemeral()
	ports := make([]int, 0, n)
	for tries := 0; len(ports) < n; tries++ {
		addr := "127.0.0.1:0"
		if high > low && tries < 64*n {
			addr = fmt.Sprintf("127.0.0.1:%d", low+rand.IntN(high-low))
		}
		l, err := net.Listen("tcp", addr)
		if err != nil {
			if addr != "127.0.0.1:0" {
				continue // taken: draw another
			}
			return nil, fmt.Errorf("faults: pick a free port: %w", err)
		}
		ls = append(ls, l)
		ports = append(ports, l.Addr().(*net.TCPAddr).Port)
	}
	return ports, nil
}

// belowEphemeral is the range of ports freePorts draws from, [low, high):
// from 10000 up to the start of the kernel's ephemeral range, or an empty
// range where the kernel does not say (not Linux) or leaves no room.
func belowEphemeral() (low, high int) {
	b, err := os.ReadFile("/proc/sys/net/ipv4/ip_local_port_range")
	if err != nil {
		return 0, 0
	}
	var first, last int
	if _, err := fmt.Sscan(string(b), &first, &last); err != nil || first <= 10000 {
		return 0, 0
	}
	return 10000, first
}

// tailBuffer is an io.Writer that keeps the last bytes written to it, up to a
// bound: a child process's output, kept for a failure's report without
// growing with a long run's log. It is safe for concurrent use. Given a
// mark, it closes seen once the output holds it (a mark split across two
// writes included): how the rig learns that a replica serves.
type tailBuffer struct {
	mu   sync.Mutex
	max  int
	b    []byte
	mark []byte
	seen chan struct{} // nil without a mark
}

// Write keeps p, dropping the oldest bytes beyond the bound; it never
// fails.
func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	from := max(0, len(t.b)-len(t.mark))
	t.b = append(t.b, p...)
	if len(t.mark) > 0 && bytes.Contains(t.b[from:], t.mark) {
		close(t.seen)
		t.mark = nil
	}
	if over := len(t.b) - t.max; over > 0 {
		// A copy, not a reslice: the dropped head would otherwise stay
		// in memory behind the slice, and grow with every write.
		t.b = append(t.b[:0:0], t.b[over:]...)
	}
	return len(p), nil
}

// String is what the tailBuffer holds; a nil tailBuffer holds nothing.
func (t *tailBuffer) String() string {
	if t == nil {
		return ""
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.b)
}

// process is a server the rig supervises (an etcd member, ZooKeeper, a
// kube-apiserver, a snowidd replica): started, killed or stopped, and
// started again on the same command line (its ports and data folder),
// the tail of each run's output kept. A run dies with the process that
// started it (on Linux, where the kernel sends it SIGKILL when its parent
// ends; elsewhere stop and kill are the only ends).
type process struct {
	name   string // for errors and logs: "etcd m0", "replica r1"
	bin    string
	args   []string
	env    []string // added to the environment
	logMax int      // bytes of each run's output kept

	mu      sync.Mutex
	cmd     *exec.Cmd     // the last run
	exited  chan struct{} // closed once the last run exited and its output is copied
	up      bool          // started, and not killed or stopped by the rig since
	out     *tailBuffer   // the last run's output
	earlier []string      // the output of the runs before
}

// newProcess prepares a process of bin with args, not started.
func newProcess(name string, logMax int, bin string, args ...string) *process {
	return &process{name: name, bin: bin, args: args, logMax: logMax}
}

// start starts a run. Given a mark, seen is closed once the run's output
// holds it; without one, seen is nil.
func (p *process) start(mark string) (seen <-chan struct{}, err error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.up {
		return nil, fmt.Errorf("faults: %s is running", p.name)
	}
	cmd := exec.Command(p.bin, p.args...)
	cmd.Env = append(os.Environ(), p.env...)
	cmd.SysProcAttr = dieWithParent()
	out := &tailBuffer{max: p.logMax}
	if mark != "" {
		out.mark, out.seen = []byte(mark), make(chan struct{})
	}
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("faults: starting %s: %w", p.bin, err)
	}
	if p.out != nil {
		p.earlier = append(p.earlier, p.out.String())
	}
	exited := make(chan struct{})
	go func() { _ = cmd.Wait(); close(exited) }()
	p.cmd, p.exited, p.up, p.out = cmd, exited, true, out
	return out.seen, nil
}

// serve starts a run of a server and waits (within, polling every) until
// ready says it serves; one that does not is stopped, and the error
// carries its log's tail.
func (p *process) serve(within, every time.Duration, ready func() bool) error {
	if _, err := p.start(""); err != nil {
		return err
	}
	if err := waitFor(context.Background(), within, every, func() (bool, error) { return ready(), nil }); err != nil {
		p.stop(5 * time.Second)
		return fmt.Errorf("faults: %s did not serve (%w):\n%s", p.name, err, p.logs(2000))
	}
	return nil
}

// running says whether a run is up: started, and not killed or stopped
// by the rig (one that exited on its own still counts: done says so).
func (p *process) running() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.up
}

// done is closed once the last run has exited; nil before the first.
func (p *process) done() <-chan struct{} {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.exited
}

// state is how the last run exited; nil while it runs.
func (p *process) state() *os.ProcessState {
	select {
	case <-p.done():
		return p.cmd.ProcessState
	default:
		return nil
	}
}

// kill sends SIGKILL to a run that is up and waits until it is gone.
func (p *process) kill() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.up {
		_ = p.cmd.Process.Kill()
		<-p.exited
		p.up = false
	}
}

// stop sends SIGTERM to a run that is up, then SIGKILL if it has not
// exited within grace, and waits until it is gone; it says whether it
// exited within grace. Where there is no SIGTERM (Windows) the kill comes
// at once.
func (p *process) stop(grace time.Duration) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.up {
		return true
	}
	p.up = false
	if err := p.cmd.Process.Signal(syscall.SIGTERM); err == nil || errors.Is(err, os.ErrProcessDone) {
		select {
		case <-p.exited:
			return true
		case <-time.After(grace):
		}
	}
	_ = p.cmd.Process.Kill()
	<-p.exited
	return false
}

// restarts is how many times the process was started again.
func (p *process) restarts() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.earlier)
}

// logs is a header naming the process and the last n bytes of what
// every run wrote, oldest first, for a failure's report.
func (p *process) logs(n int) string {
	p.mu.Lock()
	defer p.mu.Unlock()
	runs := strings.Join(append(slices.Clone(p.earlier), p.out.String()), "--- restarted ---\n")
	return "--- " + p.name + " ---\n" + tail(runs, n)
}

// errNotWithin is what waitFor returns when its time ran out.
var errNotWithin = errors.New("not within")

// waitFor calls ok every interval until it says true or fails (its
// error is returned), ctx ends, or within has passed (errNotWithin,
// saying how long it waited).
func waitFor(ctx context.Context, within, every time.Duration, ok func() (bool, error)) error {
	for deadline := time.Now().Add(within); ; {
		if done, err := ok(); done || err != nil {
			return err
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%w %v", errNotWithin, within)
		}
		if err := sleepCtx(ctx, every); err != nil {
			return err
		}
	}
}
