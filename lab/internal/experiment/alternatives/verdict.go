package alternatives

import (
	"fmt"
	"strings"
	"time"

	"github.com/snowlab/snowlab/lab/internal/units"
)

// verdict is one claim made for or against a scheme beside the
// measurement, with a plain sentence saying whether it holds and why.
type verdict struct {
	Claim     string
	Documents string
	Measured  string
	// Outcome is "holds", "does not hold" or "not measured".
	Outcome string
	Why     string
}

const (
	holds       = "holds"
	doesNot     = "does not hold"
	notMeasured = "not measured"
)

func outcome(ok bool) string {
	if ok {
		return holds
	}
	return doesNot
}

func ns(d time.Duration) string { return units.Ns(float64(d)) }

func times(v float64) string { return units.TrimSig(v, 2) + "×" }

func clients(n int) string {
	if n == 1 {
		return "1 client"
	}
	return fmt.Sprintf("%d clients", n)
}

// verdicts writes a sentence for each claim from the findings, in the
// order the report lists the claims.
func verdicts(f findings, crash crashRun) []verdict {
	return []verdict{
		rowAtCommitLatency(f),
		rowAt4000(f),
		blocksForPeak(f),
		blocksReorder(f),
		strideByCount(f),
		snowlabWithinSkew(f),
		asyncCommitSafe(crash),
		serviceOneCaller(f),
		serviceBatchesReorder(f),
		serviceAgeBound(f),
	}
}

// rowRate is the ticket row's best rate and where it was reached.
func rowRate(f findings) string {
	return fmt.Sprintf("%s at %s", units.Rate(f.Row.IDsPerSec), clients(f.Row.Clients))
}

// rowAtCommitLatency judges the claim that one row does about 1 / commit latency.
func rowAtCommitLatency(f findings) verdict {
	v := verdict{Claim: "One row does about 1 / commit latency: its updates are serial and each holds the row through its commit's flush",
		Documents: "~240 µs per commit → ~4,000 IDs/s"}
	switch {
	case !f.HasRow:
		v.Outcome, v.Why = notMeasured, "The ticket scheme did not run."
	case !f.Commit.measured():
		v.Measured = "row: " + rowRate(f)
		v.Outcome, v.Why = notMeasured, "The row peaked at "+rowRate(f)+", but the commit latency was "+strings.TrimPrefix(f.Commit.NotMeasured, "not measured: ")+"."
	default:
		ok := within(f.RowOverCeiling, 1, ceilingTolerance)
		v.Measured = fmt.Sprintf("row: %s; 1 / commit latency: %s (%s per %s)", rowRate(f), units.Rate(f.Ceiling), ns(f.Commit.PerOp), f.Commit.Method)
		v.Outcome = outcome(ok)
		if ok {
			v.Why = fmt.Sprintf("The row peaked at %s, %s the %s that one %s flush per ID allows (within the %s tolerance): the flush is what serialises it.",
				rowRate(f), times(f.RowOverCeiling), units.Rate(f.Ceiling), f.Commit.Method, times(ceilingTolerance))
		} else if f.RowOverCeiling > 1 {
			v.Why = fmt.Sprintf("The row peaked at %s, %s the %s that one %s flush per ID allows at pg_test_fsync's figure: the server's commits cost less than the tool's flush did (on a shared disk the two were measured at different moments), so the flush as measured does not bound the row here.",
				rowRate(f), times(f.RowOverCeiling), units.Rate(f.Ceiling), f.Commit.Method)
		} else {
			v.Why = fmt.Sprintf("The row peaked at %s, only %s the %s one %s flush per ID allows: something besides the flush (round trips, lock hand-over, the host's CPU) costs more than the flush here.",
				rowRate(f), times(f.RowOverCeiling), units.Rate(f.Ceiling), f.Commit.Method)
		}
	}
	return v
}

// rowAt4000 judges the claim that one row does about 4,000 IDs/s.
func rowAt4000(f findings) verdict {
	v := verdict{Claim: "One row does about 4,000 IDs/s", Documents: "~4,000 IDs/s"}
	if !f.HasRow {
		v.Outcome, v.Why = notMeasured, "The ticket scheme did not run."
	} else {
		ok := within(f.RowOverDoc, 1, figureTolerance)
		v.Measured = rowRate(f)
		v.Outcome = outcome(ok)
		why := fmt.Sprintf("The row peaked at %s, %s the documents' 4,000/s", rowRate(f), times(f.RowOverDoc))
		if f.Commit.measured() {
			why += fmt.Sprintf(", on a disk whose flush takes %s, not the documents' %s", ns(f.Commit.PerOp), ns(docCommitLatency))
		}
		if ok {
			v.Why = why + fmt.Sprintf(" (within %s): the figure carries to this host.", times(figureTolerance))
		} else {
			v.Why = why + ": the ceiling is the disk's flush rate, so the documents' figure is one disk's, not a constant."
		}
	}
	return v
}

