package etcdlease

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/snowlab/snowlab"
	"github.com/snowlab/snowlab/atomicgen"
	"github.com/snowlab/snowlab/etcdlease/etcdtest"
	"github.com/snowlab/snowlab/nodeid"
	"github.com/snowlab/snowlab/nodeid/storetest"
)

// The suite's timing: short enough to keep it fast, in the same proportions
// as production settings (the reservation is refreshed several times per
// window, and a lost holder's lease expires a TTL after its last
// keep-alive).
const (
	testTTL     = 2 * time.Second
	testWindow  = time.Second
	testRefresh = 200 * time.Millisecond
)

// childEnv names the role a re-executed test binary plays (see runChild).
const childEnv = "ETCDLEASE_TEST_CHILD"

func TestMain(m *testing.M) {
	if role := os.Getenv(childEnv); role != "" {
		os.Exit(runChild(role))
	}
	code := m.Run()
	shared.stop()
	os.Exit(code)
}

// needEtcd skips the test, or fails it when SNOWLAB_REQUIRE_ETCD=1 (set by
// the project's .ci/run, which starts an etcd), where the suite must not
// pass without running.
func needEtcd(t testing.TB, why string) {
	t.Helper()
	if os.Getenv("SNOWLAB_REQUIRE_ETCD") == "1" {
		t.Fatalf("etcd is required when SNOWLAB_REQUIRE_ETCD=1: %s", why)
	}
	t.Skipf("skipped: %s (to run it: eval \"$(scripts/etcd.sh start)\" && make test-etcd; SNOWLAB_REQUIRE_ETCD=1 makes a missing etcd fail)", why)
}

// shared is the etcd the tests use: $ETCD_ENDPOINTS (comma-separated) when
// set, else a throwaway server started from the etcd binary on PATH and
// stopped when the tests end.
var shared sharedEtcd

type sharedEtcd struct {
	once      sync.Once
	endpoints []string
	srv       *etcdtest.Server
	dir       string
	err       error
}

func (s *sharedEtcd) stop() {
	if s.srv != nil {
		s.srv.Stop()
	}
	if s.dir != "" {
		_ = os.RemoveAll(s.dir)
	}
}

func endpoints(t testing.TB) []string {
	t.Helper()
	shared.once.Do(func() {
		if v := strings.TrimSpace(os.Getenv("ETCD_ENDPOINTS")); v != "" {
			shared.endpoints = strings.Split(v, ",")
			shared.err = reachable(shared.endpoints)
			return
		}
		if _, err := etcdtest.Binary(); err != nil {
			shared.err = fmt.Errorf("ETCD_ENDPOINTS is not set and %v", err)
			return
		}
		dir, err := os.MkdirTemp("", "etcdlease-test-")
		if err != nil {
			shared.err = err
			return
		}
		shared.dir = dir
		shared.srv, shared.err = etcdtest.Start(dir)
		if shared.err == nil {
			shared.endpoints = shared.srv.Endpoints()
		}
	})
	if shared.err != nil {
		if os.Getenv("ETCD_ENDPOINTS") != "" {
			require.NoError(t, shared.err, "ETCD_ENDPOINTS is set, so meant to be used")
		}
		needEtcd(t, shared.err.Error())
	}
	return shared.endpoints
}

// reachable checks that $ETCD_ENDPOINTS answer: a wrong setting fails the
// tests at once instead of timing each one out.
func reachable(eps []string) error {
	cli, err := clientv3.New(clientv3.Config{Endpoints: eps, DialOptions: DialOptions()})
	if err != nil {
		return fmt.Errorf("ETCD_ENDPOINTS=%s: %w", strings.Join(eps, ","), err)
	}
	defer cli.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if _, err := cli.Get(ctx, "/", clientv3.WithCountOnly()); err != nil {
		return fmt.Errorf("ETCD_ENDPOINTS=%s does not answer: %w", strings.Join(eps, ","), err)
	}
	return nil
}

