package faults

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"
	"time"
)

// stage is one scenario under way: the rig it runs on, and its result,
// into which it writes the fault's steps, its checks and notes as they
// come.
type stage struct {
	x       *executor
	dir     string // the scenario's folder
	sc      scenario
	store   leaseStore
	cluster *cluster // the store of an etcd scenario, nil on another
	links   *links
	certs   *certs
	reps    []*replica
	started []atomic.Bool // by replica: ever started (a spare is not, at first)
	begun   time.Time
	res     *scenarioResult
	// said is what the scenario says of each replica: its Role and its
	// Bound, with why.
	said  []replicaStat
	after []func(a *analysis)
	extra []*load // loads of the scenario's own (the kill -9 batch caller)
}

// mark notes a step of the fault, with its time from the load's start.
func (s *stage) mark(format string, a ...any) {
	s.res.Fault = append(s.res.Fault, fmt.Sprintf("%5.1f s: %s", time.Since(s.begun).Seconds(), fmt.Sprintf(format, a...)))
	s.x.say("  %s", s.res.Fault[len(s.res.Fault)-1])
}

func (s *stage) role(r int, what string) { s.said[r].Role = what }

func (s *stage) bound(r int, d time.Duration, why string) {
	s.said[r].Bound, s.said[r].BoundWhy = d, why
}

// check records a claim measured: ok, and what was measured.
func (s *stage) check(what string, ok bool, format string, a ...any) {
	s.res.Checks = append(s.res.Checks, check{What: what, Measured: fmt.Sprintf(format, a...), OK: ok})
}

// note records an observation.
func (s *stage) note(format string, a ...any) {
	s.res.Notes = append(s.res.Notes, fmt.Sprintf(format, a...))
}

// afterLoad runs f on what the clients received, once the load ended.
func (s *stage) afterLoad(f func(a *analysis)) { s.after = append(s.after, f) }

// waitReady waits until replica r answers /readyz 200.
func (s *stage) waitReady(r int, within time.Duration) error {
	var body string
	err := waitFor(context.Background(), within, 20*time.Millisecond, func() (ok bool, _ error) {
		ok, body = s.reps[r].Readyz()
		return ok, nil
	})
	if err != nil {
		return fmt.Errorf("replica %s not ready (%w): %s", s.reps[r].Name, err, body)
	}
	return nil
}

// startSuccessor starts spare r (the clients call it from then on),
// waits (within) until it is ready, and checks that it took node id k,
// r0's (which); it returns how long r took to be ready.
func (s *stage) startSuccessor(r, k int, within time.Duration, which string) (time.Duration, error) {
	startAt := time.Now()
	if err := s.reps[r].Start(); err != nil {
		return 0, err
	}
	s.started[r].Store(true)
	if err := s.waitReady(r, within); err != nil {
		return 0, err
	}
	waited := time.Since(startAt)
	kr, err := s.reps[r].Node()
	if err != nil {
		return 0, err
	}
	s.mark("r%d ready on node id %d, %v after it started", r, kr, waited.Round(time.Millisecond))
	s.check("the successor took "+which, kr == k, "r0 held %d, r%d holds %d", k, r, kr)
	return waited, nil
}

// replicaArgs are replica r's flags after -listen.
func (s *stage) replicaArgs(r int, spec replicaSpec, peers []string) ([]string, error) {
	eps, err := s.links.For(r)
	if err != nil {
		return nil, err
	}
	args := []string{"-lease", s.store.lease(s.sc.Name, eps),
		"-ttl", defaultTTL.String(), "-window", defaultWindow.String(), "-grace", "2s",
		"-rewind-hold", defaultRewindHold.String(), "-policy", spec.policy()}
	if s.sc.Layout != "" {
		args = append(args, "-layout", s.sc.Layout)
	}
	if spec.Peers && len(peers) > 0 {
		args = append(args, "-peers", strings.Join(peers, ","), "-peer-interval", "250ms")
	}
	if c := s.certs; c != nil {
		args = append(args, "-tls-cert", c.Cert, "-tls-key", c.Key, "-tls-client-ca", c.CA,
			"-etcd-cacert", c.CA, "-etcd-cert", c.Cert, "-etcd-key", c.Key)
	}
	return args, nil
}
