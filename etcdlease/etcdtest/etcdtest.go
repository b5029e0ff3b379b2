// Package etcdtest runs a throwaway single-member etcd server for tests: the
// etcd binary from PATH (Debian's etcd-server package), loopback ports
// picked free, a data directory the caller owns, in plaintext or (StartTLS)
// with TLS and client certificates on its client port. The etcdlease tests
// and snowidd's tests use it; it is no part of the lease store. The server
// dies with the test process (on Linux, where the kernel kills it when its
// parent ends).
package etcdtest

import (
	"bytes"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Binary returns the etcd binary on PATH, or an error saying how to get it.
func Binary() (string, error) {
	bin, err := exec.LookPath("etcd")
	if err != nil {
		return "", errors.New("no etcd binary on PATH (install it with: apt-get install etcd-server)")
	}
	return bin, nil
}

// Server is one etcd process, stopped and restarted on the same ports and
// data directory.
type Server struct {
	bin, dir           string
	clientURL, peerURL string
	tls                *TLS // nil: plaintext
	health             *http.Client

	mu   sync.Mutex
	proc *exec.Cmd     // nil while stopped
	done chan struct{} // closed once proc has exited
	log  *syncBuffer
}

// syncBuffer is etcd's output, written by the process while a failure
// reads it.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

// Start starts etcd with its data in dir and waits until it reports
// healthy.
func Start(dir string) (*Server, error) { return start(dir, nil) }

// TLS is how StartTLS secures the server's client port: the files are
// etcd's --cert-file, --key-file and --trusted-ca-file (tlstest makes
// them).
type TLS struct {
	// CertFile and KeyFile are the certificate the server presents; it
	// must name 127.0.0.1.
	CertFile, KeyFile string
	// TrustedCAFile, when set, is the CA a client's certificate must
	// chain to, and every client must present one (--client-cert-auth).
	TrustedCAFile string
	// Client is what the health checks present: a config trusting the
	// server's CA, with a client certificate when TrustedCAFile is set.
	Client *tls.Config
}

// StartTLS is Start with the client port on TLS, https:// endpoints. The
// peer port stays plaintext: a single member has no peer to talk to.
func StartTLS(dir string, t TLS) (*Server, error) {
	if t.CertFile == "" || t.KeyFile == "" || t.Client == nil {
		return nil, errors.New("etcdtest: StartTLS needs a certificate, its key and the health checks' client config")
	}
	return start(dir, &t)
}

func start(dir string, t *TLS) (*Server, error) {
	bin, err := Binary()
	if err != nil {
		return nil, err
	}
	var last error
	for range 3 { // a port picked free may be taken before etcd binds it
		ports, err := freePorts()
		if err != nil {
			return nil, err
		}
		scheme, health := "http", &http.Client{Timeout: time.Second}
		if t != nil {
			scheme = "https"
			health.Transport = &http.Transport{TLSClientConfig: t.Client}
		}
		s := &Server{
			bin: bin, dir: dir, tls: t, health: health,
			clientURL: fmt.Sprintf("%s://127.0.0.1:%d", scheme, ports[0]),
			peerURL:   fmt.Sprintf("http://127.0.0.1:%d", ports[1]),
		}
		if last = s.Restart(); last == nil {
			return s, nil
		}
		_ = os.RemoveAll(dir)
		_ = os.MkdirAll(dir, 0o700)
	}
	return nil, last
}

// Endpoints are the client URLs.
func (s *Server) Endpoints() []string { return []string{s.clientURL} }

// Restart starts the server again (after Stop) on the same ports and data
// directory, and waits until it is healthy.
func (s *Server) Restart() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.proc != nil {
		return errors.New("etcdtest: server already running")
	}
	args := []string{
		"--name", "default",
		"--data-dir", s.dir,
		"--listen-client-urls", s.clientURL,
		"--advertise-client-urls", s.clientURL,
		"--listen-peer-urls", s.peerURL,
		"--initial-advertise-peer-urls", s.peerURL,
		"--initial-cluster", "default=" + s.peerURL,
		"--initial-cluster-state", "new",
		"--logger", "zap", "--log-outputs", "stderr", "--log-level", "warn",
	}
	if t := s.tls; t != nil {
		args = append(args, "--cert-file", t.CertFile, "--key-file", t.KeyFile)
		if t.TrustedCAFile != "" {
			args = append(args, "--trusted-ca-file", t.TrustedCAFile, "--client-cert-auth")
		}
	}
	cmd := exec.Command(s.bin, args...)
	cmd.SysProcAttr = dieWithParent()
	s.log = &syncBuffer{}
	cmd.Stdout, cmd.Stderr = s.log, s.log
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("etcdtest: start %s: %w", s.bin, err)
	}
	done := make(chan struct{})
	go func() { _ = cmd.Wait(); close(done) }()
	s.proc, s.done = cmd, done
	deadline := time.Now().Add(15 * time.Second)
	for {
		if healthy(s.health, s.clientURL) {
			return nil
		}
		select {
		case <-done:
			s.proc = nil
			return fmt.Errorf("etcdtest: etcd exited before it was healthy:\n%s", s.log.String())
		case <-time.After(50 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			s.stopLocked()
			return fmt.Errorf("etcdtest: etcd not healthy after 15s:\n%s", s.log.String())
		}
	}
}

// Stop ends the server (SIGTERM, then SIGKILL after 5 s) and waits for it.
func (s *Server) Stop() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.stopLocked()
}

func (s *Server) stopLocked() {
	if s.proc == nil {
		return
	}
	if s.proc.Process.Signal(syscall.SIGTERM) == nil {
		select {
		case <-s.done:
		case <-time.After(5 * time.Second):
		}
	}
	_ = s.proc.Process.Kill() // an error once it has exited
	<-s.done
	s.proc = nil
}

// freePorts returns two loopback TCP ports that were free when it
// returned, for etcd's client and peer URLs.
func freePorts() ([]int, error) {
	var ports []int
	for range 2 {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, fmt.Errorf("etcdtest: pick a free port: %w", err)
		}
		defer l.Close() // held until both are picked, so that they differ
		ports = append(ports, l.Addr().(*net.TCPAddr).Port)
	}
	return ports, nil
}

func healthy(c *http.Client, url string) bool {
	resp, err := c.Get(url + "/health")
	if err != nil {
		return false
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode == http.StatusOK && strings.Contains(string(body), `"true"`)
}
