package alternatives

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"
)

// sweepPoint is one scheme run with one number of clients.
type sweepPoint struct {
	Clients int `json:"clients"`
	// Elapsed is the run's duration, or less when every client stopped
	// early (at its cap of recorded IDs, or on an error).
	Elapsed   time.Duration `json:"elapsed_ns"`
	IDs       int64         `json:"ids"`
	IDsPerSec float64       `json:"ids_per_sec"`
	// Demand is the fleet's rate asked for (0: as fast as they go);
	// KeptUp is whether the clients handed out at least 95% of it.
	Demand float64 `json:"demand_per_sec"`
	KeptUp bool    `json:"kept_up"`
	// Trip is the latency of a round trip to the database; PerID the time
	// a client waited for each ID it handed out (a round trip, or none
	// when the ID came from a block or batch already held).
	Trip     latency  `json:"round_trip"`
	PerID    latency  `json:"per_id"`
	Disorder disorder `json:"disorder"`
	Error    string   `json:"error,omitempty"`
}

// clientLog is what one client recorded.
type clientLog struct {
	issues []issuedID
	waits  []time.Duration
	trips  []time.Duration
	end    time.Duration
	err    error
}

// pace is the schedule of one run: how long, at what fleet rate, and the
// most IDs a client records (a run handing out faster stops early rather
// than run out of memory).
type pace struct {
	duration time.Duration
	demand   float64 // fleet IDs/s; 0 or less: as fast as they go
	perCap   int
}

// measure runs clients sources for p.duration, each handing out IDs on
// its share of the demand (or as fast as it can), and summarises what
// they handed out.
func measure(ctx context.Context, sources []source, p pace) sweepPoint {
	n := len(sources)
	pt := sweepPoint{Clients: n, Demand: max(p.demand, 0)}
	logs := make([]clientLog, n)
	var ready, done sync.WaitGroup
	startGate := make(chan struct{})
	var start time.Time
	runCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	for i, src := range sources {
		ready.Add(1)
		done.Add(1)
		go func() {
			defer done.Done()
			ready.Done()
			<-startGate
			logs[i] = runClient(runCtx, src, start, p, n)
		}()
	}
	ready.Wait()
	start = time.Now()
	close(startGate)
	done.Wait()
	var all []issuedID
	var waits, trips []time.Duration
	var errs []error
	for i, l := range logs {
		all = append(all, l.issues...)
		waits = append(waits, l.waits...)
		pt.Elapsed = max(pt.Elapsed, l.end)
		if l.err != nil {
			errs = append(errs, fmt.Errorf("client %d: %w", i, l.err))
		}
	}
	for _, s := range sources {
		_ = s.Close(context.Background())
		trips = append(trips, s.Trips()...)
	}
	if err := errors.Join(errs...); err != nil {
		pt.Error = err.Error()
	}
	pt.IDs = int64(len(all))
	if pt.Elapsed > 0 {
		pt.IDsPerSec = float64(pt.IDs) / pt.Elapsed.Seconds()
	}
	pt.KeptUp = pt.Demand > 0 && pt.IDsPerSec >= 0.95*pt.Demand
	pt.Trip = summarize(trips)
	pt.PerID = summarize(waits)
	pt.Disorder = measureDisorder(all)
	return pt
}

// runClient hands out IDs from src until the run's time is up: on a
// schedule of demand/n IDs per second, catching up without waiting when
// behind it, or as fast as it can when there is no demand.
func runClient(ctx context.Context, src source, start time.Time, p pace, n int) clientLog {
	var l clientLog
	interval := time.Duration(0)
	if p.demand > 0 {
		interval = time.Duration(float64(time.Second) * float64(n) / p.demand)
	}
	capacity := p.perCap
	if interval > 0 {
		capacity = min(capacity, int(p.duration/interval)+1)
	}
	l.issues = make([]issuedID, 0, capacity)
	l.waits = make([]time.Duration, 0, capacity)
	var timer *time.Timer
	// A client that ran until its time was up ran for the run's duration;
	// one that stopped at its cap or on an error, until it stopped.
	timeUp := func() clientLog { l.end = p.duration; return l }
	for k := 0; len(l.issues) < p.perCap; k++ {
		now := time.Since(start)
		if interval > 0 {
			due := time.Duration(k) * interval
			if due >= p.duration {
				return timeUp()
			}
			if wait := due - now; wait > 0 {
				if timer == nil {
					timer = time.NewTimer(wait)
				} else {
					timer.Reset(wait)
				}
				select {
				case <-timer.C:
				case <-ctx.Done():
					l.err = ctx.Err()
					l.end = time.Since(start)
					return l
				}
				now = time.Since(start)
			}
		}
		if now >= p.duration {
			return timeUp()
		}
		id, err := src.Next(ctx)
		t := time.Since(start)
		if err != nil {
			l.err = err
			l.end = t
			return l
		}
		l.issues = append(l.issues, issuedID{ID: id, At: int64(t)})
		l.waits = append(l.waits, t-now)
		l.end = t
	}
	return l
}
