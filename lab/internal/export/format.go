package export

import (
	"fmt"
	"io"

	"github.com/snowlab/snowlab/lab/result"
)

// The formats loadgen export writes.
const (
	FormatGoBench              = "gobench"
	formatActionBenchmark      = "benchmark-action"
	formatActionBenchmarkCosts = "benchmark-action-costs"
)

// FormatHelp says what each format is, for -format.
const FormatHelp = FormatGoBench + ": Go's benchmark format, one line per saturate repeat, for benchstat; " +
	formatActionBenchmark + ": github-action-benchmark's customBiggerIsBetter JSON (IDs/s and the gate's ratios where higher is better); " +
	formatActionBenchmarkCosts + ": its customSmallerIsBetter JSON (the gate's costs: ns/ID over a limit, 1× being the limit)"

// Writer is the function that writes a run in format; an unknown format
// is an error naming it and the formats there are.
func Writer(format string) (func(io.Writer, *result.Run) error, error) {
	switch format {
	case FormatGoBench:
		return goBench, nil
	case formatActionBenchmark:
		return writeActionBenchmark, nil
	case formatActionBenchmarkCosts:
		return writeActionBenchmarkCosts, nil
	}
	return nil, fmt.Errorf("-format %q: want %s, %s or %s", format, FormatGoBench, formatActionBenchmark, formatActionBenchmarkCosts)
}
