package instr

import "errors"

// The package's sentinels: every error it returns wraps one (errors.Is).
var (
	// ErrUsage is bad input: a flag, a path name, a count.
	ErrUsage = errors.New("instr: bad input")
	// ErrValgrind is valgrind missing, failing, or saying something the
	// gate cannot read.
	ErrValgrind = errors.New("instr: valgrind")
	// ErrBaseline is a baseline that cannot be compared with: unreadable,
	// or recorded with another toolchain, valgrind or architecture.
	ErrBaseline = errors.New("instr: baseline")
	// ErrRegression is a path that got dearer than the tolerance allows.
	ErrRegression = errors.New("instr: regression")
)
