package daemon

import (
	"context"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// requireClients makes a missing client tool fail the test instead of
// skipping it (.ci/run sets it, having installed them).
const requireClients = "SNOWLAB_REQUIRE_CLIENTS"

// needTool skips (or, with SNOWLAB_REQUIRE_CLIENTS=1, fails) the test when
// what says a client is missing.
func needTool(t *testing.T, missing error, what string) {
	t.Helper()
	if missing == nil {
		return
	}
	if os.Getenv(requireClients) == "1" {
		t.Fatalf("%s is required when %s=1: %v", what, requireClients, missing)
	}
	t.Skipf("skipped: %s: %v (set %s=1 to make this fail)", what, missing, requireClients)
}

// daemon is a snowidd run in-process by Run.
type daemon struct {
	url    string
	cancel context.CancelFunc
	exited chan struct{}
	code   int // once exited is closed
	log    *logWriter
}

var urlLine = regexp.MustCompile(`url=(http://\S+)`)

// startDaemon runs snowidd with args and waits for the line that names
// its address.
func startDaemon(t *testing.T, args ...string) *daemon {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	lw := newLogWriter()
	d := &daemon{cancel: cancel, exited: make(chan struct{}), log: lw}
	served := lw.match(urlLine)
	go func() {
		defer close(d.exited)
		d.code = Run(ctx, append([]string{"-listen", "127.0.0.1:0"}, args...), func(string) (string, bool) { return "", false }, lw)
	}()
	select {
	case line := <-served:
		d.url = urlLine.FindStringSubmatch(line)[1]
	case <-d.exited:
		t.Fatalf("snowidd exited with %d before serving:\n%s", d.code, lw)
	case <-time.After(30 * time.Second):
		t.Fatalf("snowidd did not start within 30 s:\n%s", lw)
	}
	t.Cleanup(func() { d.stop(t) })
	return d
}

// stop cancels the daemon as SIGTERM would and returns its exit code.
func (d *daemon) stop(t *testing.T) int {
	t.Helper()
	d.cancel()
	select {
	case <-d.exited:
		return d.code
	case <-time.After(30 * time.Second):
		t.Fatalf("snowidd did not stop within 30 s:\n%s", d.log)
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
