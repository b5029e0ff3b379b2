package cli

import (
	"flag"
	"fmt"
	"io"
)

func runCompare(args []string, stdout, stderr io.Writer) int {
	fset := flag.NewFlagSet("loadgen compare", flag.ContinueOnError)
	fset.SetOutput(stderr)
	asJSON := fset.Bool("json", false, "write the comparison as JSON instead of a table")
	if code := parseFlags(fset, args); code >= 0 {
		return code
	}
	if fset.NArg() != 2 {
		fmt.Fprintln(stderr, "usage: loadgen compare [-json] OLD.json NEW.json")
		return exitUsage
	}
	c, err := compareFiles(fset.Arg(0), fset.Arg(1))
	if err != nil {
		fmt.Fprintf(stderr, "loadgen compare: %v\n", err)
		return exitUsage
	}
	write := c.Write
	if *asJSON {
		write = c.WriteJSON
	}
	if err := write(stdout); err != nil {
		fmt.Fprintf(stderr, "loadgen compare: %v\n", err)
		return exitFailure
	}
	return exitOK
}
