package cli

import (
	"flag"
	"fmt"
	"io"
	"time"

	"github.com/snowlab/snowlab/lab/internal/hog"
)

// runHog is `loadgen hog -threads N -for D`: the CPU hog's child process
// (package hog), which loadgen contention starts beside a run.
func runHog(args []string, stderr io.Writer) int {
	fs := flag.NewFlagSet("loadgen hog", flag.ContinueOnError)
	fs.SetOutput(stderr)
	threads := fs.Int("threads", 1, fmt.Sprintf("busy goroutines, on as many Ps (1 to %d)", hog.MaxThreads))
	d := fs.Duration("for", time.Second, fmt.Sprintf("how long to spin (at most %v)", hog.MaxFor))
	if code := parseFlags(fs, args); code >= 0 {
		return code
	}
	if err := hog.Busy(*threads, *d); err != nil {
		fmt.Fprintf(stderr, "loadgen hog: %v\n", err)
		return exitUsage
	}
	return exitOK
}
