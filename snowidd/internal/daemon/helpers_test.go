package daemon

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/snowlab/snowlab/clocksrc"
	"github.com/snowlab/snowlab/snowidd/internal/testend"
)

// The variables that make a missing client tool, etcd or PostgreSQL fail
// the test instead of skipping it (.ci/run sets them, having installed
// them).
const (
	requireClients = "SNOWLAB_REQUIRE_CLIENTS"
	requireEtcd    = "SNOWLAB_REQUIRE_ETCD"
	requirePG      = "SNOWLAB_REQUIRE_PG"
	requireK8s     = "SNOWLAB_REQUIRE_K8S"
)

// needTool skips (or, with the variable env set to 1, fails) the test
// when what says a tool is missing.
func needTool(t *testing.T, env string, missing error, what string) {
	t.Helper()
	if missing == nil {
		return
	}
	if os.Getenv(env) == "1" {
		t.Fatalf("%s is required when %s=1: %v", what, env, missing)
	}
	t.Skipf("skipped: %s: %v (set %s=1 to make this fail)", what, missing, env)
}

// daemon is a snowidd run in-process by Run.
type daemon struct {
	url    string
	cancel context.CancelFunc
	exited chan struct{}
	code   int // once exited is closed
	log    *logWriter
}

var urlLine = regexp.MustCompile(`url=(https?://\S+)`)

// startDaemon runs snowidd with args and waits for the line that names
// its address.
func startDaemon(t *testing.T, args ...string) *daemon {
	t.Helper()
	return startDaemonOn(t, clocksrc.ReadKernel, args...)
}

// startDaemonOn is startDaemon with the kernel's clock discipline read by
// readKernel: a test scripts the kernel's answer.
func startDaemonOn(t *testing.T, readKernel func() clocksrc.Kernel, args ...string) *daemon {
	t.Helper()
	return startDaemonEnv(t, hooks{readKernel: readKernel}, noEnv, args...)
}

// noEnv is an environment without SNOWIDD_* variables.
func noEnv(string) (string, bool) { return "", false }

// startDaemonWith is startDaemon on the system as h has it: a test
// scripts the kernel's answer and the clock.
func startDaemonWith(t *testing.T, h hooks, args ...string) *daemon {
	t.Helper()
	return startDaemonEnv(t, h, noEnv, args...)
}

// startDaemonEnv is startDaemonWith with the SNOWIDD_* variables getenv
// returns.
func startDaemonEnv(t *testing.T, h hooks, getenv func(string) (string, bool), args ...string) *daemon {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	lw := newLogWriter()
	d := &daemon{cancel: cancel, exited: make(chan struct{}), log: lw}
	served := lw.match(urlLine)
	go func() {
		defer close(d.exited)
		d.code = run(ctx, append([]string{"-listen", "127.0.0.1:0"}, args...), getenv, lw, h)
	}()
	d.url = servedURL(t, lw, served, d.exited, func() any { return d.code })
	t.Cleanup(func() { d.stop(t) })
	return d
}

// servedURL waits for the line in which snowidd names its URL (served is
// lw.match(urlLine), taken before it started) and returns the URL, failing
// t when exited closes first (exitStatus says how it ended) or the test
// ends (testend.Context).
func servedURL(t *testing.T, lw *logWriter, served <-chan string, exited <-chan struct{}, exitStatus func() any) string {
	t.Helper()
	select {
	case line := <-served:
		return urlLine.FindStringSubmatch(line)[1]
	case <-exited:
		t.Fatalf("snowidd exited (%v) before serving:\n%s", exitStatus(), lw)
	case <-testend.Context(t).Done():
		t.Fatalf("snowidd never named the URL it serves by the test's end:\n%s", lw)
	}
	return ""
}

// readyz returns the replica's /readyz status and body; ctx bounds the
// call (testend.Context: a replica that answers slowly on a loaded machine
// is still answering).
func readyz(ctx context.Context, url string) (int, string) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url+"/readyz", nil)
	if err != nil {
		return 0, err.Error()
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, err.Error()
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// ready is a waitFor condition: the replica at url answers /readyz with
// 200. Each call is bounded by the test's end.
func ready(t *testing.T, url string) func() (bool, string) {
	ctx := testend.Context(t)
	return func() (bool, string) {
		code, body := readyz(ctx, url)
		return code == http.StatusOK, fmt.Sprintf("%d %s", code, strings.TrimSpace(body))
	}
}

// waitFor polls cond every 20 ms until it holds, failing t with what and
// cond's last state if it never does by the test's end (testend.Context).
func waitFor(t *testing.T, what string, cond func() (bool, string)) {
	t.Helper()
	end := testend.Context(t)
	for {
		ok, state := cond()
		if ok {
			return
		}
		select {
		case <-end.Done():
			t.Fatalf("%s: never, by the test's end (%s)", what, state)
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// stop cancels the daemon as SIGTERM would and returns its exit code.
func (d *daemon) stop(t *testing.T) int {
	t.Helper()
	d.cancel()
	select {
	case <-d.exited:
		return d.code
	case <-testend.Context(t).Done():
		t.Fatalf("snowidd never stopped after its context was cancelled, by the test's end:\n%s", d.log)
		return -1
	}
}

// logWriter keeps what the daemon logs and hands out the lines matching
// a pattern as they come.
type logWriter struct {
	mu      sync.Mutex
	all     strings.Builder
	pending string
	waiters []waiter
}

type waiter struct {
	re *regexp.Regexp
	ch chan string
}

func newLogWriter() *logWriter { return &logWriter{} }

func (w *logWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.all.Write(p)
	w.pending += string(p)
	for {
		i := strings.IndexByte(w.pending, '\n')
		if i < 0 {
			break
		}
		line := w.pending[:i]
		w.pending = w.pending[i+1:]
		keep := w.waiters[:0]
		for _, wt := range w.waiters {
			if wt.re.MatchString(line) {
				wt.ch <- line
				continue
			}
			keep = append(keep, wt)
		}
		w.waiters = keep
	}
	return len(p), nil
}

// match returns a channel that receives the next line matching re.
func (w *logWriter) match(re *regexp.Regexp) <-chan string {
	w.mu.Lock()
	defer w.mu.Unlock()
	ch := make(chan string, 1)
	w.waiters = append(w.waiters, waiter{re, ch})
	return ch
}

func (w *logWriter) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.all.String()
}

// goTool runs a tool of the module's tools.mod (grpcurl) and returns its
// combined output.
func goTool(t *testing.T, tool string, args ...string) (string, error) {
	t.Helper()
	modfile, err := toolsMod()
	require.NoError(t, err)
	cmd := exec.Command("go", append([]string{"tool", "-modfile=" + modfile, tool}, args...)...)
	// tools.mod is a module of its own; the go command refuses -modfile
	// in the repository's workspace.
	cmd.Env = append(os.Environ(), "GOWORK=off")
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// toolsMod is the absolute path of snowidd/tools.mod.
func toolsMod() (string, error) {
	out, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil {
		return "", err
	}
	gomod := strings.TrimSpace(string(out))
	return strings.TrimSuffix(gomod, "go.mod") + "tools.mod", nil
}
