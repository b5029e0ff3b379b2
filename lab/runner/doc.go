// Package runner is the small program that loadgen ab measures and
// loadgen instr counts: a main of a few lines over your generators.
//
//	func main() {
//		runner.Main(runner.Subject{Name: "mine/counter", New: newCounter, Increasing: true})
//	}
//
// Built from two revisions of your code (loadgen ab builds it from each,
// in a git worktree, with go build), it answers loadgen over its stdin and
// stdout (-serve): each request mints IDs from one subject on G goroutines
// for a slice of time, after a short warm-up, and answers with the IDs
// minted, the wall time, and the time they cost:
//
//   - at G=1, one goroutine locked to its OS thread (runtime.LockOSThread)
//     makes every call, and the thread's CPU time is read around the slice
//     (CLOCK_THREAD_CPUTIME_ID), so that the runtime's other threads and
//     the time the host gave to other processes are not in it;
//   - at 1 < G <= GOMAXPROCS, contention: the goroutines, each locked to
//     its thread and the thread bound to a CPU of its own, mint in
//     batches started together at a barrier, and only the batches all of
//     them ran side by side are timed (their intervals overlap), so that
//     the figure is what contending costs, as on an idle host, however
//     seldom a busy host runs the threads at once (lockstep);
//   - above GOMAXPROCS, the process's CPU time (CLOCK_PROCESS_CPUTIME_ID):
//     goroutines share the Ps, so no thread's time is one goroutine's, and
//     the process does nothing else.
//
// Up to GOMAXPROCS the calls are made in batches of 512 between two reads
// of the monotonic clock, and the answer also gives the median batch's
// time (Answer.BatchNS), which loadgen ab decides on: a batch is some 15
// microseconds and the scheduler's slices milliseconds, so the median
// batch is one no descheduling, and no cold cache after one, reached. On
// this repository's 2-core VM at a load average of 5 to 8, same-code
// pairs of it spread by 1.8% at G=1 where the thread's CPU time spread by
// 5.3%. Off Linux no CPU time is read, and loadgen ab decides on the
// batches, or on wall time above GOMAXPROCS.
//
// loadgen keeps each process for one round of slices and starts fresh
// ones for the next, so that what one process's memory layout costs is
// sampled, not carried into every slice. The garbage collector is off
// while a runner serves: a generator allocates nothing, and a collector's
// workers would take Ps from the minting goroutines.
//
// The same binary is a target of loadgen instr (-list, -path NAME -n N):
// it makes N calls of one subject on one goroutine, through the very loop
// that the timed slices run, so that valgrind's cachegrind counts what the
// timed slices execute; (I(N2)-I(N1))/(N2-N1) over two counts is the
// instructions per call. -inject-steps K, count mode only, adds K steps of
// a loop after each call (loadgen instr -inject). The instruction gate's
// own target, instrpath, is this runner over the library's paths.
//
// # Planted slowdowns
//
// loadgen ab measures its own sensitivity on the machine it runs on with
// two slowdowns planted on purpose, each behind a build tag, so that a
// binary built without either has no trace of them in the loop it times:
//
//   - snowlab_plant_calls: -plant-calls Q mints Q of every 1,024 IDs
//     twice, the single-goroutine plant: the work added is the very work
//     measured, so that it adds the same share of instructions as of time
//     (loop steps after each call did not: a few cost next to nothing,
//     run beside the next call); loadgen sizes Q from instruction counts;
//   - snowlab_plant_shared: every call's ID is stored, atomically, in a
//     word of one cache line that every goroutine writes (goroutine k the
//     word k mod 8): on amd64 one exchange with memory, no more
//     instructions than a plain store (the instruction gate passes it),
//     but it waits for the line, which above one goroutine moves between
//     cores on every ID: a shared counter on a hot path, or padding
//     removed from a state word, costs alike. Its cost is whatever it
//     measures (it costs a little at G=1 too: an exchange with memory is
//     a few nanoseconds even when no other core wants the line).
//
// # Checks
//
// Every call's error is a failure, and where Subject.Increasing is set an
// ID not above the one the same goroutine minted before it is counted as
// an order violation; loadgen's check request also mints a batch on G
// goroutines and looks for duplicates among them.
package runner
