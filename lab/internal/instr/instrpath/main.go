// Command instrpath runs one of the instruction-count gate's paths N times
// and exits: the program loadgen instr runs under valgrind's cachegrind
// (scripts/instr-gate.sh builds it static). instrpath -list names the
// paths. It is flags and dispatch over lab/internal/instr.
package main

import (
	"os"

	"github.com/snowlab/snowlab/lab/internal/instr"
)

func main() {
	os.Exit(instr.TargetMain(os.Args[1:], os.Stdout, os.Stderr))
}
