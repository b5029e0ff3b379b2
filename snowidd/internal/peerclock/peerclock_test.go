package peerclock_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/snowlab/snowlab/snowidd/internal/peerclock"
	"github.com/snowlab/snowlab/snowidd/server"

	"github.com/snowlab/snowlab/snowidd/internal/testend"
)

// clockPeer serves GET /clock from the machine's clock plus offset, each
// answer after delay (a slow round trip).
func clockPeer(t *testing.T, offset, delay time.Duration) string {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != server.ClockPath {
			http.NotFound(w, r)
			return
		}
		time.Sleep(delay / 2)
		now := time.Now().Add(offset).UnixNano()
		time.Sleep(delay / 2)
		_ = json.NewEncoder(w).Encode(server.ClockAnswer{UnixNano: strconv.FormatInt(now, 10)})
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

// The estimate of each peer's offset holds its true offset within its
// error, half the shortest round trip; a peer that does not answer has
// no estimate and says why; an answer that is not a clock is an error.
func TestPoller(t *testing.T) {
	ahead := clockPeer(t, 3*time.Second, 0)
	behind := clockPeer(t, -1500*time.Millisecond, 40*time.Millisecond)
	down := httptest.NewServer(http.NotFoundHandler())
	downURL := down.URL
	down.Close()
	notClock := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte(`{"unix_nano":"soon"}`)) }))
	t.Cleanup(notClock.Close)

	p, err := peerclock.New(peerclock.Config{Peers: []string{ahead, behind, downURL, notClock.URL},
		Now: func() int64 { return time.Now().UnixNano() }, Interval: time.Hour})
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { p.Run(ctx); close(done) }()
	var got []server.PeerOffset
	testend.WaitFor(t, "the first poll", func() bool {
		got = p.PeerOffsets()
		return got[0].Known && got[1].Known && got[2].Err != nil && got[3].Err != nil
	})
	cancel()
	<-done

	for i, want := range []time.Duration{3 * time.Second, -1500 * time.Millisecond} {
		e := got[i]
		assert.LessOrEqual(t, (e.Offset - want).Abs(), e.Error+time.Millisecond, "%s: offset %v ± %v, true %v", e.Peer, e.Offset, e.Error, want)
	}
	assert.GreaterOrEqual(t, got[1].Error, 20*time.Millisecond, "half of a 40 ms round trip at least")
	assert.False(t, got[2].Known)
	assert.ErrorContains(t, got[3].Err, `unix_nano "soon"`)
	assert.Equal(t, []string{ahead, behind, downURL, notClock.URL}, []string{got[0].Peer, got[1].Peer, got[2].Peer, got[3].Peer})
}

// An estimate older than three intervals no longer vouches for the
// clock: the peer went silent.
//
// The calls have no timeout of their own (the default is the interval,
// 20 ms here, which a loaded machine's round trip need not keep), and
// that an estimate was made is read from its error, a half round trip,
// which PeerOffsets keeps when the estimate ages: Known itself holds for
// 60 ms after each poll, a window a loaded machine may let pass unseen.
// (Both were premises before.)
func TestPollerForgets(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		_ = json.NewEncoder(w).Encode(server.ClockAnswer{UnixNano: strconv.FormatInt(time.Now().UnixNano(), 10)})
	}))
	p, err := peerclock.New(peerclock.Config{Peers: []string{srv.URL}, Now: func() int64 { return time.Now().UnixNano() },
		Interval: 20 * time.Millisecond, Client: &http.Client{}})
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go p.Run(ctx)
	testend.WaitFor(t, "an estimate made", func() bool { return p.PeerOffsets()[0].Error > 0 })
	srv.Close()
	testend.WaitFor(t, "the estimate forgotten once the peer went silent", func() bool {
		o := p.PeerOffsets()[0]
		return !o.Known && o.Error > 0
	})
}

func TestNewRefuses(t *testing.T) {
	_, err := peerclock.New(peerclock.Config{Now: func() int64 { return 0 }})
	assert.Error(t, err)
	_, err = peerclock.New(peerclock.Config{Peers: []string{"http://a:1"}, Now: func() int64 { return 0 }, Interval: -time.Second})
	assert.Error(t, err)
}
