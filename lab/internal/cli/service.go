package cli

import (
	"flag"
	"fmt"
	"io"

	"github.com/snowlab/snowlab/lab/internal/cpus"
	"github.com/snowlab/snowlab/lab/internal/experiment/service"
	"github.com/snowlab/snowlab/lab/internal/progress"
	"github.com/snowlab/snowlab/lab/internal/replica"
	"github.com/snowlab/snowlab/lab/internal/report"
	"github.com/snowlab/snowlab/lab/internal/resultdir"
	"github.com/snowlab/snowlab/lab/internal/vcs"
)

// runService is `loadgen service`: a local snowidd measured by the lab's
// own loops and checks, beside the in-process generator.
func runService(args, command []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("loadgen service", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var f service.Flags
	f.Register(fs)
	out := fs.String("out", resultdir.DefaultOut(), "folder for the result files (JSON, Markdown, SVG charts, HTML); git ignores the default: loadgen publish commits a run")
	noWrite := fs.Bool("no-write", false, "print the table only, write no files")
	quiet := fs.Bool("q", false, "no progress bar")
	if code := parseFlags(fs, args); code >= 0 {
		return code
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "loadgen service: unexpected argument %q\n", fs.Arg(0))
		return exitUsage
	}
	o, err := f.Options()
	if err != nil {
		fmt.Fprintf(stderr, "loadgen service: %v\n", err)
		return exitUsage
	}
	restore, err := cpus.Bind(o.CPUs, 0)
	if err != nil {
		fmt.Fprintf(stderr, "loadgen service: %v\n", err)
		return exitUsage
	}
	defer restore()
	rep, err := replica.Start(o.Bin, replica.Config{Procs: o.ServerProcs, Shards: o.Shards, CPUs: o.ServerCPUs})
	if err != nil {
		fmt.Fprintf(stderr, "loadgen service: %v\n", err)
		return exitFailure
	}
	sha, dirty := vcs.Commit()
	bar := progress.New(stderr, *quiet, 0)
	res, err := service.Measure(rep, o, service.Config{Command: command, Commit: sha, Dirty: dirty, Progress: bar.Step})
	bar.Finish()
	if stopErr := rep.Stop(); err == nil && stopErr != nil {
		err = stopErr
	}
	if err == nil {
		err = report.WriteTable(stdout, res)
	}
	if err != nil {
		fmt.Fprintf(stderr, "loadgen service: %v\n", err)
		return exitFailure
	}
	service.WriteSummary(stdout, service.Summarize(res, o))
	return finishSuiteRun("loadgen service", *out, *noWrite, res, stdout, stderr)
}
