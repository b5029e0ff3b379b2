package instr

// spinSink keeps spin's loop from being optimised away: every step loads,
// adds to and stores a package-level word.
var spinSink uint64

// spin is the instruction-count gate's planted regression (loadgen instr
// -inject): steps extra loop iterations after each call of a path, a few
// instructions each (loadgen instr measures how many and sizes steps to
// the percentage asked for). It touches no shared state a generator
// reads, so it changes the instruction count and nothing else. It is
// small enough to inline, so one step adds its loop body alone (about 4
// instructions on amd64) and no call: the smallest paths (about 120
// instructions) can then be slowed by about 3%, as the gate must catch.
func spin(steps int) {
	for i := 0; i < steps; i++ {
		spinSink += uint64(i)
	}
}
