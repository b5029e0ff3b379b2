package snowidcli

import (
	"fmt"
	"io"
	"math"
	"math/big"
	"regexp"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/snowlab/snowlab"
	"github.com/snowlab/snowlab/snowidd/internal/idtext"
)

// maxListed is the most fitting layouts plan lists: the narrowest node
// fields, which leave the most to the sequence and the time.
const maxListed = 12

// Bounds on plan's inputs: beyond them the question is not a fleet's, and
// within them every count fits an int64 (node ids at most 10^11 < 2^37).
const (
	maxProcesses = 1_000_000_000
	maxSurge     = 100
	maxYears     = 1000
)

// fleet is what plan is asked: how many processes mint IDs (in-process,
// each holds a node id), how many more a rollout holds at once (surge),
// the most IDs asked for within one tick (burst), the sustained rate, and
// how long the layout must still last.
type fleet struct {
	processes int64
	surge     *big.Rat
	burst     int64
	rate      *big.Rat // IDs per second; nil when not asked
	years     float64
	unit      time.Duration
	epoch     time.Time
	now       time.Time
}

// nodeIDs is how many node ids the fleet holds at its peak:
// ceil(processes × surge), as a blue-green rollout doubles them.
func (f fleet) nodeIDs() int64 {
	return ceilRat(new(big.Rat).Mul(new(big.Rat).SetInt64(f.processes), f.surge)).Int64()
}

// safeProcesses is the most processes nodeBits hold at the fleet's surge:
// 2^nodeBits / surge rounded down, so that every process of a surge holds
// a node id of its own (1,024 / 2 = 512).
func (f fleet) safeProcesses(nodeBits uint) int64 {
	q := new(big.Rat).Quo(new(big.Rat).SetInt(new(big.Int).Lsh(big.NewInt(1), nodeBits)), f.surge)
	return new(big.Int).Quo(q.Num(), q.Denom()).Int64()
}

// burstNodes is how many nodes the burst needs at 2^seqBits IDs per node
// per tick: ceil(burst / 2^seqBits) (100,000 / 4,096 -> 25).
func (f fleet) burstNodes(seqBits uint) int64 {
	n := f.burst >> seqBits
	if f.burst&(1<<seqBits-1) != 0 {
		n++
	}
	return n
}

// perSecond is one node's ceiling in IDs per second at 2^seqBits per tick.
func (f fleet) perSecond(seqBits uint) *big.Rat {
	perTick := new(big.Int).Lsh(big.NewInt(1), seqBits)
	return new(big.Rat).SetFrac(perTick.Mul(perTick, big.NewInt(int64(time.Second))), big.NewInt(int64(f.unit)))
}

// fleetRate is the whole fleet's ceiling in IDs per second.
func (f fleet) fleetRate(seqBits uint) *big.Rat {
	return new(big.Rat).Mul(f.perSecond(seqBits), new(big.Rat).SetInt64(f.processes))
}

// layout is the split with the fleet's unit and epoch, and whether it is
// valid (its window fits a time.Duration, its fields an int).
func (f fleet) layout(timeBits, nodeBits, seqBits uint) (snowlab.Layout, bool) {
	l := snowlab.Layout{TimeBits: timeBits, NodeBits: nodeBits, SeqBits: seqBits, Unit: f.unit, Epoch: f.epoch}
	return l, l.Validate() == nil
}

// horizon is the horizon of timeBits of the fleet's ticks, when some split
// with that time field is valid: the other two fields balanced, which a
// 32-bit int accepts from 3 time bits up.
func (f fleet) horizon(timeBits uint) (time.Time, bool) {
	n := (63 - timeBits) / 2
	l, ok := f.layout(timeBits, n, 63-timeBits-n)
	return l.Horizon(), ok
}

// yearsLeft is how long a layout ending at horizon can still mint: from
// now, or from the epoch when it is ahead (nothing is minted before it).
func (f fleet) yearsLeft(horizon time.Time) float64 {
	return yearsBetween(mintFrom(f.now, f.epoch), horizon)
}

// need is the narrowest width of each field that meets the fleet; 0 where
// no width of 1 to 61 bits does. Each requirement rests on one field alone
// and a wider field only helps, so a split meets the fleet exactly when
// every field is at least its need (and the layout is valid).
type need struct {
	node, seqBurst, seqRate, seq, time uint
	maxTime                            uint // the widest valid time field
}

