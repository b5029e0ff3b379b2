// Package gates is loadgen gates: how often each of the lab's regression
// gates fails code that did not change, and how often it catches a
// slowdown planted on purpose, quiet and beside a CPU hog.
//
// Two gates are measured:
//
//   - instr: the instruction-count gate (lab/internal/instr, make
//     instr-gate): two counts of the same code under cachegrind, a path
//     failing when it counts more than 1.5% above the other;
//   - ab: loadgen ab (lab/internal/ab), the interleaved A/B gate, as CI
//     runs it: base against head, CPU time per ID at G = 1, GOMAXPROCS
//     and twice that, fresh processes every round, Wilcoxon's signed-rank
//     test Holm-corrected over the workloads, a minimum effect.
//
// A same-code pair is, for instr, two counts one after the other, chained
// (a pair's second count is the next pair's first: 30 pairs take 31
// counts); for ab, one loadgen ab run of HEAD's runner against itself
// (two processes of one binary, built from a git worktree of HEAD). A
// pair whose gate fails is a false alarm.
//
// A detection trial plants a slowdown:
//
//   - instr: inject steps after each call of every path counted, sized to
//     3, 5, 10 or 25 percent of its count (instr.PlantJobs);
//   - ab, at G=1: HEAD's runner built with lab/runner's
//     snowlab_plant_calls, which mints q of every 1,024 IDs twice: the
//     very work measured, so that its share of instructions is its share
//     of time; q is sized from instruction counts under cachegrind
//     (ab.CountCalls) to 3, 5, 10 or 25 percent of atomicgen/monotonic's;
//   - ab, at G=GOMAXPROCS: the contention plant, snowlab_plant_shared,
//     every ID stored in a cache line all goroutines write, one
//     instruction more a call, caught where a workload at GOMAXPROCS is
//     DIFFERENT and worse (the exchange, a locked instruction, costs at
//     G=1 too: what it read there is kept apart); instr counts every
//     subject with it, to show it passes the instruction gate.
//
// What a plant measured is shown beside what was asked for. Beside the
// hog, each pair and its trials run with a child process spinning on
// every CPU (lab/internal/hog), started for the pair and stopped after it.
package gates
