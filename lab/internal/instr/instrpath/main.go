// Command instrpath is the lab/runner program over the instruction-count
// gate's paths: loadgen instr runs it under valgrind's cachegrind
// (scripts/instr-gate.sh builds it static), each path counted through the
// runner's count mode (-path NAME -n N), as a user's runner is.
// instrpath -list names the paths.
package main

import (
	"github.com/snowlab/snowlab/lab/internal/instr"
	"github.com/snowlab/snowlab/lab/runner"
)

func main() {
	runner.Main(instr.Subjects()...)
}
