package nodeid

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/require"
)

// step is one Reserve call: the until asked for, what the guarded write
// answers, and what it must have been handed.
type step struct {
	until   int64
	held    bool
	err     error
	wantV   int64 // the value write must be handed; 0: write must not run
	wantErr error // nil, ErrLost or the write's error
}

var errDown = errors.New("store unreachable")

func TestClaimStateReserve(t *testing.T) {
	for _, tc := range []struct {
		name  string
		floor int64
		steps []step
	}{
		{"forward", 0, []step{
			{until: 10, held: true, wantV: 10},
			{until: 30, held: true, wantV: 30},
		}},
		{"never backwards", 0, []step{
			{until: 30, held: true, wantV: 30},
			{until: 10, held: true, wantV: 30},
		}},
		{"from the floor", 50, []step{
			{until: 10, held: true, wantV: 50},
			{until: 60, held: true, wantV: 60},
		}},
		{"a failed write records nothing", 0, []step{
			{until: 10, held: true, wantV: 10},
			{until: 40, err: errDown, wantV: 40, wantErr: errDown},
			{until: 20, held: true, wantV: 20},
		}},
		{"a failed guard loses the claim", 0, []step{
			{until: 10, held: false, wantV: 10, wantErr: ErrLost},
			{until: 20, held: true, wantErr: ErrLost},
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			loses := 0
			s := NewClaimState("test: node ids 3..4 (token 7)", tc.floor, func() { loses++ })
			for i, st := range tc.steps {
				var got int64
				err := s.Reserve(context.Background(), st.until, "the guard failed", func(_ context.Context, v int64) (bool, error) {
					require.False(t, s.mu.TryLock(), "step %d: write ran without the claim's lock", i)
					got = v
					return st.held, st.err
				})
				require.Equal(t, st.wantV, got, "step %d: the value written", i)
				if st.wantErr == nil {
					require.NoError(t, err, "step %d", i)
					continue
				}
				require.ErrorIs(t, err, st.wantErr, "step %d", i)
			}
			lost := false
			select {
			case <-s.Lost():
				lost = true
			default:
			}
			wantLost := tc.steps[len(tc.steps)-1].wantErr == ErrLost
			require.Equal(t, wantLost, lost, "Lost closed")
			require.Equal(t, map[bool]int{true: 1, false: 0}[wantLost], loses, "onLose runs")
			if wantLost {
				require.EqualError(t, s.Err(), "nodeid: lease lost: test: node ids 3..4 (token 7): the guard failed")
			}
		})
	}
}

func TestClaimStateLoseOnce(t *testing.T) {
	loses := 0
	s := NewClaimState("test: node ids 0..0 (token 1)", 0, func() { loses++ })
	s.Lose("first")
	s.Lose("second")
	require.Equal(t, 1, loses, "onLose runs once")
	require.EqualError(t, s.Err(), "nodeid: lease lost: test: node ids 0..0 (token 1): first", "the first reason stays")
	<-s.Lost()

	// Without onLose, Lose only closes Lost.
	s = NewClaimState("test", 0, nil)
	s.Lose("gone")
	<-s.Lost()
	require.ErrorIs(t, s.Err(), ErrLost)
}

func TestClaimStateLockExcludesReserve(t *testing.T) {
	s := NewClaimState("test", 0, nil)
	s.Lock()
	require.False(t, s.mu.TryLock(), "Lock takes the lock Reserve holds")
	s.Unlock()
	require.NoError(t, s.Reserve(context.Background(), 1, "", func(context.Context, int64) (bool, error) { return true, nil }))
}
