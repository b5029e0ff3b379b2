package snowidcli

import (
	"bytes"
	"context"
	"os"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/snowlab/snowlab"
	"github.com/snowlab/snowlab/nodeid"
)

// orderLog records the writes to stdout and stderr in the order they
// happen.
type orderLog struct {
	mu     sync.Mutex
	writes []string // "out" or "err" per write
	out    bytes.Buffer
	err    bytes.Buffer
	first  func() // called at the first write to stdout
}

type orderWriter struct {
	l    *orderLog
	name string
}

func (w orderWriter) Write(p []byte) (int, error) {
	w.l.mu.Lock()
	w.l.writes = append(w.l.writes, w.name)
	first := w.name == "out" && w.l.out.Len() == 0
	if w.name == "out" {
		w.l.out.Write(p)
	} else {
		w.l.err.Write(p)
	}
	w.l.mu.Unlock()
	if first && w.l.first != nil {
		w.l.first()
	}
	return len(p), nil
}

// gen -lease says which node id it holds on stderr before the first ID
// reaches stdout (it said so only after the last: a long run's reader
// learned the node at its end), and stdout holds IDs only.
func TestGenLeaseNodeBeforeIDs(t *testing.T) {
	dir := t.TempDir()
	var log orderLog
	code := run([]string{"gen", "-lease", "dir:" + dir, "-n", "3"}, orderWriter{&log, "out"}, orderWriter{&log, "err"})
	require.Equal(t, exitOK, code, log.err.String())
	require.NotEmpty(t, log.writes)
	assert.Equal(t, "err", log.writes[0], "the node line comes first: %v", log.writes)
	assert.Equal(t, "snowid: gen: node 0, leased from dir:"+dir+"\n", log.err.String())
	ids := strings.Fields(log.out.String())
	require.Len(t, ids, 3)
	for _, s := range ids {
		mustParse(t, s)
	}

	// The default node too.
	log = orderLog{}
	code = run([]string{"gen", "-n", "3"}, orderWriter{&log, "out"}, orderWriter{&log, "err"})
	require.Equal(t, exitOK, code, log.err.String())
	assert.Equal(t, "err", log.writes[0], "the node line comes first: %v", log.writes)
}

// static:N is -node N, and its errors name it as given: static:1024 was
// reported as "-node 1024", a flag the user never typed.
func TestGenStaticNamesTheSpec(t *testing.T) {
	stdout, stderr, code := snowid(t, "gen", "-lease", "static:1024")
	assert.Equal(t, exitUsage, code)
	assert.Empty(t, stdout)
	assert.Equal(t, `snowid: gen -lease "static:1024": snowlab: node id out of range: node 1024, want 0..1023`+"\n", stderr)

	_, stderr, code = snowid(t, "gen", "-node", "1024")
	assert.Equal(t, exitUsage, code)
	assert.Equal(t, `snowid: gen -node 1024: snowlab: node id out of range: node 1024, want 0..1023`+"\n", stderr)
}

// stopWith replaces gen's signals with a channel the test sends on, and
// raise with one that records the signal it would die of.
func stopWith(t *testing.T) (send chan<- os.Signal, raised func() os.Signal) {
	t.Helper()
	ch := make(chan os.Signal, 1)
	savedNotify, savedRaise := notifyStop, raise
	notifyStop = func() (<-chan os.Signal, func()) { return ch, func() {} }
	var mu sync.Mutex
	var got os.Signal
	raise = func(sig os.Signal) int {
		mu.Lock()
		defer mu.Unlock()
		got = sig
		return 128 + int(sig.(syscall.Signal))
	}
	t.Cleanup(func() { notifyStop, raise = savedNotify, savedRaise })
	return ch, func() os.Signal { mu.Lock(); defer mu.Unlock(); return got }
}

