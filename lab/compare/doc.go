// Package compare sets two lab results side by side. Runs compares every
// metric both measured, with a Mann-Whitney U test per metric, for a
// person reading a change. Gate is what CI runs: it compares only ratios
// that hold across hosts (a generator over another, over its own
// ceiling, its cost per ID over its physical limit's), fails a ratio that
// got worse by more than a tolerance with significance, and fails any
// correctness check.
package compare