// blocksForPeak judges the claim that a 100,000/s peak forces blocks of about 24.
func blocksForPeak(f findings) verdict {
	v := verdict{Claim: "A 100,000 IDs/s peak forces blocks of about 24", Documents: "100,000 / 4,000 ≈ 24 (25)"}
	if !f.HasRow {
		v.Outcome, v.Why = notMeasured, "The ticket scheme did not run, so the row's rate is unknown."
	} else {
		ok := within(float64(f.ForcedBlock), docBlock, figureTolerance)
		v.Measured = fmt.Sprintf("100,000 / %s = blocks of ≥ %s", units.Rate(f.Row.IDsPerSec), units.Thousands(f.ForcedBlock))
		v.Outcome = outcome(ok)
		why := fmt.Sprintf("At the row's measured %s, 100,000 IDs/s needs blocks of at least %s", units.Rate(f.Row.IDsPerSec), units.Thousands(f.ForcedBlock))
		if ok {
			why += fmt.Sprintf(", within %s of the documents' 24", times(figureTolerance))
		} else {
			why += ", not 24: the arithmetic (peak ÷ row rate) holds, the 24 follows from 4,000/s"
		}
		if f.HasBlock24 {
			kept := "fell short of"
			if f.Block24.IDsPerSec >= 0.95*docPeak {
				kept = "kept up with"
			}
			if f.Demand == docPeak {
				why += fmt.Sprintf("; blocks of 24 delivered at most %s at %s, and %s the 100,000/s asked", units.Rate(f.Block24.IDsPerSec), clients(f.Block24.Clients), kept)
			} else {
				why += fmt.Sprintf("; blocks of 24 delivered at most %s at %s", units.Rate(f.Block24.IDsPerSec), clients(f.Block24.Clients))
			}
		}
		v.Why = why + "."
	}
	return v
}

// blocksReorder judges the claim that blocks reorder time, far beyond snowlab's skew bound.
func blocksReorder(f findings) verdict {
	v := verdict{Claim: "The blocks a peak forces reorder time: a node holding [1000, 1999] can emit 1500 long after another emits 2000",
		Documents: "hours (a block lasts as long as its node takes to spend it)"}
	if len(f.Blocks) == 0 {
		v.Outcome, v.Why = notMeasured, "No block scheme ran."
	} else {
		var cells, parts []string
		kept, keptBeyond := 0, 0
		for _, b := range f.Blocks {
			capped, short := "", ""
			if b.Capped {
				capped = " (≥: the run's length)"
			}
			if f.Demand > 0 && !b.KeptUp {
				short = ", did not keep up"
			}
			cells = append(cells, fmt.Sprintf("%s: %s%s", b.Name, ns(b.Point.Disorder.Window), capped))
			parts = append(parts, fmt.Sprintf("%s by %s%s (%s the bound, %s%s)", b.Name, ns(b.Point.Disorder.Window), capped,
				times(b.OverBound), clients(b.Point.Clients), short))
			if f.Demand <= 0 || b.KeptUp {
				kept++
				if b.OverBound > 1 {
					keptBeyond++
				}
			}
		}
		v.Measured = strings.Join(cells, "; ")
		switch {
		case kept == 0:
			v.Outcome = notMeasured
			v.Why = fmt.Sprintf("No block size kept up with the demand, so none is one the peak allows: %s.", strings.Join(parts, ", "))
		case keptBeyond == kept:
			v.Outcome = holds
			v.Why = fmt.Sprintf("Every block size that kept up with the demand reordered IDs by more than snowlab's skew bound of %s: %s. A block reorders by up to its lifetime (step ÷ one node's rate), so a window as long as the run is a lower bound, and at a slow node's rate it is the documents' hours.",
				ns(f.Bound), strings.Join(parts, ", "))
		default:
			v.Outcome = doesNot
			v.Why = fmt.Sprintf("Not every block size that kept up with the demand reordered beyond snowlab's skew bound of %s: %s. A block's window is its lifetime (step ÷ one node's rate), and a small block at a high rate lives only milliseconds.",
				ns(f.Bound), strings.Join(parts, ", "))
		}
	}
	return v
}

