package server

import (
	"context"
	"fmt"
	"time"

	"connectrpc.com/connect"
	"connectrpc.com/grpchealth"

	"github.com/snowlab/snowlab/clocksrc"
	"github.com/snowlab/snowlab/snowidd/gen/snowlab/v1/snowlabv1connect"
)

// NotReady says why the replica should get no traffic now, or "" when it
// is ready. In order: draining, no lease, the lease lost, the reservation
// run out (the store has not confirmed a new one: a generator would
// refuse), a clock rewind refused within the last RewindHold, with
// ClockMaxError set, a clock the kernel does not vouch for, and with
// PeerMaxOffset set, a clock too far from its peers'.
func (s *Server) NotReady() string {
	if s.draining.Load() {
		return "draining: the replica is shutting down"
	}
	m := s.cur.Load()
	if m.gen == nil {
		return "no lease held: " + m.why
	}
	now := s.cfg.Now()
	if m.lease != nil {
		select {
		case <-m.lease.Lost():
			return fmt.Sprintf("the lease on %s was lost: %v", m.nodes, m.lease.Err())
		default:
		}
		if until := m.lease.ReservedUntil(); !now.Before(until) {
			why := fmt.Sprintf("the reservation of %s ran out at %s", m.nodes, until.UTC().Format(time.RFC3339Nano))
			if err := m.lease.Err(); err != nil {
				why += fmt.Sprintf(" (the last refresh failed: %v)", err)
			}
			return why
		}
	}
	if at := s.rewindAt.Load(); at != 0 {
		if back := time.Unix(0, at).Add(s.cfg.RewindHold); now.Before(back) {
			return fmt.Sprintf("the clock moved backwards: a call was refused at %s; ready again at %s if no other is",
				time.Unix(0, at).UTC().Format(time.RFC3339Nano), back.UTC().Format(time.RFC3339Nano))
		}
	}
	if bound := s.cfg.ClockMaxError; bound > 0 {
		if why := clockNotReady(s.cfg.ReadKernel(), bound); why != "" {
			return why
		}
	}
	if bound := s.cfg.PeerMaxOffset; bound > 0 {
		return peerNotReady(s.cfg.Peers.PeerOffsets(), bound)
	}
	return ""
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
