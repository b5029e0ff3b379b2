package server

import (
	"context"
	"fmt"
	"time"

	"connectrpc.com/connect"
	"connectrpc.com/grpchealth"

	"github.com/snowlab/snowlab"
	"github.com/snowlab/snowlab/clocksrc"
	"github.com/snowlab/snowlab/snowidd/gen/snowlab/v1/snowlabv1connect"
)

// NotReady says why the replica should get no traffic now, or "" when it
// is ready: Readiness's why.
func (s *Server) NotReady() string {
	_, why := s.Readiness()
	return why
}

// Causes of not being ready, as Readiness names them: short and fixed, for
// a log field or a test to compare, where the why beside them changes with
// every reading (times, offsets).
const (
	CauseDraining    = "draining"
	CauseWindow      = "window"
	CauseNoLease     = "no_lease"
	CauseLeaseLost   = "lease_lost"
	CauseReservation = "reservation"
	CauseRewind      = "rewind"
	CauseClock       = "clock"
	CausePeers       = "peers"
)

// Readiness says why the replica should get no traffic now, its cause
// and the reason in words, or "", "" when it is ready. In order: draining,
// the clock outside the layout's window (every call would fail
// FailedPrecondition), no lease, the lease lost, the reservation run out
// (the store has not confirmed a new one: a generator would refuse), a
// clock rewind refused within the last RewindHold or a clock still behind
// the generator's last tick by more than a call waits, with ClockMaxError set,
// a clock the kernel does not vouch for, and with PeerMaxOffset set, a
// clock too far from its peers'. The first five are exactly the states in
// which every minting call is refused; the last two hold readiness while
// calls would still be served, since a clock in doubt may mint IDs out of
// order with the fleet's.
func (s *Server) Readiness() (cause, why string) {
	if s.draining.Load() {
		return CauseDraining, "draining: the replica is shutting down"
	}
	now := s.cfg.Now()
	if err := CheckWindow(s.layout, now); err != nil {
		return CauseWindow, err.Error() + "; every call fails (FailedPrecondition)"
	}
	m := s.cur.Load()
	if m.gen == nil {
		return CauseNoLease, "no lease held: " + m.why
	}
	if m.lease != nil {
		select {
		case <-m.lease.Lost():
			return CauseLeaseLost, fmt.Sprintf("the lease on %s was lost: %v", m.nodes, m.lease.Err())
		default:
		}
		if until := m.lease.ReservedUntil(); !now.Before(until) {
			why := fmt.Sprintf("the reservation of %s ran out at %s", m.nodes, until.UTC().Format(time.RFC3339Nano))
			if err := m.lease.Err(); err != nil {
				why += fmt.Sprintf(" (the last refresh failed: %v)", err)
			}
			return CauseReservation, why
		}
	}
	if at := s.rewindAt.Load(); at != 0 {
		if why := s.rewindNotReady(m, now, at); why != "" {
			return CauseRewind, why
		}
	}
	if bound := s.cfg.ClockMaxError; bound > 0 {
		if why := clockNotReady(s.cfg.ReadKernel(), bound); why != "" {
			return CauseClock, why
		}
	}
	if bound := s.cfg.PeerMaxOffset; bound > 0 {
		if why := peerNotReady(s.cfg.Peers.PeerOffsets(), bound); why != "" {
			return CausePeers, why
		}
	}
	return "", ""
}

// rewindNotReady says why the replica is not ready after a call was
// refused at at (Unix ns) for a clock behind its generator's last tick, or
// "": for RewindHold after the refusal, and for as long as the clock is
// still further behind the generator's last tick than its calls allow
// (the fence's LastEnd, less a tick and the slack), so that a clock
// stepped back an hour does not make the replica ready every RewindHold
// only to refuse the calls that readiness lets in.
func (s *Server) rewindNotReady(m *minter, now time.Time, at int64) string {
	refused := time.Unix(0, at).UTC().Format(time.RFC3339Nano)
	if back := time.Unix(0, at).Add(s.cfg.RewindHold); now.Before(back) {
		return fmt.Sprintf("the clock moved backwards: a call was refused at %s; ready again at %s if no other is",
			refused, back.UTC().Format(time.RFC3339Nano))
	}
	if m.fence == nil {
		return ""
	}
	lastTick := time.Unix(0, m.fence.LastEnd()).Add(-s.layout.Unit)
	if behind := lastTick.Sub(now); behind > m.slack {
		return fmt.Sprintf("the clock moved backwards: a call was refused at %s, and the clock is still %v behind the last tick minted (%s), more than the %v a call waits",
			refused, behind, lastTick.UTC().Format(time.RFC3339Nano), m.slack)
	}
	return ""
}

