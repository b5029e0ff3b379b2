// Package gates is loadgen gates: how often each of the lab's regression
// gates fails code that did not change, and how often it catches a
// slowdown planted on purpose, quiet and beside a CPU hog.
//
// Four gates are measured on the same runs:
//
//   - instr: the instruction-count gate (lab/internal/instr, make
//     instr-gate): two counts of the same code under cachegrind, a path
//     failing when it counts more than 1.5% above the other;
//   - wall: the wall-time gate as loadgen check runs it (lab/internal/check
//     and wallgate.Sequential: host-normalised ratios, Holm-corrected
//     Mann-Whitney U, a minimum effect of 25%, more repeats while unsure
//     and a confirmation run before it fails);
//   - compare: loadgen compare -fail-on-regression, every metric at alpha
//     0.05 with no correction (informational by its own help);
//   - ratio: lab/compare.Gate, the library's one-shot ratio gate at its
//     default 25% tolerance.
//
// A same-code pair is two runs of loadgen check's suite (or two
// instruction counts) one after the other; a pair whose gate fails is a
// false alarm. Pairs are chained: a pair's second run is the next pair's
// first, so that 30 pairs take 31 runs (a run of the suite takes about
// 10 s on two cores); each run is then in two pairs, so the pairs of one
// load are not independent, but each is a pair of runs of the same code,
// as a gate sees when nothing changed. A detection trial is a same-code baseline, the first
// run of its pair, against a run with a planted slowdown of 3, 5, 10 or
// 25 percent: on the wall-time side every atomicgen subject does
// inject.Work after each ID (lab/internal/inject.Plant), as many steps as
// made atomicgen/monotonic that much slower in a tight loop measured at
// the start (the CPU hides a few steps beside the next call's clock read,
// so steps are sized from what they measured, not from their count); on the instruction side every
// path counted does inject.Spin steps sized from the baseline count
// (instr.PlantJobs). What the slowdown came to is measured and shown
// beside what was asked for: the wall side from the trial's own runs,
// atomicgen/monotonic's IDs per CPU-second at one goroutine.
//
// Beside the hog, both runs of a pair and the planted run run with a
// child process spinning on every CPU (lab/internal/hog), started for the
// pair and stopped after it.
package gates