func (f fleet) needs() need {
	var n need
	for w := uint(1); w <= 61; w++ {
		if n.node == 0 && int64(1)<<w >= f.nodeIDs() {
			n.node = w
		}
		if n.seqBurst == 0 && f.burstNodes(w) <= f.processes {
			n.seqBurst = w
		}
		if n.seqRate == 0 && (f.rate == nil || f.fleetRate(w).Cmp(f.rate) >= 0) {
			n.seqRate = w
		}
		if h, ok := f.horizon(w); ok {
			n.maxTime = w
			if n.time == 0 && f.yearsLeft(h) >= f.years {
				n.time = w
			}
		}
	}
	if n.seqBurst > 0 && n.seqRate > 0 {
		n.seq = max(n.seqBurst, n.seqRate)
	}
	return n
}

// The four ways a layout misses the fleet, each on one field: each says
// why when l misses that way, and "" when it does not.

func (f fleet) nodeShort(l snowlab.Layout) string {
	if ids := int64(1) << l.NodeBits; ids < f.nodeIDs() {
		return fmt.Sprintf("%s node ids, fewer than the %s needed", num(ids), num(f.nodeIDs()))
	}
	return ""
}

func (f fleet) burstShort(l snowlab.Layout) string {
	if need := f.burstNodes(l.SeqBits); need > f.processes {
		return fmt.Sprintf("%s IDs per node per tick: the burst needs %s, more than the %s",
			num(int64(1)<<l.SeqBits), nodes(need), processes(f.processes))
	}
	return ""
}

func (f fleet) rateShort(l snowlab.Layout) string {
	if f.rate != nil && f.fleetRate(l.SeqBits).Cmp(f.rate) < 0 {
		return fmt.Sprintf("%s mint at most %s IDs/s, under the rate %s",
			processes(f.processes), formatRat(f.fleetRate(l.SeqBits)), formatRat(f.rate))
	}
	return ""
}

func (f fleet) timeShort(l snowlab.Layout) string {
	if left := f.yearsLeft(l.Horizon()); left < f.years {
		return fmt.Sprintf("the horizon %s leaves %.1f years, fewer than %s",
			l.Horizon().UTC().Format(time.DateOnly), left, fmtFloat(f.years))
	}
	return ""
}

// reasons says why l does not meet the fleet: one phrase for each
// requirement it misses; none when it fits.
func (f fleet) reasons(l snowlab.Layout) []string {
	var r []string
	for _, s := range []string{f.nodeShort(l), f.burstShort(l), f.rateShort(l), f.timeShort(l)} {
		if s != "" {
			r = append(r, s)
		}
	}
	return r
}

// preferredTime is the time width a fitting split keeps where the other
// fields leave room: the default layout's, within what the fleet allows.
func (n need) preferredTime() uint {
	return min(max(snowlab.DefaultLayout.TimeBits, n.time), n.maxTime)
}

// fits returns one fitting layout per node width, from the narrowest that
// holds the fleet's node ids to the widest the other needs leave: each
// keeps the preferred time width where it can and gives the rest to the
// sequence.
func (f fleet) fits(n need) []snowlab.Layout {
	if n.node == 0 || n.seq == 0 || n.time == 0 || n.node+n.seq+n.time > 63 {
		return nil
	}
	var out []snowlab.Layout
	for nb := n.node; nb <= 63-n.time-n.seq; nb++ {
		tb := min(n.preferredTime(), 63-nb-n.seq)
		if l, ok := f.layout(tb, nb, 63-tb-nb); ok {
			out = append(out, l)
		}
	}
	return out
}

