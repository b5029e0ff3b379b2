package instr

import "testing"

// Spin does its steps: the sink grows by 0 + 1 + ... + (steps-1).
func TestSpin(t *testing.T) {
	before := spinSink
	spin(5)
	if got := spinSink - before; got != 10 {
		t.Errorf("spin(5) added %d to the sink, want 10", got)
	}
}
