package faults

import (
	"crypto/tls"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// replica is a snowidd process the rig started: on a port of its own,
// kept across restarts, so that clients and peers keep its URL. Its
// flags after -listen and its environment (a k8s scenario's KUBECONFIG,
// naming its link; SNOWIDD_FAULT_HISTORY, the file a fault-injection
// build records its store operations in) are set before it starts.
type replica struct {
	Name string
	*process
	// history is the file the replica records its store operations in
	// (SNOWIDD_FAULT_HISTORY, a fault-injection build's); empty: none.
	history string
	addr    string // 127.0.0.1:PORT
	url     string // http:// or https:// + addr
	hc      *http.Client
}

// newReplica prepares a replica of bin on a free loopback port;
// tlsConf (nil: plaintext) is how the rig reaches it.
func newReplica(name, bin string, tlsConf *tls.Config) (*replica, error) {
	ports, err := freePorts(1)
	if err != nil {
		return nil, err
	}
	r := &replica{Name: name, addr: fmt.Sprintf("127.0.0.1:%d", ports[0])}
	r.process = newProcess("replica "+name, 256<<10, bin, "-listen", r.addr)
	r.url = "http://" + r.addr
	r.hc = &http.Client{Timeout: time.Second}
	if tlsConf != nil {
		r.url = "https://" + r.addr
		r.hc.Transport = &http.Transport{TLSClientConfig: tlsConf}
	}
	return r, nil
}

// Start starts the process and waits for the line saying it serves (not
// for readiness: a replica serves before it holds a lease).
func (r *replica) Start() error {
	serving, err := r.start(`msg="serving gRPC`)
	if err != nil {
		return err
	}
	select {
	case <-serving:
		return nil
	case <-r.done():
		return fmt.Errorf("faults: replica %s exited before serving (%v):\n%s", r.Name, r.state(), r.out)
	case <-time.After(30 * time.Second):
		r.kill()
		return fmt.Errorf("faults: replica %s did not serve within 30 s:\n%s", r.Name, r.out)
	}
}

// Stop sends SIGTERM and waits for the drain; an exit other than 0 is an
// error.
func (r *replica) Stop() error {
	if !r.running() {
		return nil
	}
	if !r.stop(20 * time.Second) {
		return fmt.Errorf("faults: replica %s did not stop within 20 s of SIGTERM", r.Name)
	}
	if st := r.state(); st != nil && !st.Success() {
		return fmt.Errorf("faults: replica %s exited with %v; its last words:\n%s", r.Name, st, tail(r.out.String(), 2<<10))
	}
	return nil
}

// Readyz answers /readyz: whether 200, and the body.
func (r *replica) Readyz() (bool, string) {
	code, body, err := r.do("GET", "/readyz")
	if err != nil {
		return false, err.Error()
	}
	return code == http.StatusOK, body
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

// stepClock steps the replica's clock by d, through a fault-injection
// build's hook (faultClockPath).
func (r *replica) stepClock(d time.Duration) error {
	if code, body, err := r.do("POST", faultClockPath+"?step="+d.String()); err != nil || code != 200 {
		return fmt.Errorf("stepping %s's clock %v: %d %s %v", r.Name, d, code, body, err)
	}
	return nil
}

// do sends method ("GET", or an empty "POST") to path on the replica and
// returns its status and body.
func (r *replica) do(method, path string) (int, string, error) {
	req, err := http.NewRequest(method, r.url+path, nil)
	if err != nil {
		return 0, "", err
	}
	resp, err := r.hc.Do(req)
	if err != nil {
		return 0, "", err
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 4<<10))
	return resp.StatusCode, strings.TrimSpace(string(b)), nil
}
