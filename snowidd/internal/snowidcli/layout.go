package snowidcli

import (
	"fmt"
	"io"
	"math/big"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/snowlab/snowlab/snowidd/internal/idtext"
)

// now is the clock layout measures the years left from; tests replace it.
var now = time.Now

func runLayout(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("layout", stderr)
	lf := AddLayoutFlags(fs)
	pos, code, ok := parse(fs, args)
	if !ok {
		return code
	}
	if len(pos) > 0 {
		return usageError(fs, "unexpected argument %q", pos[0])
	}
	l, err := lf.Layout()
	if err != nil {
		return fail(stderr, "layout %v", err)
	}

	tf := idtext.TimeFormat(l)
	perTick := big.NewInt(int64(l.MaxSeq()) + 1)
	// IDs per second = perTick * 1s / Unit, exact.
	perSec := new(big.Rat).SetFrac(
		new(big.Int).Mul(perTick, big.NewInt(int64(time.Second))),
		big.NewInt(int64(l.Unit)))
	horizon := l.Horizon()
	t := now()
	yearsLeft := yearsBetween(t, horizon)
	window := yearsBetween(l.Epoch, horizon)

	w := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintf(w, "layout\t%s (time/node/seq bits)\n", formatBits(l))
	fmt.Fprintf(w, "unit\t%v\n", l.Unit)
	fmt.Fprintf(w, "epoch\t%s\n", l.Epoch.UTC().Format(tf))
	fmt.Fprintln(w)
	fmt.Fprintf(w, "field\tbits\tshift\tmax\n")
	fmt.Fprintf(w, "time\t%d\t%d\t%d ticks\n", l.TimeBits, l.NodeBits+l.SeqBits, l.MaxTick())
	fmt.Fprintf(w, "node\t%d\t%d\t%d\n", l.NodeBits, l.SeqBits, l.MaxNode())
	fmt.Fprintf(w, "seq\t%d\t%d\t%d\n", l.SeqBits, 0, l.MaxSeq())
	fmt.Fprintln(w)
	fmt.Fprintf(w, "per node\t%s/tick = %s/s\n", perTick, formatRat(perSec))
	fmt.Fprintf(w, "horizon\t%s (%.1f years after the epoch)\n", horizon.UTC().Format(tf), window)
	switch day := t.UTC().Format(time.DateOnly); {
	case t.Before(l.Epoch):
		// The horizon is further off than the window is long: the
		// years from now would count the wait for the epoch.
		fmt.Fprintf(w, "years left\tnone yet: the epoch is %s after %s, and nothing can be minted before it\n", span(l.Epoch.Sub(t)), day)
	case yearsLeft >= 0:
		fmt.Fprintf(w, "years left\t%.1f (as of %s)\n", yearsLeft, day)
	default:
		fmt.Fprintf(w, "years left\tnone: the horizon passed %.1f years before %s\n", -yearsLeft, day)
	}
	if err := w.Flush(); err != nil {
		return writeFailed(stderr, err)
	}
	return exitOK
}

// yearsBetween is b - a in years of 365.2425 days, to the millisecond.
func yearsBetween(a, b time.Time) float64 {
	const msPerYear = 365.2425 * 24 * 3600 * 1000
	return float64(b.UnixMilli()-a.UnixMilli()) / msPerYear
}

// formatRat writes r with thousands separators, rounded to a whole number
// and marked "~" when it is not one.
func formatRat(r *big.Rat) string {
	if r.IsInt() {
		return commas(r.Num().String())
	}
	return "~" + commas(r.FloatString(0))
}

func commas(digits string) string {
	var b strings.Builder
	for i, c := range digits {
		if i > 0 && (len(digits)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return b.String()
}