func runPlan(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("plan", stderr)
	processes := fs.Int64("processes", 0, "`N` processes mint IDs in steady state, each holding a node id")
	surge := fs.String("surge", "", "`X` node ids held at once per process during a rollout: 1 for none, 2 for blue-green, 1.25 for a 25% surge")
	burst := fs.Int64("burst", 0, "`B`, the most IDs the fleet is asked for within one tick")
	rate := fs.String("rate", "", "`R`, the sustained IDs per second the fleet must mint (not checked when empty)")
	years := fs.Float64("years", 10, "`Y`, the fewest years the layout must still last")
	d := snowlab.DefaultLayout
	unit := fs.String("unit", d.Unit.String(), "`duration` of one tick of the time field")
	epoch := fs.String("epoch", d.Epoch.Format(time.RFC3339Nano), "`instant` the time field counts from: "+epochForms)
	usage := fs.Usage
	fs.Usage = func() {
		usage()
		fmt.Fprintf(fs.Output(), "Exit status: 0 when a layout fits, 1 when none does (the plan says why), 2 for a bad argument.\n")
	}
	pos, code, ok := parse(fs, args)
	if !ok {
		return code
	}
	if len(pos) > 0 {
		return usageError(fs, "unexpected argument %q", pos[0])
	}
	f := fleet{processes: *processes, burst: *burst, years: *years, now: now()}
	switch {
	case f.processes < 1 || f.processes > maxProcesses:
		return usageError(fs, "-processes %d: want 1 to %d processes", f.processes, maxProcesses)
	case *surge == "":
		return usageError(fs, "-surge not given: want the node ids a process holds at once during a rollout, 1 to %d (1 for none, 2 for blue-green)", maxSurge)
	case f.burst < 1:
		return usageError(fs, "-burst %d: want the most IDs asked for within one tick, at least 1", f.burst)
	case math.IsNaN(f.years) || f.years < 0 || f.years > maxYears:
		return usageError(fs, "-years %v: want 0 to %d", f.years, maxYears)
	}
	var okRat bool
	if f.surge, okRat = new(big.Rat).SetString(*surge); !okRat || f.surge.Cmp(big.NewRat(1, 1)) < 0 || f.surge.Cmp(big.NewRat(maxSurge, 1)) > 0 {
		return usageError(fs, "-surge %q: want a number from 1 to %d (1 for no surge, 2 for blue-green)", *surge, maxSurge)
	}
	if *rate != "" {
		if f.rate, okRat = new(big.Rat).SetString(*rate); !okRat || f.rate.Sign() <= 0 {
			return usageError(fs, "-rate %q: want a positive number of IDs per second", *rate)
		}
	}
	var err error
	if f.unit, err = time.ParseDuration(*unit); err != nil || f.unit <= 0 {
		return usageError(fs, "-unit %q: want a positive duration such as 1ms or 100us", *unit)
	}
	if f.epoch, err = parseEpoch(*epoch); err != nil {
		return usageError(fs, "-epoch %q: %v", *epoch, err)
	}

	var b strings.Builder
	f.writePlan(&b, *surge)
	// The tables pad every cell, the last of a line too.
	text := regexp.MustCompile(`(?m) +$`).ReplaceAllString(b.String(), "")
	if _, err := io.WriteString(stdout, text); err != nil {
		return writeFailed(stderr, err)
	}
	// Nothing fitting is the plan's answer to a valid question, not a bad
	// argument (exit 2): exit 1, as grep does finding nothing, so that a
	// script's "if snowid plan ..." does not read "fits: none" as a yes.
	if n := f.needs(); len(f.fits(n)) == 0 {
		fmt.Fprintf(stderr, "snowid plan: no layout fits this fleet: see \"does not fit\" above\n")
		return exitFail
	}
	return exitOK
}

// writePlan writes the plan: what the fleet needs of each field, the
// layouts that fit, why the others do not, and the default's verdict.
func (f fleet) writePlan(w io.Writer, surgeText string) {
	n := f.needs()
	tf := idtext.TimeFormat(snowlab.Layout{Unit: f.unit, Epoch: f.epoch})
	fmt.Fprintf(w, "plan as of %s, ticks of %v since %s\n\n", f.now.UTC().Format(time.DateOnly), f.unit, f.epoch.UTC().Format(tf))
	if f.now.Before(f.epoch) {
		fmt.Fprintf(w, "the epoch is %s after %s: nothing can be minted before it, and the years left below count from it\n\n",
			span(f.epoch.Sub(f.now)), f.now.UTC().Format(time.DateOnly))
	}
	f.writeNeeds(w, n, surgeText)
	f.writeFits(w, n, surgeText)
	fmt.Fprintf(w, "\ndoes not fit\n")
	for _, line := range f.misfits(n) {
		fmt.Fprintf(w, "  %s\n", line)
	}
	f.writeDefault(w, surgeText)
}

