// Package export writes a lab result in the formats the tools CI users
// already run read: Go's benchmark format, one line per saturate repeat,
// so that benchstat (golang.org/x/perf) compares two lab runs like two go
// test -bench runs; and github-action-benchmark's custom JSON
// ("customBiggerIsBetter": name, unit, value, extra), with the gate's
// host-normalised ratios beside the raw IDs/s, and the costs over the
// physical limits apart ("customSmallerIsBetter"), so that a trend across
// commits is drawn from figures that hold across hosts. It only formats:
// the result is read by lab/result and the ratios computed by lab/compare.
package export
