package nodeid

import (
	"context"
	"fmt"
	"sync"
)

// ClaimState is the part of a Claim that every Store over a network keeps
// the same way: the lock that serialises the claim's Reserve and Release,
// the highest reserved-until it made durable, and whether the claim is
// lost and why. Its Reserve method is the Reserve step those stores share,
// so that a Store supplies only its guarded write. Make one with
// NewClaimState; a ClaimState must not be copied.
type ClaimState struct {
	mu       sync.Mutex // serialises Reserve and Release
	reserved int64      // the highest reserved-until made durable, under mu

	name     string
	onLose   func()
	lost     chan struct{}
	lostOnce sync.Once
	why      string // why the claim was lost, set before lost is closed
}

// NewClaimState returns the state of a claim just acquired: held, with
// floor as the highest reserved-until made durable so far (the stored
// value only moves forward from there). name is how Err names the claim,
// as "etcdlease: node ids 3..4 (token 17)". onLose, when not nil, runs
// once, when the claim is lost: a Store stops its monitors there.
func NewClaimState(name string, floor int64, onLose func()) *ClaimState {
	return &ClaimState{name: name, reserved: floor, onLose: onLose, lost: make(chan struct{})}
}

// Lost is closed when the claim is lost: what a Claim's Lost returns.
func (s *ClaimState) Lost() <-chan struct{} { return s.lost }

// Lose marks the claim lost, for why: the first call closes Lost and runs
// onLose; later calls change nothing, so the first reason stays.
func (s *ClaimState) Lose(why string) {
	s.lostOnce.Do(func() {
		s.why = why
		close(s.lost)
		if s.onLose != nil {
			s.onLose()
		}
	})
}

// Err is the error of an operation on a lost claim: it wraps ErrLost and
// says which claim was lost and why. Call it only once Lost is closed.
func (s *ClaimState) Err() error {
	return fmt.Errorf("%w: %s: %s", ErrLost, s.name, s.why)
}

// Lock takes the lock Reserve holds, for a Store's Release: a reservation
// and the release never interleave.
func (s *ClaimState) Lock() { s.mu.Lock() }

// Unlock releases the lock Lock took.
func (s *ClaimState) Unlock() { s.mu.Unlock() }

// Reserve is the Reserve step of a claim: under the lock, it fails with
// Err once the claim is lost; otherwise it calls write with the value to
// store, until or the highest reserved-until already made durable if that
// is later, so that the stored value only moves forward, and records it
// when write succeeds. write stores it as the reserved-until of every node
// id of the claim, guarded so that it changes nothing unless the claim
// still holds them, and reports held false when the guard failed: Reserve
// then loses the claim, for why, and returns Err. An error from write (the
// store unreachable, a timeout) is returned as it is, and records nothing.
func (s *ClaimState) Reserve(ctx context.Context, until int64, why string, write func(ctx context.Context, v int64) (held bool, err error)) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	select {
	case <-s.lost:
		return s.Err()
	default:
	}
	v := max(until, s.reserved)
	held, err := write(ctx, v)
	if err != nil {
		return err
	}
	if !held {
		s.Lose(why)
		return s.Err()
	}
	s.reserved = v
	return nil
}