// writeNeeds writes the plan's first section: the bits each field needs
// for the fleet's node ids, burst, rate and horizon, and their sum.
func (f fleet) writeNeeds(w io.Writer, n need, surgeText string) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "needs\n")
	nodeLine := fmt.Sprintf("  node ids\t%s = %s × surge %s\t", num(f.nodeIDs()), processes(f.processes), surgeText)
	if n.node > 0 {
		fmt.Fprintf(tw, "%sat least %d node bits (%s node ids)\n", nodeLine, n.node, num(int64(1)<<n.node))
	} else {
		fmt.Fprintf(tw, "%sno node field of 1 to 61 bits holds them\n", nodeLine)
	}
	burstLine := fmt.Sprintf("  burst\t%s in one tick over %s\t", ids(f.burst), processes(f.processes))
	if n.seqBurst > 0 {
		fmt.Fprintf(tw, "%sat least %d seq bits (%s IDs per node per tick: %s)\n",
			burstLine, n.seqBurst, num(int64(1)<<n.seqBurst), nodes(f.burstNodes(n.seqBurst)))
	} else {
		fmt.Fprintf(tw, "%sno seq field of 1 to 61 bits serves it\n", burstLine)
	}
	switch {
	case f.rate == nil:
		fmt.Fprintf(tw, "  rate\tnot given (-rate)\t\n")
	case n.seqRate > 0:
		fmt.Fprintf(tw, "  rate\t%s IDs/s over %s\tat least %d seq bits (%s IDs/s in all)\n",
			formatRat(f.rate), processes(f.processes), n.seqRate, formatRat(f.fleetRate(n.seqRate)))
	default:
		fmt.Fprintf(tw, "  rate\t%s IDs/s over %s\tno seq field of 1 to 61 bits serves it\n", formatRat(f.rate), processes(f.processes))
	}
	yearsLine := fmt.Sprintf("  horizon\tat least %s years left\t", fmtFloat(f.years))
	if n.time > 0 {
		h, _ := f.horizon(n.time)
		fmt.Fprintf(tw, "%sat least %d time bits (%s, %.1f years left)\n", yearsLine, n.time, h.UTC().Format(time.DateOnly), f.yearsLeft(h))
	} else {
		fmt.Fprintf(tw, "%sno time field up to %d bits of %v lasts so long\n", yearsLine, n.maxTime, f.unit)
	}
	if n.node > 0 && n.seq > 0 && n.time > 0 {
		total := n.node + n.seq + n.time
		if total <= 63 {
			fmt.Fprintf(tw, "  bits\t%d of 63\t%d to spare\n", total, 63-total)
		} else {
			fmt.Fprintf(tw, "  bits\t%d of 63\t%d too many: no layout fits\n", total, total-63)
		}
	}
	tw.Flush()
}

// writeFits writes the layouts that fit, one per node width, up to
// maxListed of them.
func (f fleet) writeFits(w io.Writer, n need, surgeText string) {
	fits := f.fits(n)
	if len(fits) > 0 {
		fmt.Fprintf(w, "\nfits: every valid split with at least %d node, %d seq and %d time bits; one per node width,\n", n.node, n.seq, n.time)
		fmt.Fprintf(w, "keeping %d time bits where the other fields leave room\n", n.preferredTime())
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
		fmt.Fprintf(tw, "  layout\tnode ids\tprocesses at surge %s\tper node per tick\tper node per second\tburst needs\thorizon\tyears left\t\n", surgeText)
		listed := fits[:min(len(fits), maxListed)]
		for _, l := range listed {
			fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\t%s\t%s\t%s\t%.1f\t\n", formatBits(l),
				num(int64(1)<<l.NodeBits), num(f.safeProcesses(l.NodeBits)), num(int64(1)<<l.SeqBits),
				formatRat(f.perSecond(l.SeqBits)), nodes(f.burstNodes(l.SeqBits)),
				l.Horizon().UTC().Format(time.DateOnly), f.yearsLeft(l.Horizon()))
		}
		tw.Flush()
		if more := fits[len(listed):]; len(more) > 0 {
			fmt.Fprintf(w, "  and %d more with wider node fields, to %s\n", len(more), formatBits(more[len(more)-1]))
		}
	} else {
		fmt.Fprintf(w, "\nfits: none\n")
	}
}

// writeDefault writes the default layout's verdict for the fleet.
func (f fleet) writeDefault(w io.Writer, surgeText string) {
	d := snowlab.DefaultLayout
	dl, ok := f.layout(d.TimeBits, d.NodeBits, d.SeqBits)
	fmt.Fprintf(w, "\nthe default %s: ", formatBits(d))
	switch r := f.reasons(dl); {
	case !ok:
		fmt.Fprintf(w, "not valid with ticks of %v\n", f.unit)
	case len(r) == 0:
		fmt.Fprintf(w, "fits; its %s node ids hold %s at surge %s\n", num(int64(1)<<d.NodeBits), processes(f.safeProcesses(d.NodeBits)), surgeText)
	default:
		fmt.Fprintf(w, "does not fit: %s\n", strings.Join(r, "; "))
	}
}

