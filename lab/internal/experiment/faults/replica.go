package faults

import (
	"bufio"
	"crypto/tls"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"
)

// replica is a snowidd process the rig started: on a port of its own,
// kept across restarts, so that clients and peers keep its URL.
type replica struct {
	Name string
	bin  string
	args []string
	// history is the file the replica records its store operations in
	// (SNOWIDD_FAULT_HISTORY, a fault-injection build's); empty: none.
	history string
	addr    string // 127.0.0.1:PORT
	url     string // http:// or https:// + addr
	hc      *http.Client

	// env is added to the replica's environment (a k8s scenario's
	// KUBECONFIG, naming its link).
	env []string

	mu       sync.Mutex
	proc     *process // nil while not running
	log      *tailBuffer
	earlier  []string // the logs of earlier runs
	restarts int
}

// newReplica prepares a replica of bin on a free loopback port, with args
// after -listen; tlsConf (nil: plaintext) is how the rig reaches it.
func newReplica(name, bin string, args []string, tlsConf *tls.Config) (*replica, error) {
	ports, err := freePorts(1)
	if err != nil {
		return nil, err
	}
	r := &replica{Name: name, bin: bin, args: args, addr: fmt.Sprintf("127.0.0.1:%d", ports[0])}
	r.url = "http://" + r.addr
	r.hc = &http.Client{Timeout: time.Second}
	if tlsConf != nil {
		r.url = "https://" + r.addr
		r.hc.Transport = &http.Transport{TLSClientConfig: tlsConf}
	}
	return r, nil
}

// URL is the replica's base URL.
func (r *replica) URL() string { return r.url }

var servingLine = regexp.MustCompile(`msg="serving gRPC`)

// Start starts the process and waits for the line saying it serves (not
// for readiness: a replica serves before it holds a lease).
func (r *replica) Start() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.proc != nil {
		return fmt.Errorf("faults: replica %s is running", r.Name)
	}
	cmd := exec.Command(r.bin, append([]string{"-listen", r.addr}, r.args...)...)
	cmd.Env = append(os.Environ(), r.env...)
	if r.history != "" {
		cmd.Env = append(cmd.Env, "SNOWIDD_FAULT_HISTORY="+r.history)
	}
	pr, pw := io.Pipe()
	log := newTailBuffer(256 << 10)
	cmd.Stdout, cmd.Stderr = pw, pw
	serving, drained := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(drained)
		sc := bufio.NewScanner(pr)
		sc.Buffer(make([]byte, 64<<10), 1<<20)
		seen := false
		for sc.Scan() {
			_, _ = log.Write(append(sc.Bytes(), '\n'))
			if !seen && servingLine.Match(sc.Bytes()) {
				seen = true
				close(serving)
			}
		}
		_, _ = io.Copy(io.Discard, pr)
	}()
	proc, err := startProcess(cmd) // dies with the lab (Linux)
	if err != nil {
		pw.Close()
		return fmt.Errorf("faults: starting %s: %w", r.bin, err)
	}
	go func() { <-proc.Exited(); pw.Close() }()
	select {
	case <-serving:
	case <-proc.Exited():
		<-drained // the pipe closes at exit: its last lines say why
		return fmt.Errorf("faults: replica %s exited before serving (%v):\n%s", r.Name, proc.State(), log)
	case <-time.After(30 * time.Second):
		proc.Kill()
		return fmt.Errorf("faults: replica %s did not serve within 30 s:\n%s", r.Name, log)
	}
	if r.log != nil {
		r.earlier = append(r.earlier, r.log.String())
		r.restarts++
	}
	r.proc, r.log = proc, log
	return nil
}

// Running says whether the process is up.
func (r *replica) Running() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.proc != nil
}

// Kill SIGKILLs the replica and waits for it to be gone.
func (r *replica) Kill() {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.proc == nil {
		return
	}
	r.proc.Kill()
	r.proc = nil
}

// Stop sends SIGTERM and waits for the drain; an exit other than 0 is an
// error.
func (r *replica) Stop() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.proc == nil {
		return nil
	}
	proc := r.proc
	r.proc = nil
	if !proc.Stop(20 * time.Second) {
		return fmt.Errorf("faults: replica %s did not stop within 20 s of SIGTERM", r.Name)
	}
	if st := proc.State(); !st.Success() {
		return fmt.Errorf("faults: replica %s exited with %v; its last words:\n%s", r.Name, st, lastLines(r.log.String(), 8))
	}
	return nil
}

// lastLines is the last n lines of s: why a replica exited is what it
// logged last.
func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}

// Restarts is how many times the replica was started again.
func (r *replica) Restarts() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.restarts
}

// Log is what the replica logged, every run, oldest first.
func (r *replica) Log() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return strings.Join(append(append([]string(nil), r.earlier...), r.log.String()), "--- restarted ---\n")
}

// Readyz answers /readyz: whether 200, and the body.
func (r *replica) Readyz() (bool, string) {
	resp, err := r.hc.Get(r.url + "/readyz")
	if err != nil {
		return false, err.Error()
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 4<<10))
	return resp.StatusCode == http.StatusOK, strings.TrimSpace(string(b))
}

var readyNode = regexp.MustCompile(`^ready: node ids? (\d+)`)

// Node is the first node id the replica says it holds, when it is ready.
func (r *replica) Node() (int, error) {
	ok, body := r.Readyz()
	if !ok {
		return -1, fmt.Errorf("replica %s is not ready: %s", r.Name, body)
	}
	m := readyNode.FindStringSubmatch(body)
	if m == nil {
		return -1, fmt.Errorf("replica %s: /readyz %q names no node id", r.Name, body)
	}
	return strconv.Atoi(m[1])
}

// Metric reads one series of the replica's /metrics, by its name and its
// labels as name, value pairs (`snowidd_ready`; `x`, "peer", "…").
func (r *replica) Metric(name string, labels ...string) (float64, error) {
	return scrape(r.hc, r.url+"/metrics", "replica "+r.Name, name, labels...)
}

// post sends an empty POST to path on the replica and returns its status
// and body.
func (r *replica) post(path string) (int, string, error) {
	resp, err := r.hc.Post(r.url+path, "", nil)
	if err != nil {
		return 0, "", err
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 4<<10))
	return resp.StatusCode, strings.TrimSpace(string(b)), nil
}

// get fetches path on the replica.
func (r *replica) get(path string) (int, string, error) {
	resp, err := r.hc.Get(r.url + path)
	if err != nil {
		return 0, "", err
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 4<<10))
	return resp.StatusCode, strings.TrimSpace(string(b)), nil
}
