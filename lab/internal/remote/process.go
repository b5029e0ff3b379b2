package remote

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/snowlab/snowlab/lab/internal/host"
)

// replicaNode is the first static node id a replica mints with.
const replicaNode = 1

// ReplicaConfig is how a replica runs; the zero value is one node id on every
// core.
type ReplicaConfig struct {
	// Procs above 0 sets the process's GOMAXPROCS; 0 leaves it to the
	// runtime (every core it may use).
	Procs int
	// Shards above 1 has it mint on that many static node ids from replicaNode
	// (snowidd -shards, a node-per-shard generator); 0 or 1: one.
	Shards int
	// CPUs, when set, binds the process to those CPUs (host.StartOn).
	CPUs []int
}

// readyTimeout bounds the wait for a replica to start and to drain.
const readyTimeout = 15 * time.Second

// grace is the replica's -grace: how long its drain waits for the calls
// and connections still open when it is stopped. The drain ends as soon
// as none is left, so the grace is only the bound on a stuck one: 10 s,
// below readyTimeout, which no loaded machine spends on a drain without
// one. At 2 s, a client's idle HTTP/2 connection left open (Go's server
// gives it 1 s to go after its GOAWAY) took a test's replica past it
// under load: "calls still in flight after the grace period", exit 1.
const grace = 10 * time.Second

// Replica is a snowidd process this package started.
type Replica struct {
	// URL is its base, http://127.0.0.1:PORT.
	URL  string
	cmd  *exec.Cmd
	done chan struct{}
	err  error // Wait's, once done is closed
	// output is the process's stdout and stderr: exec.Cmd writes one
	// writer given as both from one goroutine at a time, and it is read
	// only once done is closed, when Wait has copied all of it.
	output bytes.Buffer
}

// log is the process's output, for an error.
func (r *Replica) log() string { return strings.TrimSpace(r.output.String()) }

// StartReplica starts bin on a free loopback port as c says, and waits until it
// reports ready.
func StartReplica(bin string, c ReplicaConfig) (*Replica, error) {
	switch {
	case c.Procs < 0:
		return nil, fmt.Errorf("replica: GOMAXPROCS %d: want 0 (every core) or more", c.Procs)
	case c.Shards < 0:
		return nil, fmt.Errorf("replica: shards %d: want 0 or 1 (one node id) or more", c.Shards)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("replica: finding a free port: %v", err)
	}
	addr := l.Addr().String()
	_ = l.Close()
	r := &Replica{URL: "http://" + addr, done: make(chan struct{})}
	r.cmd = exec.Command(bin, "-listen", addr, "-lease", "static:"+strconv.Itoa(replicaNode), "-shards", strconv.Itoa(max(c.Shards, 1)), "-grace", grace.String())
	r.cmd.Env = os.Environ()
	if c.Procs > 0 {
		r.cmd.Env = append(r.cmd.Env, "GOMAXPROCS="+strconv.Itoa(c.Procs))
	}
	r.cmd.Stdout, r.cmd.Stderr = &r.output, &r.output
	start := r.cmd.Start
	if c.CPUs != nil {
		start = func() error { return host.StartOn(r.cmd, c.CPUs) }
	}
	if err := start(); err != nil {
		return nil, fmt.Errorf("replica: starting %s: %v", bin, err)
	}
	go func() { r.err = r.cmd.Wait(); close(r.done) }()
	ctx, cancel := context.WithTimeout(context.Background(), readyTimeout)
	defer cancel()
	for {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, r.URL+"/readyz", nil)
		if resp, err := http.DefaultClient.Do(req); err == nil {
			_ = resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return r, nil
			}
		}
		select {
		case <-r.done:
			return nil, fmt.Errorf("replica: %s exited before it was ready (%v): %s", bin, r.err, r.log())
		case <-ctx.Done():
			_ = r.Stop()
			return nil, fmt.Errorf("replica: %s at %s not ready after %s: %s", bin, addr, readyTimeout, r.log())
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// CPU is the CPU time the replica has used, user and system, where the
// system says (Linux's /proc).
func (r *Replica) CPU() (time.Duration, bool) { return host.ProcessCPU(r.cmd.Process.Pid) }

// Stop sends SIGTERM (a kill where the system has none) and waits for the
// drain; an exit other than 0 is an error.
func (r *Replica) Stop() error {
	if err := r.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		_ = r.cmd.Process.Kill()
	}
	select {
	case <-r.done:
	case <-time.After(readyTimeout):
		_ = r.cmd.Process.Kill()
		<-r.done
		return fmt.Errorf("replica: snowidd did not stop within %s of SIGTERM: %s", readyTimeout, r.log())
	}
	if r.err != nil {
		return fmt.Errorf("replica: snowidd: %v: %s", r.err, r.log())
	}
	return nil
}

// CheckBinary says, before anything is started, whether bin is a file
// StartReplica could run: a flag naming no binary is a usage error to report
// at once, not a failed start after the flags that follow were read.
func CheckBinary(bin string) error {
	if st, err := os.Stat(bin); err != nil || st.IsDir() {
		return fmt.Errorf("%s: no snowidd binary there (make snowidd builds it to bin/snowidd)", bin)
	}
	return nil
}
