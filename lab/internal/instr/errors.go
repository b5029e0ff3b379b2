package instr

import "errors"

// The package's sentinels: every error it returns wraps one (errors.Is).
var (
	// errUsage is bad input: a flag, a path name, a count.
	errUsage = errors.New("instr: bad input")
	// ErrValgrind is valgrind missing, failing, or saying something the
	// gate cannot read.
	ErrValgrind = errors.New("instr: valgrind")
	// errBaseline is a baseline that cannot be compared with: unreadable,
	// or recorded with another toolchain, valgrind or architecture.
	errBaseline = errors.New("instr: baseline")
	// errRegression is a path that got dearer than the tolerance allows.
	errRegression = errors.New("instr: regression")
)