// misfits says, field by field, which widths miss the fleet and why, at
// the widest width that misses (every narrower one misses by more), with
// an example split that misses for that reason alone where one exists.
func (f fleet) misfits(n need) []string {
	var lines []string
	// example names the split tb/nb/sb when it is valid and misses the
	// fleet for one reason only.
	example := func(tb, nb, sb uint) string {
		if l, ok := f.layout(tb, nb, sb); ok && len(f.reasons(l)) == 1 {
			return " (such as " + formatBits(l) + ")"
		}
		return ""
	}
	pt := n.preferredTime()
	switch n.node {
	case 0:
		lines = append(lines, fmt.Sprintf("every node width: no node field of 1 to 61 bits holds %s node ids", num(f.nodeIDs())))
	case 1:
	default:
		nb := n.node - 1
		tb := min(pt, 63-nb-max(n.seq, 1))
		l := snowlab.Layout{TimeBits: tb, NodeBits: nb, SeqBits: 63 - tb - nb}
		lines = append(lines, fmt.Sprintf("node bits %d or fewer%s: %s", nb, example(tb, nb, 63-tb-nb), f.nodeShort(l)))
	}
	switch n.seq {
	case 0:
		what := "the burst"
		if f.rate != nil {
			what = "both the burst and the rate"
		}
		lines = append(lines, "every seq width: no seq field of 1 to 61 bits serves "+what)
	case 1:
	default:
		sb := n.seq - 1
		tb := min(pt, 63-max(n.node, 1)-sb)
		l := snowlab.Layout{TimeBits: tb, NodeBits: 63 - tb - sb, SeqBits: sb}
		var why []string
		for _, r := range []string{f.burstShort(l), f.rateShort(l)} {
			if r != "" {
				why = append(why, r)
			}
		}
		lines = append(lines, fmt.Sprintf("seq bits %d or fewer%s: %s", sb, example(tb, 63-tb-sb, sb), strings.Join(why, "; ")))
	}
	switch n.time {
	case 0:
		lines = append(lines, fmt.Sprintf("every time width: no time field up to %d bits of %v leaves %s years", n.maxTime, f.unit, fmtFloat(f.years)))
	case 1:
	default:
		tb, nb := n.time-1, max(n.node, 1)
		if l, ok := f.layout(tb, nb, 63-tb-nb); ok {
			lines = append(lines, fmt.Sprintf("time bits %d or fewer%s: %s", tb, example(tb, nb, 63-tb-nb), f.timeShort(l)))
		}
	}
	if n.maxTime < 61 && n.node > 0 && n.seq > 0 && 63-n.node-n.seq > n.maxTime {
		tb := n.maxTime + 1
		ex := formatBits(snowlab.Layout{TimeBits: tb, NodeBits: n.node, SeqBits: 63 - tb - n.node})
		if tb >= 63 || uint64(1)<<tb > uint64(math.MaxInt64/int64(f.unit)) {
			lines = append(lines, fmt.Sprintf("time bits over %d (such as %s): 2^%d ticks of %v overflow a time.Duration", n.maxTime, ex, tb, f.unit))
		} else {
			lines = append(lines, fmt.Sprintf("time bits over %d (such as %s): 2^%d ticks of %v from the epoch end past %s, the last instant of Unix nanoseconds",
				n.maxTime, ex, tb, f.unit, time.Unix(0, math.MaxInt64).UTC().Format(time.DateOnly)))
		}
	}
	return lines
}

func ceilRat(r *big.Rat) *big.Int {
	q, m := new(big.Int).QuoRem(r.Num(), r.Denom(), new(big.Int))
	if m.Sign() > 0 {
		q.Add(q, big.NewInt(1))
	}
	return q
}

// nodes, processes and ids write a count of them.
func nodes(n int64) string     { return count(n, "node", "nodes") }
func processes(n int64) string { return count(n, "process", "processes") }
func ids(n int64) string       { return count(n, "ID", "IDs") }

func count(n int64, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return num(n) + " " + many
}

// num writes n with thousands separators.
func num(n int64) string { return commas(strconv.FormatInt(n, 10)) }

// fmtFloat writes v as briefly as it reads back.
func fmtFloat(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }
