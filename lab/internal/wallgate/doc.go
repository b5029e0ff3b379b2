// Package wallgate is loadgen gate: the wall-time regression gate on two
// result files (a baseline and a new run, the suite's or a user's own),
// built to never cry wolf on a noisy host.
//
// It judges host-normalised ratios only, never absolute IDs/s: the gated
// ratios of lab/compare (each non-strict generator's cost over its limit
// at G=1, shardedgen's scaling over limit/per-p's, each strict
// generator's tick fill) and, for contention, each non-mutex generator's
// cost over its limit at G=2 (both sides contending on the same kind of
// word). For each ratio it decides, as Chromium's Pinpoint does:
//
//   - DIFFERENT: the Mann-Whitney U test over the per-repeat ratios is
//     significant after Holm's correction for the number of ratios tested
//     (Holm 1979: the i-th smallest of m p-values is held to
//     alpha/(m-i+1)), and the Hodges-Lehmann estimate of the change is at
//     least the minimum effect;
//   - SAME: the distribution-free confidence interval of that estimate
//     (Bauer 1972: order statistics of the pairwise log-ratios at the U
//     test's critical value) lies inside the minimum effect both ways;
//   - UNKNOWN: neither; more repeats would tell.
//
// The gate fails on a ratio DIFFERENT and worse, on any correctness
// failure of the new run, and when the two files share no gated ratio.
// UNKNOWN passes and is said, so the gate never fails on noise.
//
// Sequential is the same decision for a gate that can measure again
// (loadgen check): while a ratio is UNKNOWN and leans worse (by half the
// minimum effect or more) it pools more
// runs into the first, up to a cap, and a failure stands only when a
// fresh confirmation run fails on one of the same ratios.
package wallgate
