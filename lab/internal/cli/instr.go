package cli

import (
	"io"

	"github.com/snowlab/snowlab/lab/internal/instr"
)

// runInstr is `loadgen instr`, the instruction-count gate
// (lab/internal/instr).
func runInstr(args []string, stdout, stderr io.Writer) int {
	return instr.Main(args, stdout, stderr)
}