// strideByCount judges the claim that stride interleaves by count, not time.
func strideByCount(f findings) verdict {
	v := verdict{Claim: "Multi-master stride: masters interleave by issue count, not by time",
		Documents: "disorder grows with the masters' rate difference"}
	if !f.HasStride {
		v.Outcome, v.Why = notMeasured, "The stride scheme did not run."
	} else {
		s := f.Stride
		d := s.Point.Disorder
		v.Measured = fmt.Sprintf("window %s, %s of adjacent pairs inverted (%s)", ns(d.Window), pct(d.AdjacentShare), clients(s.Point.Clients))
		v.Outcome = outcome(s.OverBound > 1)
		if s.OverBound > 1 {
			v.Why = fmt.Sprintf("With %s the stride IDs are out of time order by up to %s, %s snowlab's skew bound of %s, and %s of neighbouring IDs were handed out in the other order: an ID's value says how many IDs its master had issued, not when.",
				clients(s.Point.Clients), ns(d.Window), times(s.OverBound), ns(f.Bound), pct(d.AdjacentShare))
		} else {
			v.Why = fmt.Sprintf("The stride IDs stayed within snowlab's skew bound (%s against %s): in this run the masters' issue counts kept pace with time.",
				ns(d.Window), ns(f.Bound))
		}
	}
	return v
}

// snowlabWithinSkew judges the claim that Snowflake's disorder is bounded by the clock skew.
func snowlabWithinSkew(f findings) verdict {
	v := verdict{Claim: "Snowflake's disorder is bounded by the clock skew between nodes",
		Documents: "milliseconds (NTP keeps a datacenter within ~10 ms)"}
	if !f.HasSnowlab {
		v.Outcome, v.Why = notMeasured, "The snowlab scheme did not run."
	} else {
		s := f.Snowlab
		// A hand-out is timed when NextID returns; the clock was read
		// inside the call, so a recorded time can be late by as much as the
		// call took, and a window can exceed the bound by the longest call.
		late := s.Point.PerID.Max
		ok := s.Point.Disorder.Window <= f.Bound+late
		v.Measured = fmt.Sprintf("window %s against a bound of %s + %s, the longest call (%s)", ns(s.Point.Disorder.Window), ns(f.Bound), ns(late), clients(s.Point.Clients))
		v.Outcome = outcome(ok)
		if ok {
			v.Why = fmt.Sprintf("With clocks offset up to ±%s, snowlab's IDs were out of time order by at most %s: the clocks' spread plus one millisecond tick (%s), plus at most the longest NextID call (%s), since a hand-out is timed when the call returns.",
				ns(f.Skew), ns(s.Point.Disorder.Window), ns(f.Bound), ns(late))
		} else {
			v.Why = fmt.Sprintf("Snowlab's IDs were out of time order by %s, beyond the clocks' spread plus one tick (%s) and the longest NextID call (%s): something besides the clock offsets reordered them.",
				ns(s.Point.Disorder.Window), ns(f.Bound), ns(late))
		}
	}
	return v
}

// asyncCommitSafe judges the first fix people reach for: synchronous_commit = off.
func asyncCommitSafe(crash crashRun) verdict {
	v := verdict{Claim: "synchronous_commit = off lifts the row's ceiling safely",
		Documents: "(not in the documents: the first fix people reach for)"}
	switch {
	case crash.Skipped != "":
		v.Outcome, v.Why = notMeasured, "The crash experiment was skipped: "+crash.Skipped+"."
	case crash.Error != "":
		v.Outcome, v.Why = notMeasured, "The crash experiment failed: "+crash.Error+"."
	default:
		v.Measured = fmt.Sprintf("%s of %s IDs handed out before the crash issued again", units.Thousands(int(crash.Reissued)), units.Thousands(int(crash.HandedOut)))
		v.Outcome = outcome(crash.Reissued == 0)
		if crash.Reissued > 0 {
			v.Why = fmt.Sprintf("After an immediate stop and a restart the row came back at %d, below the %d already handed out, and issued %s of those IDs a second time: a commit acknowledged before its flush is lost in a crash, and the IDs it handed out with it.",
				crash.RowAfter, crash.MaxBefore, units.Thousands(int(crash.Reissued)))
		} else {
			v.Why = "No ID was issued twice in this crash: the WAL writer had flushed every acknowledged commit before the stop. That is luck of the timing (up to three wal_writer_delay of commits can be lost), not a guarantee."
		}
	}
	return v
}

