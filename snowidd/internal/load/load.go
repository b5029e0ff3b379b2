// Package load drives a snowidd replica the way the goals in the closing
// notes are stated: closed loops (C callers, each calling as soon as its
// last call returned) for the most a server gives, and an open loop (calls
// sent on a fixed schedule, whatever the answers do) for latency at a
// given rate, measured from when each call was due, so that a stall shows
// in the tail instead of silently lowering the rate.
package load

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"connectrpc.com/connect"

	"github.com/snowlab/snowlab/snowidd/client"
	snowlabv1 "github.com/snowlab/snowlab/snowidd/gen/snowlab/v1"
	"github.com/snowlab/snowlab/snowidd/gen/snowlab/v1/snowlabv1connect"
)

// Call is one request: it returns how many IDs it got.
type Call func(ctx context.Context) (int, error)

// Caller builds calls to url over p, each on its own HTTP client (its own
// connection) when conns > 1: call i uses connection i%conns. batch 0 is
// NextID; above 0, NextIDs(batch).
func Caller(url string, p client.Protocol, batch, conns int) (func(i int) Call, error) {
	opts, err := p.Options()
	if err != nil {
		return nil, err
	}
	if batch < 0 || batch > client.MaxBatch {
		return nil, fmt.Errorf("load: batch %d: want 0 (NextID) or 1..%d", batch, client.MaxBatch)
	}
	conns = max(conns, 1)
	cs := make([]snowlabv1connect.IDServiceClient, conns)
	for i := range cs {
		var hc *http.Client
		if p == client.GRPC {
			hc = client.H2CClient()
		} else {
			hc = &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 256}}
		}
		cs[i] = snowlabv1connect.NewIDServiceClient(hc, url, opts...)
	}
	return func(i int) Call {
		c := cs[i%conns]
		// A connect.Request is written to by the call that sends it: each
		// call gets its own.
		if batch == 0 {
			return func(ctx context.Context) (int, error) {
				_, err := c.NextID(ctx, connect.NewRequest(&snowlabv1.NextIDRequest{}))
				if err != nil {
					return 0, err
				}
				return 1, nil
			}
		}
		return func(ctx context.Context) (int, error) {
			resp, err := c.NextIDs(ctx, connect.NewRequest(&snowlabv1.NextIDsRequest{Count: uint32(batch)}))
			if err != nil {
				return 0, err
			}
			return len(resp.Msg.GetIds()), nil
		}
	}, nil
}

// Result is what a run measured.
type Result struct {
	Calls, IDs, Errors int64
	Elapsed            time.Duration
	FirstErr           error
	// Latencies, sorted, from each call's due time (open loop) or start
	// (closed loop) to its answer.
	Latencies []time.Duration
}

// CallsPerSec and IDsPerSec are the rates over the run.
func (r Result) CallsPerSec() float64 { return float64(r.Calls) / r.Elapsed.Seconds() }
func (r Result) IDsPerSec() float64   { return float64(r.IDs) / r.Elapsed.Seconds() }

// Quantile is the q-quantile of the latencies (nearest rank).
func (r Result) Quantile(q float64) time.Duration {
	if len(r.Latencies) == 0 {
		return 0
	}
	i := int(q*float64(len(r.Latencies))+0.5) - 1
	return r.Latencies[min(max(i, 0), len(r.Latencies)-1)]
}

type tally struct {
	calls, ids, errs atomic.Int64
	mu               sync.Mutex
	first            error
}

func (t *tally) add(n int, err error) {
	if err != nil {
		t.errs.Add(1)
		t.mu.Lock()
		if t.first == nil {
			t.first = err
		}
		t.mu.Unlock()
		return
	}
	t.calls.Add(1)
	t.ids.Add(int64(n))
}

// Closed runs callers concurrent loops of calls for d. The calls carry no
// deadline (a deadline would travel as a timeout header, and the server
// ending a call at it would count as an error): the run cancels them when
// it ends, and what fails then is not counted.
func Closed(ctx context.Context, calls func(i int) Call, callers int, d time.Duration) Result {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var over atomic.Bool
	timer := time.AfterFunc(d, func() { over.Store(true); cancel() })
	defer timer.Stop()
	var t tally
	var wg sync.WaitGroup
	for i := range callers {
		call := calls(i)
		wg.Go(func() {
			for !over.Load() {
				n, err := call(ctx)
				if over.Load() {
					return // cut off by the end of the run, not a failure
				}
				t.add(n, err)
			}
		})
	}
	wg.Wait()
	// Only calls answered within d count, so d is the time they took.
	return Result{Calls: t.calls.Load(), IDs: t.ids.Load(), Errors: t.errs.Load(), Elapsed: d, FirstErr: t.first}
}

// Open sends rate calls per second, evenly spaced, for d, each on its own
// goroutine, and records each call's latency from its due time.
func Open(ctx context.Context, calls func(i int) Call, conns int, rate float64, d time.Duration) Result {
	interval := time.Duration(float64(time.Second) / rate)
	n := int(d / interval)
	lat := make([]time.Duration, n)
	ok := make([]bool, n)
	var t tally
	var wg sync.WaitGroup
	cs := make([]Call, max(conns, 1))
	for i := range cs {
		cs[i] = calls(i)
	}
	start := time.Now()
	for i := range n {
		due := start.Add(time.Duration(i) * interval)
		if w := time.Until(due); w > 0 {
			time.Sleep(w)
		}
		wg.Go(func() {
			cctx, cancel := context.WithTimeout(ctx, 10*time.Second)
			got, err := cs[i%len(cs)](cctx)
			cancel()
			lat[i] = time.Since(due)
			ok[i] = err == nil
			t.add(got, err)
		})
	}
	wg.Wait()
	elapsed := time.Since(start)
	kept := lat[:0]
	for i, l := range lat {
		if ok[i] {
			kept = append(kept, l)
		}
	}
	slices.Sort(kept)
	return Result{Calls: t.calls.Load(), IDs: t.ids.Load(), Errors: t.errs.Load(), Elapsed: elapsed, FirstErr: t.first, Latencies: kept}
}
