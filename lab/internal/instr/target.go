package instr

import (
	"errors"
	"flag"
	"fmt"
	"io"
)

// TargetMain is instrpath's command line: -path NAME -n N [-inject-steps
// K], or -list. It returns the exit status: 0, 1 when the path failed, 2
// for bad input.
func TargetMain(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("instrpath", flag.ContinueOnError)
	fs.SetOutput(stderr)
	name := fs.String("path", "", "the path to run (-list names them)")
	n := fs.Int("n", 0, "how many calls")
	steps := fs.Int("inject-steps", 0, "a planted regression: this many extra loop steps after each call")
	list := fs.Bool("list", false, "name the paths and exit")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if *list {
		for _, p := range Paths() {
			fmt.Fprintln(stdout, p.Name)
		}
		return 0
	}
	if *n < 0 || *steps < 0 {
		fmt.Fprintf(stderr, "instrpath: -n %d -inject-steps %d: want counts of 0 or more\n", *n, *steps)
		return 2
	}
	p, err := Lookup(*name)
	if err != nil {
		fmt.Fprintf(stderr, "instrpath: %v\n", err)
		return 2
	}
	if err := Run(p, *n, *steps); err != nil {
		fmt.Fprintf(stderr, "instrpath: %v\n", err)
		return 1
	}
	return 0
}
