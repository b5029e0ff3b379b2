package cli

import (
	"flag"
	"fmt"
	"io"

	"github.com/snowlab/snowlab/lab/internal/report"
	"github.com/snowlab/snowlab/lab/internal/resultdir"
)

// runPublish copies runs into the published folder (results/) and
// refreshes its history page: committing a run is this deliberate step,
// never a side effect of running the lab, whose runs land in the ignored
// results/local/.
func runPublish(args []string, stdout, stderr io.Writer) int {
	fset := flag.NewFlagSet("loadgen publish", flag.ContinueOnError)
	fset.SetOutput(stderr)
	to := fset.String("to", resultdir.Published, "the folder to publish into; its "+report.IndexName+" is refreshed")
	fset.Usage = func() {
		fmt.Fprintf(stderr, "usage: loadgen publish [-to DIR] [RUN.json ...]\n\n"+
			"Copies each run's files (RUN.json, its .md and .html and its charts' folder) into the published\n"+
			"folder, to be committed, and refreshes its history page. With no RUN, the newest run in %s/.\n"+
			"A run of an older lab whose latency histograms are arrays of bucket counts is written with them\n"+
			"compressed: the same buckets, a fraction of the size.\n\n", resultdir.Local)
		fset.PrintDefaults()
	}
	if code := parseFlags(fset, args); code >= 0 {
		return code
	}
	plan, err := preparePublish(fset.Args())
	if err != nil {
		fmt.Fprintf(stderr, "loadgen publish: %v\n", err)
		return exitUsage
	}
	if err := plan.into(*to, stdout); err != nil {
		fmt.Fprintf(stderr, "loadgen publish: %v\n", err)
		return exitFailure
	}
	return exitOK
}
