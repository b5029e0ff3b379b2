package server

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// ClockPath answers the replica's clock, for peers and clients to compare
// theirs with: GET, JSON {"unix_nano":"<decimal>"}, the reading taken as
// the answer is written. The nanoseconds are a string, as the IDs are,
// since a JSON number loses them in JavaScript.
const ClockPath = "/clock"

// ClockAnswer is the body of GET /clock.
type ClockAnswer struct {
	UnixNano string `json:"unix_nano"`
}

// PeerOffset is an estimate of a peer's clock against this replica's:
// the peer's reading minus the midpoint of the round trip that fetched
// it, by this replica's clock. The peer read its clock somewhere inside
// that round trip, so the true offset lies within Offset ± Error, Error
// being half the round trip.
type PeerOffset struct {
	// Peer names the peer (its base URL).
	Peer string
	// Known is false until a round trip has been answered, and again
	// once the last answer is too old to vouch for the clock now.
	Known bool
	// Offset is the peer's clock minus this replica's: positive, the
	// peer is ahead.
	Offset time.Duration
	// Error is half the round trip of the estimate.
	Error time.Duration
	// Err is why the last poll failed (nil when it did not).
	Err error
}

// PeerClocks is what the server reads of its peers' clocks; the poller of
// snowidd -peers implements it.
type PeerClocks interface {
	// PeerOffsets is the latest estimate for each peer, in a fixed order.
	PeerOffsets() []PeerOffset
}

// FleetOffset is this replica's clock against the median of the fleet's:
// the median of the peers' known offsets and of this replica's own (0,
// exactly known), so that in a fleet of three the one replica whose clock
// is off is the one that sees itself off, not the two whose clocks agree.
// With an even count the middle value nearer 0 is taken: the estimate
// that holds readiness less. Offset is how far this replica is behind the
// median (the median peer's offset), Error that estimate's error; n is how
// many clocks were counted, this one included.
func FleetOffset(peers []PeerOffset) (offset, errBound time.Duration, n int) {
	type est struct{ off, err time.Duration }
	all := []est{{0, 0}}
	for _, p := range peers {
		if p.Known {
			all = append(all, est{p.Offset, p.Error})
		}
	}
	slices.SortFunc(all, func(a, b est) int {
		switch {
		case a.off < b.off:
			return -1
		case a.off > b.off:
			return 1
		}
		return 0
	})
	m := all[len(all)/2]
	if len(all)%2 == 0 {
		if lo := all[len(all)/2-1]; absDuration(lo.off) < absDuration(m.off) {
			m = lo
		}
	}
	return m.off, m.err, len(all)
}

func absDuration(d time.Duration) time.Duration {
	if d < 0 {
		return -d
	}
	return d
}

// peerNotReady says why this replica's clock is too far from its fleet's
// to serve, or "" when it is not: when even the nearest value the
// estimate allows (|offset| - error) is above bound. Peers that do not
// answer hold nothing: a replica must not go unready because others are
// down.
func peerNotReady(peers []PeerOffset, bound time.Duration) string {
	off, e, n := FleetOffset(peers)
	if n < 2 || absDuration(off)-e <= bound {
		return ""
	}
	dir := "behind"
	if off < 0 {
		dir = "ahead of"
	}
	return fmt.Sprintf("the clock is %v (± %v) %s the median of %d clocks (its peers' and its own), above the bound of %v",
		absDuration(off).Round(time.Microsecond), e.Round(time.Microsecond), dir, n, bound)
}

// serveClock answers GET /clock with now.
func serveClock(now func() time.Time) http.HandlerFunc {
	return func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Cache-Control", "no-store")
		b, _ := json.Marshal(ClockAnswer{UnixNano: strconv.FormatInt(now().UnixNano(), 10)})
		_, _ = w.Write(append(b, '\n'))
	}
}

// peerCollector exports the peers' offsets, read once per scrape. A peer
// with no estimate has no series: a gap, not a guess.
type peerCollector struct {
	peers             PeerClocks
	offset, err, mine *prometheus.Desc
}

func newPeerCollector(p PeerClocks) *peerCollector {
	return &peerCollector{
		peers: p,
		offset: prometheus.NewDesc("snowidd_clock_peer_offset_seconds",
			"A peer's clock minus this replica's, seconds, estimated at the midpoint of a round trip to its GET /clock (snowidd -peers); absent until the peer answers.", []string{"peer"}, nil),
		err: prometheus.NewDesc("snowidd_clock_peer_offset_error_seconds",
			"Half the round trip of the estimate in snowidd_clock_peer_offset_seconds: the true offset is within it.", []string{"peer"}, nil),
		mine: prometheus.NewDesc("snowidd_clock_fleet_offset_seconds",
			"How far this replica's clock is behind the median of its peers' and its own (negative: ahead), seconds.", nil, nil),
	}
}

func (c *peerCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- c.offset
	ch <- c.err
	ch <- c.mine
}

func (c *peerCollector) Collect(ch chan<- prometheus.Metric) {
	peers := c.peers.PeerOffsets()
	for _, p := range peers {
		if !p.Known {
			continue
		}
		ch <- prometheus.MustNewConstMetric(c.offset, prometheus.GaugeValue, p.Offset.Seconds(), p.Peer)
		ch <- prometheus.MustNewConstMetric(c.err, prometheus.GaugeValue, p.Error.Seconds(), p.Peer)
	}
	off, _, _ := FleetOffset(peers)
	ch <- prometheus.MustNewConstMetric(c.mine, prometheus.GaugeValue, off.Seconds())
}