func pct(v float64) string { return units.TrimSig(100*v, 3) + "%" }

// unbatchedService is the snowidd scheme that calls NextID per ID, if it
// ran.
func (f findings) unbatchedService() (serviceFinding, bool) {
	for _, s := range f.Service {
		if s.Scheme.Size == 0 {
			return s, true
		}
	}
	return serviceFinding{}, false
}

// serviceSkipped is the verdict's reason when the snowidd schemes were
// skipped, else what did not run.
func serviceSkipped(f findings, what string) string {
	if f.ServiceSkipped != "" {
		return "The snowidd schemes were skipped: " + f.ServiceSkipped + "."
	}
	return what
}

// serviceOneCaller judges the claim that one caller of a service cannot
// exceed 1 / round trip, and holds the service's round trip beside the
// database's.
func serviceOneCaller(f findings) verdict {
	v := verdict{Claim: "One caller asking a service for one ID at a time cannot exceed 1 / round trip",
		Documents: "0.5 ms per round trip → 2,000 IDs/s per caller"}
	one, ok := f.unbatchedService()
	if !ok || !one.HasOneCaller || one.OneCaller.Trip.P50 <= 0 {
		v.Outcome, v.Why = notMeasured, serviceSkipped(f, "snowidd (NextID per ID) did not run with one client.")
		return v
	}
	p := one.OneCaller
	trip := p.Trip.P50
	ceiling := float64(time.Second) / float64(trip)
	ok = p.IDsPerSec <= ceiling*ceilingTolerance
	v.Measured = fmt.Sprintf("1 client: %s; round trip p50 %s, so 1 / round trip = %s", units.Rate(p.IDsPerSec), ns(trip), units.Rate(ceiling))
	v.Outcome = outcome(ok)
	switch {
	case !ok:
		v.Why = fmt.Sprintf("One client calling NextID got %s, %s the %s its median round trip (%s) allows, beyond the %s tolerance: its calls did not each wait for a round trip.",
			units.Rate(p.IDsPerSec), times(p.IDsPerSec/ceiling), units.Rate(ceiling), ns(trip), times(ceilingTolerance))
	case p.KeptUp:
		v.Why = fmt.Sprintf("One client calling NextID kept up with its %s share of the demand, below the %s its median round trip (%s) allows, so it stayed under the bound rather than meet it.",
			units.Rate(p.Demand), units.Rate(ceiling), ns(trip))
	default:
		v.Why = fmt.Sprintf("One client calling NextID got %s, %s the %s its median round trip (%s) allows: each ID waits for its call.",
			units.Rate(p.IDsPerSec), times(p.IDsPerSec/ceiling), units.Rate(ceiling), ns(trip))
	}
	v.Why += fmt.Sprintf(" That round trip is %s the documents' 0.5 ms, so here the bound is %s, not 2,000/s.", times(float64(trip)/float64(docRoundTrip)), units.Rate(ceiling))
	if f.HasNextval && f.Nextval.Trip.P50 > 0 {
		v.Why += fmt.Sprintf(" A nextval round trip to PostgreSQL (sequence/cache-1, 1 client) took %s at the median (%s): the service's hop costs %s a database round trip here.",
			ns(f.Nextval.Trip.P50), units.Rate(f.Nextval.IDsPerSec), times(float64(trip)/float64(f.Nextval.Trip.P50)))
	}
	return v
}

