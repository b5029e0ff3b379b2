// Package instr is the instruction-count gate (loadgen instr, make
// instr-gate): a regression check that a noisy, shared 2-core CI machine
// cannot fool, because it counts instructions instead of timing them.
//
// Every single-goroutine path of the library (Paths: each generator under
// each policy, one NextID and one NextIDs(64) a call; Layout.Decode,
// ParseID, and mask's encode and decode) runs in instrpath, a static
// lab/runner program over these paths (count mode), on a synthetic
// clock: clocksrc.FixedMillis for Monotonic, and for Strict a counter
// clock that moves 1 ms every so many reads, so that a call takes the
// same path on every run (on the real clock a call's path
// depends on when ticks turn, and its count varied 16-55% between runs).
// valgrind's cachegrind counts the instructions of two runs of N1 and N2
// calls under GOMAXPROCS=1 and GOGC=off, and (I(N2)-I(N1))/(N2-N1) is the
// path's count per call, start-up cancelled (Runner).
//
// The counts are compared with results/baseline/instr/instructions.json at
// DefaultTolerance; the baseline records the Go toolchain that built
// instrpath, valgrind's version and the architecture, and the gate refuses
// to compare across any of them (re-baseline: make instr-baseline).
// -inject PCT plants a regression of about PCT percent on every path with
// lab/runner's spin, to show the gate fails it. Where valgrind is missing the
// gate says so and passes, unless SNOWLAB_REQUIRE_VALGRIND=1.
package instr
