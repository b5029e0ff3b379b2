package cli

import (
	"flag"
	"fmt"
	"io"
	"time"

	"github.com/snowlab/snowlab/lab/internal/experiment"
	"github.com/snowlab/snowlab/lab/internal/hog"
)

// hogCmd is `loadgen hog -threads N -for D`: the CPU hog's child process
// (package hog), which loadgen contention starts beside a run.
func hogCmd(fs *flag.FlagSet) command {
	threads := fs.Int("threads", 1, fmt.Sprintf("busy goroutines, on as many Ps (1 to %d)", hog.MaxThreads))
	d := fs.Duration("for", time.Second, fmt.Sprintf("how long to spin (at most %v)", hog.MaxFor))
	return func([]string, io.Writer, io.Writer) error {
		if err := hog.Busy(*threads, *d); err != nil {
			return experiment.Usage(err)
		}
		return nil
	}
}
