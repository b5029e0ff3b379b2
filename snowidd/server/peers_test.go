package server_test

import (
	"encoding/json"
	"errors"
	"net/http"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/snowlab/snowlab"
	"github.com/snowlab/snowlab/snowidd/server"
)

// scriptedPeers are peer estimates as the test sets them.
type scriptedPeers struct {
	p atomic.Pointer[[]server.PeerOffset]
}

func (s *scriptedPeers) set(p ...server.PeerOffset)       { s.p.Store(&p) }
func (s *scriptedPeers) PeerOffsets() []server.PeerOffset { return *s.p.Load() }

func peer(name string, off, e time.Duration) server.PeerOffset {
	return server.PeerOffset{Peer: name, Known: true, Offset: off, Error: e}
}

// The fleet's median counts this replica's own clock, so that of three
// the one that is off sees itself off and the two that agree do not; with
// an even count the middle value nearer 0 is taken; unknown peers count
// for nothing.
func TestFleetOffset(t *testing.T) {
	ms := time.Millisecond
	unknown := server.PeerOffset{Peer: "c", Err: errors.New("connection refused")}
	for _, tc := range []struct {
		name   string
		peers  []server.PeerOffset
		off, e time.Duration
		clocks int
	}{
		{"no peers", nil, 0, 0, 1},
		{"only unknown peers", []server.PeerOffset{unknown}, 0, 0, 1},
		{"this one 10 s ahead of two that agree", []server.PeerOffset{peer("a", -10000*ms, 2*ms), peer("b", -10001*ms, 3*ms)}, -10000 * ms, 2 * ms, 3},
		{"one peer 10 s ahead of two that agree", []server.PeerOffset{peer("a", 10000*ms, 2*ms), peer("b", 1*ms, 1*ms)}, 1 * ms, 1 * ms, 3},
		{"even count: the middle value nearer 0", []server.PeerOffset{peer("a", 5*ms, 1*ms), peer("b", 40*ms, 1*ms), peer("c", 50*ms, 1*ms)}, 5 * ms, 1 * ms, 4},
		{"even count, this one in the middle", []server.PeerOffset{peer("a", -30*ms, 1*ms), unknown, peer("b", 30*ms, 1*ms), peer("d", 60*ms, 1*ms)}, 0, 0, 4},
	} {
		t.Run(tc.name, func(t *testing.T) {
			off, e, n := server.FleetOffset(tc.peers)
			assert.Equal(t, tc.off, off)
			assert.Equal(t, tc.e, e)
			assert.Equal(t, tc.clocks, n)
		})
	}
}

// With PeerMaxOffset set, a replica whose clock is further than it from
// the fleet's median, beyond the estimate's error, is not ready and says
// by how much; the offsets are exported whether the check is on or not.
func TestPeerReadiness(t *testing.T) {
	peers := &scriptedPeers{}
	peers.set(peer("http://a", 0, time.Millisecond), peer("http://b", 0, time.Millisecond))
	r := newRig(t, rigOpts{peers: peers, peerMaxOffset: time.Second})
	off := newRig(t, rigOpts{peers: peers}) // the check off: exported only
	for _, tc := range []struct {
		name  string
		peers []server.PeerOffset
		why   string // "" for ready
	}{
		{"in agreement", []server.PeerOffset{peer("http://a", 2*time.Millisecond, time.Millisecond), peer("http://b", -time.Millisecond, time.Millisecond)}, ""},
		{"10 s ahead of both", []server.PeerOffset{peer("http://a", -10*time.Second, time.Millisecond), peer("http://b", -10*time.Second, time.Millisecond)},
			"the clock is 10s (± 1ms) ahead of the median of 3 clocks (its peers' and its own), above the bound of 1s"},
		{"2 s behind both", []server.PeerOffset{peer("http://a", 2*time.Second, 5*time.Millisecond), peer("http://b", 2*time.Second, 5*time.Millisecond)},
			"the clock is 2s (± 5ms) behind the median"},
		{"over the bound by less than the error", []server.PeerOffset{peer("http://a", 1200*time.Millisecond, 300*time.Millisecond), peer("http://b", 1200*time.Millisecond, 300*time.Millisecond)}, ""},
		{"one peer off is its problem", []server.PeerOffset{peer("http://a", 10*time.Second, time.Millisecond), peer("http://b", 0, time.Millisecond)}, ""},
		{"peers that do not answer hold nothing", []server.PeerOffset{{Peer: "http://a", Err: errors.New("refused")}, {Peer: "http://b"}}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			peers.set(tc.peers...)
			code, body := r.get("/readyz")
			if tc.why == "" {
				assert.Equal(t, http.StatusOK, code, body)
			} else {
				assert.Equal(t, http.StatusServiceUnavailable, code)
				assert.Contains(t, body, tc.why)
			}
			code, body = off.get("/readyz")
			assert.Equal(t, http.StatusOK, code, "the check is off by default: %s", body)
			_, metrics := off.get("/metrics")
			for _, p := range tc.peers {
				line := "snowidd_clock_peer_offset_seconds{peer=\"" + p.Peer + "\"} "
				if p.Known {
					assert.Contains(t, metrics, line+strconv.FormatFloat(p.Offset.Seconds(), 'g', -1, 64)+"\n")
				} else {
					assert.NotContains(t, metrics, line, "no estimate, no series")
				}
			}
		})
	}
	peers.set(peer("http://a", -3*time.Second, time.Millisecond), peer("http://b", -3*time.Second, time.Millisecond))
	assert.Equal(t, -3.0, r.metric("snowidd_clock_fleet_offset_seconds"))
}

// GET /clock answers the server's clock, the nanoseconds as a string.
func TestClockEndpoint(t *testing.T) {
	r := newRig(t, rigOpts{})
	before := r.clock.UnixNano()
	code, body := r.get(server.ClockPath)
	after := r.clock.UnixNano()
	require.Equal(t, http.StatusOK, code, body)
	var a server.ClockAnswer
	require.NoError(t, json.Unmarshal([]byte(body), &a), body)
	ns, err := strconv.ParseInt(a.UnixNano, 10, 64)
	require.NoError(t, err, body)
	assert.GreaterOrEqual(t, ns, before)
	assert.LessOrEqual(t, ns, after)
	r.clock.Add(-2 * time.Second)
	_, body = r.get(server.ClockPath)
	require.NoError(t, json.Unmarshal([]byte(body), &a), body)
	ns, _ = strconv.ParseInt(a.UnixNano, 10, 64)
	assert.Less(t, ns, after, "the scripted step back shows")
}

// A peer check with no peers to read can never pass: refused.
func TestNewRefusesPeerMaxOffsetWithoutPeers(t *testing.T) {
	_, err := server.New(server.Config{PeerMaxOffset: time.Second})
	assert.ErrorIs(t, err, snowlab.ErrInvalidConfig)
	_, err = server.New(server.Config{PeerMaxOffset: -time.Second, Peers: &scriptedPeers{}})
	assert.ErrorIs(t, err, snowlab.ErrInvalidConfig)
}