// CheckWindow says, wrapping snowlab.ErrOverflow, when now is outside the
// window of layout l, [epoch, horizon): before the epoch (a typo such as
// 2030 for 2023) or at or past the horizon. Every ID minted then would be
// refused, so the command refuses such a layout at start and the server
// is not ready while it holds.
func CheckWindow(l snowlab.Layout, now time.Time) error {
	l = l.OrDefault()
	epoch, horizon := l.Epoch.UTC(), l.Horizon().UTC()
	window := fmt.Sprintf("[%s, %s)", epoch.Format(time.RFC3339Nano), horizon.Format(time.RFC3339Nano))
	clock := now.UTC().Format(time.RFC3339Nano)
	switch {
	case now.Before(epoch):
		return fmt.Errorf("%w %s: the clock (%s) is %s before its epoch: nothing can be minted before it",
			snowlab.ErrOverflow, window, clock, span(epoch.Sub(now)))
	case !now.Before(horizon):
		return fmt.Errorf("%w %s: the clock (%s) is %s past its horizon: nothing can be minted any more",
			snowlab.ErrOverflow, window, clock, span(now.Sub(horizon)))
	}
	return nil
}

// span writes d for a person: in years (of 365.2425 days) from a year up,
// in days from a day up, else as a Duration to the millisecond.
func span(d time.Duration) string {
	const day, year = 24 * time.Hour, 31_556_952 * time.Second // a year of 365.2425 days
	switch {
	case d >= year:
		return fmt.Sprintf("%.1f years", float64(d)/float64(year))
	case d >= day:
		return fmt.Sprintf("%.1f days", d.Hours()/24)
	}
	return d.Round(time.Millisecond).String()
}

// WatchReady reads Readiness every interval until ctx ends and calls
// changed, from its own goroutine, each time the cause differs from the
// last reading's ("" once ready again), so that a replica says in its log
// when it stops being ready and why, even with no probe or call to ask:
// a window that closes while it runs, a clock the kernel stops vouching
// for. The first reading is the reference and is not reported. Readiness
// costs a clock reading and some loads (with ClockMaxError, one adjtimex
// call of about a microsecond): once a second is nothing.
func (s *Server) WatchReady(ctx context.Context, interval time.Duration, changed func(cause, why string)) {
	last, _ := s.Readiness()
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		if cause, why := s.Readiness(); cause != last {
			last = cause
			changed(cause, why)
		}
	}
}

// clockNotReady says why the kernel's account of the clock k does not
// vouch for it within bound, or "" when it does.
func clockNotReady(k clocksrc.Kernel, bound time.Duration) string {
	switch {
	case !k.Known:
		return fmt.Sprintf("the clock's discipline is unknown (%s); the clock check (max error %v) needs the kernel to vouch for it", k.Reason, bound)
	case !k.Synchronized:
		return fmt.Sprintf("the clock is not synchronized: the kernel reports %v, status %v, maximum error %v", k.State, k.Status, k.MaxError)
	case k.MaxError > bound:
		return fmt.Sprintf("the clock's maximum error %v is above the bound of %v (the kernel reports it synchronized)", k.MaxError, bound)
	}
	return ""
}

// healthChecker answers grpc.health.v1 from NotReady, for the whole server
// ("") and for snowlab.v1.IDService alike.
type healthChecker struct{ s *Server }

func (h *healthChecker) Check(_ context.Context, req *grpchealth.CheckRequest) (*grpchealth.CheckResponse, error) {
	switch req.Service {
	case "", snowlabv1connect.IDServiceName:
	default:
		return nil, connect.NewError(connect.CodeNotFound, fmt.Errorf("snowidd: unknown service %q: want \"\" or %q", req.Service, snowlabv1connect.IDServiceName))
	}
	if s := h.s.NotReady(); s != "" {
		return &grpchealth.CheckResponse{Status: grpchealth.StatusNotServing}, nil
	}
	return &grpchealth.CheckResponse{Status: grpchealth.StatusServing}, nil
}
