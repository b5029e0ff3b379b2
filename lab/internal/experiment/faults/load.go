package faults

import (
	"context"
	"crypto/tls"
	"errors"
	"sync"
	"sync/atomic"
	"time"

	"github.com/snowlab/snowlab"
	"github.com/snowlab/snowlab/lab/internal/remote"
	"github.com/snowlab/snowlab/snowidd/client"
)

// Attempt outcomes beside the replica's status codes ("unavailable",
// "failed_precondition", …): a call that failed on the wire, and one that
// ran out its attempt's time.
const (
	outcomeOK        = "ok"
	outcomeTransport = "transport"
	outcomeTimeout   = "timeout"
)

// served is one call a replica answered with IDs.
type served struct {
	replica int
	call    time.Time // when the attempt that was answered began
	at      time.Time // when the answer arrived
	first   int       // its IDs' offset in the caller's ids
	n       int
}

// attempt is one try of one call on one replica.
type attempt struct {
	replica int
	at      time.Time // when it ended
	outcome string
}

// caller is one client goroutine: its calls in the order made, its IDs in
// the order received.
type caller struct {
	// inflight is the number (from 1, its index in attempts plus 1) of
	// the attempt under way, 0 between attempts: the kill -9 scenario
	// kills a replica in the middle of one.
	inflight  atomic.Int32
	ids       []snowlab.ID
	served    []served
	attempts  []attempt
	calls     int             // calls begun
	failed    int             // calls every replica refused
	failovers []time.Duration // served calls that had first been refused
}

// load is client goroutines calling the fleet: each call goes to the
// next replica round the fleet and, refused, to the one after, until one
// serves or every one refused, as snowidd's Go client does.
type load struct {
	stop    chan struct{}
	wg      sync.WaitGroup
	callers []*caller
}

// loadConfig shapes a load.
type loadConfig struct {
	urls    []string
	clients int
	tls     *tls.Config
	// batch is the NextIDs count of call n; 0 calls NextID.
	batch func(n int) int
	// attemptTimeout bounds one attempt on one replica.
	attemptTimeout time.Duration
	// skip, when set, says which replicas not to try now (a spare not
	// started yet).
	skip func(r int) bool
	// pause is a wait between calls (0: none).
	pause time.Duration
}

// startLoad starts the clients; stop them with load.end.
func startLoad(cfg loadConfig) (*load, error) {
	l := &load{stop: make(chan struct{})}
	protocols := client.Protocols()
	for i := range cfg.clients {
		p := protocols[i%len(protocols)]
		conns := make([]*remote.Client, len(cfg.urls))
		for j, u := range cfg.urls {
			c, err := remote.NewClient(u, p, cfg.tls)
			if err != nil {
				close(l.stop)
				return nil, err
			}
			conns[j] = c
		}
		c := &caller{}
		l.callers = append(l.callers, c)
		l.wg.Go(func() { c.run(l.stop, conns, cfg, i) })
	}
	return l, nil
}

// end stops the clients and waits for their calls in flight.
func (l *load) end() []*caller {
	close(l.stop)
	l.wg.Wait()
	return l.callers
}

func (c *caller) run(stop <-chan struct{}, conns []*remote.Client, cfg loadConfig, seed int) {
	next := seed % len(conns)
	for n := 0; ; n++ {
		select {
		case <-stop:
			return
		default:
		}
		c.calls++
		begun := time.Now()
		refusedFirst, ok := false, false
		for k := range conns {
			r := (next + k) % len(conns)
			if cfg.skip != nil && cfg.skip(r) {
				continue
			}
			c.inflight.Store(int32(len(c.attempts) + 1))
			callAt := time.Now()
			ctx, cancel := context.WithTimeout(context.Background(), cfg.attemptTimeout)
			var ids []snowlab.ID
			var err error
			if b := cfg.batch(n); b > 0 {
				ids, err = conns[r].NextIDs(ctx, b)
			} else {
				var id uint64
				if id, err = conns[r].NextID(ctx); err == nil {
					ids = []snowlab.ID{snowlab.ID(id)}
				}
			}
			cancel()
			c.inflight.Store(0)
			now := time.Now()
			if err != nil {
				c.attempts = append(c.attempts, attempt{replica: r, at: now, outcome: outcomeOf(err)})
				refusedFirst = true
				continue
			}
			c.attempts = append(c.attempts, attempt{replica: r, at: now, outcome: outcomeOK})
			c.served = append(c.served, served{replica: r, call: callAt, at: now, first: len(c.ids), n: len(ids)})
			c.ids = append(c.ids, ids...)
			if refusedFirst {
				c.failovers = append(c.failovers, now.Sub(begun))
			}
			ok = true
			break
		}
		next = (next + 1) % len(conns)
		wait := cfg.pause
		if !ok {
			c.failed++
			// Every replica refused: give the fleet a moment, as a
			// client's backoff does.
			wait = 20 * time.Millisecond
		}
		if wait > 0 {
			select {
			case <-stop:
				return
			case <-time.After(wait):
			}
		}
	}
}

// outcomeOf names a failed attempt: the replica's status code, or how it
// failed on the wire.
func outcomeOf(err error) string {
	if code := remote.CodeOf(err); code != "" {
		return code
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return outcomeTimeout
	}
	return outcomeTransport
}
