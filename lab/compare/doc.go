// Package compare sets two lab results side by side. Runs compares every
// metric both measured, with a Mann-Whitney U test per metric, for a
// person reading a change; Ratios gives a run's figures that hold across
// hosts (a generator's cost per ID over its physical limit's, its
// scaling over the limit's, a strict generator's tick fill), which the
// reports print. Neither is a gate: CI's are loadgen ab and the
// instruction-count gate.
package compare
