package faults

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"os/exec"
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
// growing with a long run's log. It is safe for concurrent use.
type tailBuffer struct {
	mu  sync.Mutex
	max int
	b   []byte
}

// newTailBuffer returns a tailBuffer that keeps the last max bytes.
func newTailBuffer(max int) *tailBuffer { return &tailBuffer{max: max} }

// Write keeps p, dropping the oldest bytes beyond the bound; it never
// fails.
func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.b = append(t.b, p...)
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

// process is a child process the lab started: it dies with the process
// that started it (on Linux, where the kernel sends it SIGKILL when its
// parent ends; elsewhere Stop and Kill are the only ends), and Exited says
// when it is gone. The fault rig runs every server it supervises (etcd
// members, a kube-apiserver, ZooKeeper, snowidd replicas) as a process.
type process struct {
	cmd    *exec.Cmd
	exited chan struct{}
}

// startProcess starts cmd, which must not have been started, as a
// process: cmd.SysProcAttr, when nil, becomes the parent-death signal
// above.
func startProcess(cmd *exec.Cmd) (*process, error) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = dieWithParent()
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	p := &process{cmd: cmd, exited: make(chan struct{})}
	go func() { _ = cmd.Wait(); close(p.exited) }()
	return p, nil
}

// Exited is closed once the process has exited and its output is copied.
func (p *process) Exited() <-chan struct{} { return p.exited }

// State is how the process exited; nil until Exited is closed.
func (p *process) State() *os.ProcessState {
	select {
	case <-p.exited:
		return p.cmd.ProcessState
	default:
		return nil
	}
}

// Kill sends SIGKILL and waits until the process is gone.
func (p *process) Kill() {
	_ = p.cmd.Process.Kill()
	<-p.exited
}

// Stop sends SIGTERM, then SIGKILL if the process has not exited within
// grace, and waits until it is gone; it says whether the process exited
// within grace. Where there is no SIGTERM (Windows) the kill comes at
// once.
func (p *process) Stop(grace time.Duration) bool {
	if err := p.cmd.Process.Signal(syscall.SIGTERM); errors.Is(err, os.ErrProcessDone) {
		<-p.exited
		return true
	} else if err != nil {
		p.Kill()
		return false
	}
	select {
	case <-p.exited:
		return true
	case <-time.After(grace):
		p.Kill()
		return false
	}
}
