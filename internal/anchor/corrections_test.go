package anchor

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestClockCorrections drives a Default clock over scripted wall-clock
// steps and checks what Corrections says it saw: each step once, however
// many resyncs a slew takes, and the slew left shrinking at MaxSlewPPM.
func TestClockCorrections(t *testing.T) {
	// Reads 1 ms apart, off the resync interval's rhythm: 25 s of slew is
	// 25,000 reads.
	const gap = msNs - 3*usNs
	type want struct {
		forwardSteps, backwardSteps uint64
		forward, backward           int64 // ns, within the sample spread
		slewLeft                    int64 // ns, within one resync's slew
	}
	tests := []struct {
		name  string
		steps []int64 // wall-clock steps, made 1 s apart from 1 s on
		after int64   // ns of reads after the last step
		want  want
	}{
		{"steady", nil, 3 * sNs, want{}},
		{"forward step", []int64{500 * msNs}, sNs, want{forwardSteps: 1, forward: 500 * msNs}},
		{"two forward steps", []int64{2 * msNs, 3 * sNs}, sNs, want{forwardSteps: 2, forward: 3*sNs + 2*msNs}},
		// 10 ms at 500 ppm is 20 s of slew: 4 s in, 8 ms are left, and the
		// 40 resyncs of the slew are not counted as steps.
		{"backward step, slewing", []int64{-10 * msNs}, 4 * sNs, want{backwardSteps: 1, backward: 10 * msNs, slewLeft: 8 * msNs}},
		{"backward step, slewed off", []int64{-10 * msNs}, 25 * sNs, want{backwardSteps: 1, backward: 10 * msNs}},
		// The second step comes 1 s (0.5 ms slewed) after the first.
		{"second backward step during the slew", []int64{-10 * msNs, -5 * msNs}, 2 * sNs, want{backwardSteps: 2, backward: 15 * msNs, slewLeft: 15*msNs - 3*sNs*MaxSlewPPM/1_000_000}},
		// A wall clock moving forward while still behind the clock shrinks
		// the debt: neither a step followed nor a new step back.
		{"forward step smaller than the debt", []int64{-10 * msNs, 3 * msNs}, 2 * sNs, want{backwardSteps: 1, backward: 10 * msNs, slewLeft: 7*msNs - 3*sNs*MaxSlewPPM/1_000_000}},
		{"forward step past the debt", []int64{-10 * msNs, 20 * msNs}, sNs, want{forwardSteps: 1, backwardSteps: 1, backward: 10 * msNs, forward: 20*msNs - (10*msNs - sNs*MaxSlewPPM/1_000_000)}},
	}
	for _, tt := range tests {
		for _, tick := range ticks {
			t.Run(fmt.Sprintf("%s/tick=%d", tt.name, tick), func(t *testing.T) {
				s := newSim(t, tick)
				s.run(sNs, gap, nil)
				for i, step := range tt.steps {
					if i > 0 {
						s.run(sNs, gap, nil)
					}
					s.f.wallOff.Add(step)
				}
				s.run(tt.after, gap, nil)
				got := s.c.Corrections()

				// The resync that sees a step comes up to one interval
				// late, so up to that much less has been slewed.
				slewSlack := float64(resync*MaxSlewPPM/1_000_000 + gap*MaxSlewPPM/1_000_000 + 4*tick + 2)
				spread := float64(4*tick + 2)
				assert.Equal(t, tt.want.forwardSteps, got.ForwardSteps, "forward steps")
				assert.Equal(t, tt.want.backwardSteps, got.BackwardSteps, "backward steps")
				assert.InDelta(t, tt.want.forward, int64(got.Forward), spread+slewSlack*float64(max(len(tt.steps)-1, 0)), "forward")
				assert.InDelta(t, tt.want.backward, int64(got.Backward), spread*float64(max(len(tt.steps), 1)), "backward")
				assert.InDelta(t, tt.want.slewLeft, int64(got.SlewLeft), slewSlack*float64(max(len(tt.steps), 1)), "slew left")
				assert.GreaterOrEqual(t, int64(got.SlewLeft), int64(0))
				// SlewLeft is how far the clock is ahead of the wall.
				assert.InDelta(t, s.ahead(), int64(got.SlewLeft), spread+float64(gap*MaxSlewPPM/1_000_000+1))

				// Each run of reads ends up to one read gap past its span.
				span := sNs*int64(max(len(tt.steps), 1)) + tt.after
				runs := int64(max(len(tt.steps), 1) + 1)
				assert.InDelta(t, span, int64(got.Running), float64(runs*gap+10*tick+s.f.spread()), "running")
				// One resync per interval, each starting at the first read
				// past the last one's: up to a read gap late.
				assert.GreaterOrEqual(t, int64(got.Resyncs), span/(resync+gap)-1, "resyncs")
				assert.LessOrEqual(t, int64(got.Resyncs), span/resync+1, "resyncs")
			})
		}
	}
}
