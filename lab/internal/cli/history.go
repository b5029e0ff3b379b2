package cli

import (
	"errors"
	"flag"
	"fmt"
	"io"

	"github.com/snowlab/snowlab/lab/internal/experiment"
	"github.com/snowlab/snowlab/lab/internal/report"
	"github.com/snowlab/snowlab/lab/internal/resultdir"
)

// historyCmd writes the history page of the result files named or found
// in the folders named: by default the published runs (results/) and the
// local ones (results/local/), onto results/local/index.html, which git
// ignores; loadgen publish refreshes the published page.
func historyCmd(fs *flag.FlagSet) command {
	out := fs.String("o", "", "the page to write (default: "+report.IndexName+" in the one folder named, else in "+resultdir.Local+")")
	base := fs.String("baseline", defaultBaseline(), "the baseline run, a .json file or a folder (its newest .json): "+
		"the page leads with the ratios it gates (none at the default path: every ratio that holds across hosts)")
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "usage: loadgen history [-o FILE] [-baseline FILE.json|DIR] [DIR|FILE.json ...]\n\n"+
			"Writes one self-contained HTML page with every suite result in the folders (by default "+resultdir.Published+"/, the\n"+
			"published runs, and "+resultdir.Local+"/, the lab's own) and files named: trend charts of the ratios the gate\n"+
			"checks against the baseline, the runs by date and commit with the load each ran under, then the ratios\n"+
			"only reported and IDs/s per subject, a line per host.\n\n")
		fs.PrintDefaults()
	}
	return func(args []string, stdout, _ io.Writer) error {
		page, err := newHistoryPage(*out, *base, args)
		if err != nil {
			return experiment.Usage(err)
		}
		h, err := page.write()
		// What was named is at fault (a folder that is not there, a
		// file that is no suite run) unless the page could not be
		// written.
		if errors.As(err, new(*badSource)) {
			return experiment.Usage(err)
		} else if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "wrote %s (%d runs)\n", page.Out, len(h.Runs))
		for _, line := range changeLines(h) {
			fmt.Fprintln(stdout, line)
		}
		return nil
	}
}
