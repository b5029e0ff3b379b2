// Package peerclock estimates other replicas' clocks against this one's,
// as NTP does with a server: it reads a peer's GET /clock inside a round
// trip timed on this replica's clock, takes the peer's reading to be from
// the round trip's midpoint, and calls half the round trip the error of
// that estimate (the peer read its clock somewhere inside it). Of several
// round trips per poll the shortest is kept, its error the smallest.
//
// snowidd -peers polls them; the server exports the offsets and, with
// -peer-max-offset, holds readiness while its clock is too far from the
// fleet's median (server.FleetOffset).
package peerclock

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/snowlab/snowlab/snowidd/server"
)

// Defaults for the zero Config fields.
const (
	DefaultInterval = 5 * time.Second
	DefaultSamples  = 3
)

// Config configures a Poller. Peers and Now are required.
type Config struct {
	// Peers are the replicas' base URLs (http://HOST:PORT, https://…).
	Peers []string
	// Now is this replica's clock, Unix ns: the clock its IDs are
	// stamped with, which is the one to compare.
	Now func() int64
	// Interval is the time between polls; 0 is DefaultInterval.
	Interval time.Duration
	// Samples is the round trips per peer and poll, the shortest kept;
	// 0 is DefaultSamples.
	Samples int
	// Client makes the calls; nil is a client with a timeout of Interval.
	Client *http.Client
}

// Poller keeps an estimate of each peer's clock. It is safe for
// concurrent use.
type Poller struct {
	cfg Config
	mu  sync.Mutex
	est []estimate
}

type estimate struct {
	server.PeerOffset
	at time.Time // when the estimate was made (monotonic), zero: never
}

// New returns a Poller for cfg; Run polls.
func New(cfg Config) (*Poller, error) {
	if len(cfg.Peers) == 0 || cfg.Now == nil {
		return nil, errors.New("peerclock: no peers, or no clock to compare them with")
	}
	if cfg.Interval < 0 || cfg.Samples < 0 {
		return nil, fmt.Errorf("peerclock: interval %v and samples %d must not be negative", cfg.Interval, cfg.Samples)
	}
	if cfg.Interval == 0 {
		cfg.Interval = DefaultInterval
	}
	if cfg.Samples == 0 {
		cfg.Samples = DefaultSamples
	}
	if cfg.Client == nil {
		cfg.Client = &http.Client{Timeout: cfg.Interval}
	}
	p := &Poller{cfg: cfg, est: make([]estimate, len(cfg.Peers))}
	for i, u := range cfg.Peers {
		p.est[i].Peer = u
	}
	return p, nil
}

// Run polls every peer every Interval until ctx ends, the first poll at
// once.
func (p *Poller) Run(ctx context.Context) {
	t := time.NewTicker(p.cfg.Interval)
	defer t.Stop()
	for {
		var wg sync.WaitGroup
		for i := range p.cfg.Peers {
			wg.Go(func() { p.poll(ctx, i) })
		}
		wg.Wait()
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// PeerOffsets is server.PeerClocks': the latest estimate per peer, in the
// order of Config.Peers. An estimate older than three intervals is no
// longer Known: a peer that stopped answering no longer vouches for (or
// against) this clock.
func (p *Poller) PeerOffsets() []server.PeerOffset {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := make([]server.PeerOffset, len(p.est))
	for i, e := range p.est {
		out[i] = e.PeerOffset
		if out[i].Known && time.Since(e.at) > 3*p.cfg.Interval {
			out[i].Known = false
		}
	}
	return out
}

// poll estimates peer i's offset from the shortest of Samples round trips.
func (p *Poller) poll(ctx context.Context, i int) {
	var best server.PeerOffset
	var err error
	for range p.cfg.Samples {
		o, e := p.sample(ctx, p.cfg.Peers[i])
		if e != nil {
			err = e
			continue
		}
		if !best.Known || o.Error < best.Error {
			best = o
		}
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if !best.Known {
		p.est[i].Err = err
		return
	}
	best.Peer = p.cfg.Peers[i]
	p.est[i] = estimate{PeerOffset: best, at: time.Now()}
}

// sample is one round trip to peer's GET /clock. The round trip is timed
// on the monotonic clock (a step of the wall clock during it would
// otherwise count), the midpoint placed on this replica's clock.
func (p *Poller) sample(ctx context.Context, peer string) (server.PeerOffset, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, strings.TrimSuffix(peer, "/")+server.ClockPath, nil)
	if err != nil {
		return server.PeerOffset{}, err
	}
	start, t0 := time.Now(), p.cfg.Now()
	resp, err := p.cfg.Client.Do(req)
	if err != nil {
		return server.PeerOffset{}, err
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, 1<<10))
	rtt := time.Since(start)
	resp.Body.Close()
	if err != nil {
		return server.PeerOffset{}, err
	}
	if resp.StatusCode != http.StatusOK {
		return server.PeerOffset{}, fmt.Errorf("GET %s: HTTP %d", server.ClockPath, resp.StatusCode)
	}
	var a server.ClockAnswer
	if err := json.Unmarshal(body, &a); err != nil {
		return server.PeerOffset{}, fmt.Errorf("GET %s: %v", server.ClockPath, err)
	}
	theirs, err := strconv.ParseInt(a.UnixNano, 10, 64)
	if err != nil {
		return server.PeerOffset{}, fmt.Errorf("GET %s: unix_nano %q: %v", server.ClockPath, a.UnixNano, err)
	}
	mid := t0 + int64(rtt/2)
	return server.PeerOffset{Known: true, Offset: time.Duration(theirs - mid), Error: rtt / 2}, nil
}