// serviceBatchesReorder judges the claim that the batches a service's
// callers must take issue IDs out of time order, against snowlab's skew
// bound, and says how far the unbatched calls reordered them.
func serviceBatchesReorder(f findings) verdict {
	v := verdict{Claim: "Above 1 / round trip a service's callers must batch, and a batch issues IDs out of time order",
		Documents: "batches hold unused IDs and hand them out late"}
	one, hasOne := f.unbatchedService()
	var cells, parts []string
	beyond, batches := 0, 0
	for _, b := range f.Service {
		if b.Scheme.Size == 0 || b.Scheme.MaxAge > 0 {
			continue // unbatched, or bounded by age (serviceAgeBound)
		}
		batches++
		w := b.Window.Point.Disorder.Window
		capped := ""
		if b.Window.Capped {
			capped = " (≥: the run's length)"
		}
		lift := ""
		if hasOne && one.Best.IDsPerSec > 0 {
			lift = fmt.Sprintf(" (%s NextID's best)", times(b.Best.IDsPerSec/one.Best.IDsPerSec))
		}
		cells = append(cells, fmt.Sprintf("%s: %s, window %s%s", b.Name, units.Rate(b.Best.IDsPerSec), ns(w), capped))
		parts = append(parts, fmt.Sprintf("%s delivered up to %s%s and reordered by %s%s (%s the bound, %s)", b.Name,
			units.Rate(b.Best.IDsPerSec), lift, ns(w), capped, times(b.Window.OverBound), clients(b.Window.Point.Clients)))
		if w > f.Bound {
			beyond++
		}
	}
	if batches == 0 {
		v.Outcome, v.Why = notMeasured, serviceSkipped(f, "No batched snowidd scheme (snowidd/N) ran.")
		return v
	}
	v.Measured = strings.Join(cells, "; ")
	v.Outcome = outcome(beyond == batches)
	if beyond == batches {
		v.Why = fmt.Sprintf("Every batch size reordered IDs by more than snowlab's skew bound of %s: %s. A batch is a block the replica hands out: its IDs were minted together and are handed out over the batch's lifetime (size ÷ one client's rate).",
			ns(f.Bound), strings.Join(parts, ", "))
	} else {
		v.Why = fmt.Sprintf("Not every batch size reordered beyond snowlab's skew bound of %s: %s. A batch's window is its lifetime (size ÷ one client's rate), and a small batch at a high rate lives only milliseconds.",
			ns(f.Bound), strings.Join(parts, ", "))
	}
	if hasOne {
		w, longest := one.Window.Point.Disorder.Window, one.Window.Point.PerID.Max
		if w <= longest {
			v.Why += fmt.Sprintf(" Unbatched, the replica's IDs were out of time order by at most %s, within the longest call (%s): one node mints them in order, and only the responses' travel reorders them.", ns(w), ns(longest))
		} else {
			v.Why += fmt.Sprintf(" Unbatched, the replica's IDs were out of time order by %s, beyond the longest call (%s): something besides the responses' travel reordered them.", ns(w), ns(longest))
		}
	}
	return v
}

// serviceAgeBound judges the claim that a client buffer's age bound bounds
// the disorder its batches add. An ID handed out at most MaxAge after its
// batch was asked for sorts before no ID handed out more than MaxAge
// earlier: any later ID was minted after that request was sent. The
// allowance is the longest wait for an ID, for a client descheduled
// between its age check and its hand-out.
func serviceAgeBound(f findings) verdict {
	v := verdict{Claim: "An age bound on a client's prefetched batch bounds the disorder batching adds: no ID is handed out more than the bound after its batch was asked for",
		Documents: "the service's client buffer (snowidd/client BufferConfig.MaxAge)"}
	var cells, parts []string
	within, bounded := 0, 0
	for _, b := range f.Service {
		if b.Scheme.Size == 0 || b.Scheme.MaxAge <= 0 {
			continue
		}
		bounded++
		w, slack := b.Window.Point.Disorder.Window, b.Window.Point.PerID.Max
		cells = append(cells, fmt.Sprintf("%s: %s, window %s", b.Name, units.Rate(b.Best.IDsPerSec), ns(w)))
		verdict := "within"
		if w <= b.Scheme.MaxAge+slack {
			within++
		} else {
			verdict = "beyond"
		}
		parts = append(parts, fmt.Sprintf("%s reordered IDs by at most %s (%s), %s its bound of %s plus the longest wait for an ID (%s)",
			b.Name, ns(w), clients(b.Window.Point.Clients), verdict, b.Scheme.MaxAge, ns(slack)))
	}
	if bounded == 0 {
		v.Outcome, v.Why = notMeasured, serviceSkipped(f, "No age-bounded snowidd scheme (snowidd/N@AGE) ran.")
		return v
	}
	v.Measured = strings.Join(cells, "; ")
	v.Outcome = outcome(within == bounded)
	v.Why = strings.Join(parts, "; ") + "."
	if within == bounded {
		v.Why += " A batch costs a round trip per batch, and the bound costs the IDs dropped unused when a batch ages out (gaps, never duplicates)."
	}
	return v
}