// ownServer starts an etcd server that only this test uses (one it may
// stop and restart).
func ownServer(t *testing.T) *etcdtest.Server {
	t.Helper()
	if _, err := etcdtest.Binary(); err != nil {
		needEtcd(t, "this test stops and restarts its own etcd server, and "+err.Error())
	}
	srv, err := etcdtest.Start(t.TempDir())
	require.NoError(t, err)
	t.Cleanup(srv.Stop)
	return srv
}

// prefix is a key prefix no other test (or earlier run on a shared etcd)
// uses.
func prefix(t testing.TB) string {
	return fmt.Sprintf("/snowlab-test/%s/%d", t.Name(), time.Now().UnixNano())
}

// dial returns a Store on eps under a fresh prefix; the client is closed
// when the test ends.
func dial(t testing.TB, eps []string) (*Store, string) {
	t.Helper()
	return dialTTL(t, eps, testTTL)
}

// dialTTL is dial with etcd leases of ttl.
func dialTTL(t testing.TB, eps []string, ttl time.Duration) (*Store, string) {
	t.Helper()
	p := prefix(t)
	st, closeFn, err := Dial(eps, p, ttl)
	require.NoError(t, err)
	t.Cleanup(func() { _ = closeFn() })
	return st.(*Store), p
}

func leaseOptions() nodeid.Options {
	return nodeid.Options{Window: testWindow, Refresh: testRefresh}
}

// nodeLimit narrows a store to node ids 0..max, so that two processes
// contend for one node id without 1,023 others being filled first.
type nodeLimit struct {
	nodeid.Store
	max int
}

func (s nodeLimit) Acquire(ctx context.Context, layout snowlab.Layout, count, maxNode int) (nodeid.Claim, error) {
	return s.Store.Acquire(ctx, layout, count, min(maxNode, s.max))
}

// Exit codes of a child.
const (
	exitOK            = 0
	exitFail          = 1
	exitNoReservation = 3 // NextID failed with snowlab.ErrNoReservation
	exitClockBehind   = 4 // NextID or the generator's New failed with snowlab.ErrClockBackwards
)

// runChild is the program a re-executed test binary runs. Its settings
// come from the environment:
//
//	ETCDLEASE_ENDPOINTS  comma-separated etcd endpoints
//	ETCDLEASE_PREFIX     the store's key prefix
//	ETCDLEASE_MAXNODE    highest node id to take (default 1023)
//	ETCDLEASE_RETRY      "1": retry while every node id is held
//	ETCDLEASE_TTL        the etcd lease TTL (default testTTL)
//
// Roles: "hold" takes a node id, prints "NODE n token floor" and holds it
// until SIGTERM or until stdin closes; "mint" does the same and then mints
// IDs with atomicgen, printing "ID n" for each as it is handed out, until
// SIGTERM (it releases the lease and prints "RELEASED") or until NextID
// fails: then it prints "ERR message", and, for ErrNoReservation, waits
// for the lease to report the loss ("LOST"; "NOTLOST" if stdin closes
// first, or at once for another error), and exits with exitNoReservation
// or exitClockBehind.
//
// Every wait of the child's ends when its stdin closes: when the test
// closes it, or when the test process ends. How long the test waits for
// the child is the test's business (storetest.UntilTestEnds); the child
// assumes no figure (it gave Acquire 5 s, and the lease 5 s to report a
// loss, before).
func runChild(role string) int {
	out := bufio.NewWriter(os.Stdout)
	say := func(format string, args ...any) {
		fmt.Fprintf(out, format+"\n", args...)
		_ = out.Flush() // each line leaves the process before the next step
	}
	maxNode := 1023
	if v := os.Getenv("ETCDLEASE_MAXNODE"); v != "" {
		maxNode, _ = strconv.Atoi(v)
	}
	retry := os.Getenv("ETCDLEASE_RETRY") == "1"
	ttl := testTTL
	if v := os.Getenv("ETCDLEASE_TTL"); v != "" {
		ttl, _ = time.ParseDuration(v)
	}
	st, closeFn, err := Dial(strings.Split(os.Getenv("ETCDLEASE_ENDPOINTS"), ","), os.Getenv("ETCDLEASE_PREFIX"), ttl)
	if err != nil {
		say("ERR dial: %v", err)
		return exitFail
	}
	defer closeFn()
	term := make(chan os.Signal, 1)
	signal.Notify(term, syscall.SIGTERM)
	stdinClosed := make(chan struct{})
	go func() { _, _ = io.Copy(io.Discard, os.Stdin); close(stdinClosed) }()
	untilStdinCloses, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() { <-stdinClosed; cancel() }()

	var lease *nodeid.Lease
	for {
		lease, err = nodeid.Acquire(untilStdinCloses, nodeLimit{st, maxNode}, leaseOptions())
		if err == nil {
			break
		}
		if !errors.Is(err, nodeid.ErrNoFreeNode) || !retry {
			say("ERR acquire: %v", err)
			return exitFail
		}
		select {
		case <-stdinClosed:
			say("ERR acquire: stdin closed: %v", err)
			return exitFail
		case <-time.After(50 * time.Millisecond):
		}
	}
	say("NODE %d %d %d", lease.Node(), lease.Token(), lease.Fence().Floor())
	release := func() int {
		if err := lease.Release(context.Background()); err != nil {
			say("ERR release: %v", err)
			return exitFail
		}
		say("RELEASED")
		return exitOK
	}

	if role == "hold" {
		select {
		case <-term:
		case <-stdinClosed:
		}
		return release()
	}

	gen, err := atomicgen.New(lease.Config(snowlab.Config{MaxFloorWait: 5 * time.Second}))
	if err != nil {
		say("ERR new: %v", err)
		return exitCode(err)
	}
	for {
		select {
		case <-term:
			return release()
		default:
		}
		for range 4 {
			id, err := gen.NextID()
			if err != nil {
				say("ERR %v", err)
				var wait <-chan struct{} // a loss stops minting: wait for the lease to say so
				if !errors.Is(err, snowlab.ErrNoReservation) {
					wait = closed // another error is not a loss's: say what the lease knows now
				}
				select {
				case <-lease.Lost():
					say("LOST %v", lease.Err())
				case <-wait:
					say("NOTLOST %v", lease.Err())
				case <-stdinClosed:
					say("NOTLOST %v", lease.Err())
				}
				return exitCode(err)
			}
			say("ID %d", id)
		}
		time.Sleep(time.Millisecond)
	}
}

// closed is a closed channel: a select on it does not wait.
var closed = func() chan struct{} { c := make(chan struct{}); close(c); return c }()

func exitCode(err error) int {
	switch {
	case errors.Is(err, snowlab.ErrNoReservation):
		return exitNoReservation
	case errors.Is(err, snowlab.ErrClockBackwards):
		return exitClockBehind
	}
	return exitFail
}

// child is a running child process and what it printed so far.
type child struct {
	t    *testing.T
	name string
	cmd  *exec.Cmd
	in   io.WriteCloser
	done chan struct{} // closed when its output ended and it exited
	code int

	mu    sync.Mutex
	node  int
	token int64
	floor int64
	ids   []snowlab.ID
	errs  []string
	lost  string
	lines []string
}

// startChild starts a child in role; with retry it retries while every
// node id up to maxNode is held, until the test ends.
func startChild(t *testing.T, name, role string, eps []string, prefix string, maxNode int, retry bool, env ...string) *child {
	t.Helper()
	retryEnv := "ETCDLEASE_RETRY="
	if retry {
		retryEnv += "1"
	}
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(append(os.Environ(),
		childEnv+"="+role,
		"ETCDLEASE_ENDPOINTS="+strings.Join(eps, ","),
		"ETCDLEASE_PREFIX="+prefix,
		"ETCDLEASE_MAXNODE="+strconv.Itoa(maxNode),
		retryEnv,
	), env...)
	cmd.Stderr = &prefixWriter{t: t, name: name}
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	in, err := cmd.StdinPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start(), name)
	c := &child{t: t, name: name, cmd: cmd, in: in, done: make(chan struct{}), node: -1}
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			c.line(sc.Text())
		}
		_ = cmd.Wait()
		c.code = cmd.ProcessState.ExitCode() // -1: killed by a signal
		close(c.done)
	}()
	t.Cleanup(func() {
		select {
		case <-c.done:
		default:
			_ = cmd.Process.Kill()
			<-c.done
		}
	})
	return c
}

func (c *child) line(s string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.lines = append(c.lines, s)
	f := strings.Fields(s)
	if len(f) == 0 {
		return
	}
	switch f[0] {
	case "ID":
		n, err := strconv.ParseInt(f[1], 10, 64)
		if err != nil {
			c.errs = append(c.errs, "bad line: "+s)
			return
		}
		c.ids = append(c.ids, snowlab.ID(n))
	case "NODE":
		c.node, _ = strconv.Atoi(f[1])
		c.token, _ = strconv.ParseInt(f[2], 10, 64)
		c.floor, _ = strconv.ParseInt(f[3], 10, 64)
	case "ERR":
		c.errs = append(c.errs, s)
	case "LOST", "NOTLOST":
		c.lost = s
	}
}

// snapshot copies what the child printed so far.
func (c *child) snapshot() (node int, ids []snowlab.ID, errs []string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.node, append([]snowlab.ID(nil), c.ids...), append([]string(nil), c.errs...)
}

// waitIDs waits until the child printed at least n IDs (n = 0: its NODE
// line), until the test ends (storetest.UntilTestEnds): how soon is the child's
// business, on a machine whatever its load.
func (c *child) waitIDs(n int) {
	c.t.Helper()
	wait := storetest.UntilTestEnds(c.t)
	for {
		node, ids, errs := c.snapshot()
		if node >= 0 && len(ids) >= n {
			return
		}
		select {
		case <-c.done:
			c.t.Fatalf("%s exited (code %d) after %d IDs, before %d: %v\n%s", c.name, c.code, len(ids), n, errs, c.tail())
		case <-wait.Done():
			c.t.Fatalf("%s printed %d IDs by the test's end, want %d: %v\n%s", c.name, len(ids), n, errs, c.tail())
		case <-time.After(10 * time.Millisecond):
		}
	}
}

// wait waits for the child to exit, until the test ends, and returns its
// exit code.
func (c *child) wait() int {
	c.t.Helper()
	select {
	case <-c.done:
		return c.code
	case <-storetest.UntilTestEnds(c.t).Done():
		c.t.Fatalf("%s did not exit by the test's end\n%s", c.name, c.tail())
	}
	return 0
}

// requireExit waits for the child to exit and fails the test unless it
// exits with code (-1: killed by a signal).
func (c *child) requireExit(code int) {
	c.t.Helper()
	require.Equal(c.t, code, c.wait(), "%s's exit code\n%s", c.name, c.tail())
}

// stop sends SIGTERM, on which the child releases its lease and exits, and
// fails the test unless it exits cleanly.
func (c *child) stop() {
	c.t.Helper()
	c.signal(syscall.SIGTERM)
	c.requireExit(exitOK)
}

func (c *child) signal(sig syscall.Signal) {
	c.t.Helper()
	require.NoError(c.t, c.cmd.Process.Signal(sig), "%s: %v", c.name, sig)
}

// tail is the last lines the child printed, for failure messages.
func (c *child) tail() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	var b strings.Builder
	var skipped int
	for _, l := range c.lines {
		if strings.HasPrefix(l, "ID ") {
			skipped++
			continue
		}
		fmt.Fprintln(&b, l)
	}
	fmt.Fprintf(&b, "(and %d ID lines)", skipped)
	return b.String()
}

// prefixWriter logs a child's stderr through the test.
type prefixWriter struct {
	t    *testing.T
	name string
	mu   sync.Mutex
	buf  []byte
}

func (w *prefixWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf = append(w.buf, p...)
	for {
		i := strings.IndexByte(string(w.buf), '\n')
		if i < 0 {
			break
		}
		w.t.Logf("%s stderr: %s", w.name, w.buf[:i])
		w.buf = w.buf[i+1:]
	}
	return len(p), nil
}