// TestGenLeaseStops: SIGTERM (or SIGINT) in the middle of gen -lease stops
// the minting, releases the lease, and only then dies of the signal; the
// IDs printed are whole lines. Released, the node id's reservation ends
// at the last tick used, not a window ahead of the clock, so the next
// holder starts at once. cmd/snowid's TestSignalReleasesLease sends the
// real signals to the real process.
func TestGenLeaseStops(t *testing.T) {
	for _, sig := range []os.Signal{syscall.SIGTERM, os.Interrupt} {
		t.Run(sig.String(), func(t *testing.T) {
			send, raised := stopWith(t)
			dir := t.TempDir()
			var log orderLog
			log.first = func() { send <- sig } // once IDs flow
			const n = 50_000_000               // seconds of minting: the signal comes first
			code := run([]string{"gen", "-lease", "dir:" + dir, "-n", "50000000"}, orderWriter{&log, "out"}, orderWriter{&log, "err"})
			assert.Equal(t, 128+int(sig.(syscall.Signal)), code, log.err.String())
			assert.Equal(t, sig, raised(), "gen dies of the signal it got")
			out := log.out.String()
			require.True(t, strings.HasSuffix(out, "\n"), "whole lines")
			ids := strings.Fields(out)
			require.NotEmpty(t, ids)
			assert.Less(t, len(ids), n, "the signal stopped the run")
			last := mustParse(t, ids[len(ids)-1])

			// The next holder's floor is the end of the last tick used
			// (every ID minted was printed), not the reservation kept a
			// window (3 s) ahead of the clock.
			c, err := nodeid.Dir(dir).Acquire(context.Background(), snowlab.DefaultLayout, 1, snowlab.DefaultLayout.MaxNode())
			require.NoError(t, err)
			defer c.Release(context.Background(), c.Floor())
			assert.Equal(t, 0, c.First())
			lastEnd := snowlab.DefaultLayout.Decode(last).Time.Add(snowlab.DefaultLayout.Unit)
			assert.Equal(t, lastEnd.UnixNano(), c.Floor(), "the floor is the end of the last ID's tick, not the lease's reservation")
		})
	}
}

// pipeWriter takes the first n writes and then fails every other with
// EPIPE, as a pipe whose reader went away (snowid gen … | head).
type pipeWriter struct {
	n   int
	out bytes.Buffer
}

func (w *pipeWriter) Write(p []byte) (int, error) {
	if w.n == 0 {
		return 0, syscall.EPIPE
	}
	w.n--
	return w.out.Write(p)
}

// TestGenLeaseBrokenPipe: a reader gone away (snowid gen -lease … | head)
// ends gen -lease as a signal does: the lease is released, and gen dies
// of SIGPIPE, silently, as a command writing into a closed pipe does.
// Before, the write's SIGPIPE ended the process with its lease held.
func TestGenLeaseBrokenPipe(t *testing.T) {
	_, raised := stopWith(t)
	dir := t.TempDir()
	out := &pipeWriter{n: 2}
	var errs bytes.Buffer
	code := run([]string{"gen", "-lease", "dir:" + dir, "-n", "50000000"}, out, &errs)
	assert.Equal(t, 128+int(syscall.SIGPIPE), code)
	assert.Equal(t, syscall.SIGPIPE, raised())
	assert.Equal(t, "snowid: gen: node 0, leased from dir:"+dir+"\n", errs.String(), "no error line for a closed pipe")
	ids := strings.Fields(out.out.String())
	require.NotEmpty(t, ids)
	last := mustParse(t, ids[len(ids)-2]) // the last field may be cut short

	c, err := nodeid.Dir(dir).Acquire(context.Background(), snowlab.DefaultLayout, 1, snowlab.DefaultLayout.MaxNode())
	require.NoError(t, err)
	defer c.Release(context.Background(), c.Floor())
	checked := time.Now()
	l := snowlab.DefaultLayout
	assert.Greater(t, c.Floor(), l.Decode(last).Time.UnixNano(), "the floor is past the IDs written")
	assert.LessOrEqual(t, c.Floor(), checked.Add(l.Unit).UnixNano(),
		"the floor is the last tick used (its end at most a tick past the clock), not the reservation a window ahead")
}
