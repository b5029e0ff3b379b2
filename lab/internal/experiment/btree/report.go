package btree

import (
	"fmt"
	"io"
	"maps"
	"math"
	"slices"
	"strings"

	"github.com/snowlab/snowlab/lab/internal/md"
	"github.com/snowlab/snowlab/lab/internal/report"
	"github.com/snowlab/snowlab/lab/internal/units"
)

// bigint is the key the documents' "bigint" stands for in the ratios: the
// snowlab ID, the library's own 64-bit key. The sequence is the ideal it
// is held against.
const bigint = snowlabKey

// prediction is one line of the measured-versus-predicted table.
type prediction struct {
	What      string
	Predicted string
	// Measured is one cell per engine, in the run's engine order.
	Measured []string
}

// predictions builds the measured-versus-predicted table: each ratio and leaf
// fill a B-tree model predicts for each key type, beside what each
// engine measured.
func predictions(run *runResult) []prediction {
	var out []prediction
	row := func(what, predicted string, cell func(e engineResult) string) {
		c := prediction{What: what, Predicted: predicted}
		for _, e := range run.Engines {
			c.Measured = append(c.Measured, cell(e))
		}
		out = append(out, c)
	}
	ratio := func(a, b keyKind, predicted float64) func(engineResult) string {
		return func(e engineResult) string { return ratioCell(e.ratio(a, b), predicted) }
	}
	row("UUIDv4 / bigint index size", "1.8× (1.4× width × 1.3× fill)", ratio(uuidV4, bigint, predictedRatio(uuidV4)))
	row("UUIDv7 / bigint index size", "1.4× (width only)", ratio(uuidV7, bigint, predictedRatio(uuidV7)))
	row("ULID / bigint index size", "1.4× (width only)", ratio(ulidKey, bigint, predictedRatio(ulidKey)))
	row("UUIDv4 / UUIDv7 index size (fill alone)", "1.3× (90% / 69%)", ratio(uuidV4, uuidV7, predictedFillPenalty))
	row("snowlab / sequence index size", "1.0× (both append)", ratio(snowlabKey, sequence, 1))
	for _, k := range run.Config.Keys {
		pred := "~90% (appends)"
		if !k.ordered() {
			pred = "~69% (ln 2, random inserts)"
		}
		row("Leaf fill, "+k.label(), pred, func(e engineResult) string {
			r, ok := e.key(k)
			if !ok || !r.Index.fillKnown() {
				return "—"
			}
			return fillCell(r.Index.LeafFill, predictedFill(k))
		})
	}
	for _, k := range []keyKind{bigint, uuidV7, uuidV4} {
		p := predictedBytesPerRow(k)
		label := k.label()
		if k == bigint {
			label = "bigint (snowlab)"
		}
		row("Index bytes per row, "+label, units.TrimSig(p, 3)+" (= "+units.TrimSig(p, 3)+" GB per 10⁹ rows)", func(e engineResult) string {
			r, ok := e.key(k)
			if !ok {
				return "—"
			}
			if e.Engine == engineSQLiteClustered {
				return "n/a: holds whole rows"
			}
			return ratioFree(r.bytesPerRow(), p)
		})
	}
	scaled := run.Config.Rows != 1_000_000
	for _, k := range []keyKind{bigint, uuidV7, uuidV4} {
		label := k.label()
		if k == bigint {
			label = "bigint (snowlab)"
		}
		what := "Index size at 1 M rows, " + label
		if scaled {
			what += " (measured, scaled to 1 M)"
		}
		row(what, fmt.Sprintf("~%g MB (published, PostgreSQL)", publishedPG1M(k)), func(e engineResult) string {
			r, ok := e.key(k)
			if !ok || r.Rows == 0 {
				return "—"
			}
			if e.Engine == engineSQLiteClustered {
				return "n/a: holds whole rows"
			}
			mib := float64(r.Index.Bytes) / float64(r.Rows) * 1e6 / (1 << 20)
			return fmt.Sprintf("%s MiB (%s)", units.TrimSig(mib, 3), pctDiff(mib, publishedPG1M(k)))
		})
	}
	return out
}

// ratioCell is a measured ratio with its difference from the prediction:
// "1.84× (+2%)".
func ratioCell(v, predicted float64) string {
	if math.IsNaN(v) {
		return "—"
	}
	return fmt.Sprintf("%s× (%s)", units.TrimSig(v, 3), pctDiff(v, predicted))
}

// ratioFree is a measured value with its difference from the prediction.
func ratioFree(v, predicted float64) string {
	if math.IsNaN(v) {
		return "—"
	}
	return fmt.Sprintf("%s (%s)", units.TrimSig(v, 3), pctDiff(v, predicted))
}

func pctDiff(v, predicted float64) string {
	d := 100 * (v/predicted - 1)
	if math.Abs(d) < 0.5 {
		return "±0%"
	}
	return fmt.Sprintf("%+.0f%%", d)
}

// fillCell is a leaf fill with its difference from the prediction in
// percentage points: "67.1% (−2 pts)".
func fillCell(v, predicted float64) string {
	d := 100 * (v - predicted)
	diff := fmt.Sprintf("%+.0f pts", d)
	if math.Abs(d) < 0.5 {
		diff = "±0 pts"
	}
	return fmt.Sprintf("%s%% (%s)", units.TrimSig(100*v, 3), diff)
}

func pct(v float64) string { return units.TrimSig(100*v, 3) + "%" }

// document lays the run's report out, one function per section: the
// setup, the measured-versus-predicted table, one table per engine, the
// engines' settings, the host and how to read it all.
func document(run *runResult) *report.Document {
	d := &report.Document{}
	writeSetup(d, run)
	writePredictions(d, run)
	for _, e := range run.Engines {
		writeEngine(d, e)
	}
	writeEngines(d, run)
	d.Host(run.Host)
	d.Section(2, "How to read this").Prose(howToRead)
	return d
}

// writeSetup is the title and how the run was loaded: date, commit,
// command, the load and the keys, and each engine that stopped.
func writeSetup(d *report.Document, run *runResult) {
	title := report.Title("What the key costs a B-tree", &run.Header)
	c := run.Config
	items := append(report.Provenance(&run.Header),
		fmt.Sprintf("**Schema:** btree %d", run.Schema),
		fmt.Sprintf("**Load:** %s rows per key kind and engine, %s per INSERT statement, %s per transaction, "+
			"a %d-byte payload beside the key in every row; then a tail of %s more rows after a checkpoint",
			units.Thousands(c.Rows), units.Thousands(c.BatchRows), units.Thousands(c.TxRows), c.PayloadBytes, units.Thousands(c.TailRows)),
		fmt.Sprintf("**Keys, in load order:** %s. The sequence starts at 2^62 (%d) so that it is stored at a "+
			"snowlab ID's 8-byte width; snowlab IDs come from atomicgen under the %s policy; UUIDv7 and UUIDv4 from "+
			"github.com/google/uuid, ULID from github.com/oklog/ulid/v2, all three stored as 16 bytes",
			keyList(c.Keys), c.SequenceStart, c.SnowlabPolicy),
	)
	for _, e := range run.Engines {
		if e.Error != "" {
			items = append(items, fmt.Sprintf("**%s stopped:** %s", e.Engine, md.Escape(e.Error)))
		}
	}
	d.Section(1, title).List(items...)
}

// writePredictions is the measured-versus-predicted table and its charts.
func writePredictions(d *report.Document, run *runResult) {
	header := []string{"Quantity", "Documents"}
	for _, e := range run.Engines {
		header = append(header, e.Engine)
	}
	var rows [][]string
	for _, cmp := range predictions(run) {
		rows = append(rows, append([]string{cmp.What, cmp.Predicted}, cmp.Measured...))
	}
	d.Section(2, "Predicted and measured").Table(header, rows).
		Text("\"bigint\" is the snowlab key. In brackets: the difference from the documents' figure "+
			"(percent for ratios and sizes, percentage points for fills).").
		Chart(chartSize, "Index size per key kind and engine", sizeChart(run)).
		Chart(chartFill, "Leaf fill per key kind and engine", fillChart(run))
}

// writeEngine is one engine's table: each key's index, its fill, the
// inserts and, on PostgreSQL, the WAL they cost.
func writeEngine(d *report.Document, e engineResult) {
	pg := e.Engine == enginePostgres
	header := []string{"Key", "Key bytes", "Index", "Leaf / internal pages", "Levels", "Bytes per row",
		"× bigint", "Leaf fill", "Leaf fragmentation", "Table", "Inserts/s"}
	if pg {
		header = append(header, "WAL", "WAL per row")
	}
	header = append(header, "Tail inserts/s")
	if pg {
		header = append(header, "Tail WAL per row", "Tail full-page images")
	}
	var rows [][]string
	for _, r := range e.Keys {
		rows = append(rows, engineRow(e, r, pg))
	}
	s := d.Section(2, fmt.Sprintf("%s: %s", e.Engine, e.Version)).
		Text(fmt.Sprintf("%s. Driver %s, %s-byte pages.", upperFirst(e.Layout), md.Code(e.Driver), units.Thousands(e.PageSize))).
		Table(header, rows)
	if len(e.Keys) > 0 && !e.Keys[0].Index.fillKnown() {
		s.Text(fmt.Sprintf("Leaf fill and fragmentation: %s.", md.Escape(e.Keys[0].Index.Source)))
	}
	if pg && len(e.Keys) > 0 && e.Keys[0].WAL != nil && e.Keys[0].WAL.StatsSource != "pg_stat_wal" {
		s.Text(fmt.Sprintf("Full-page images: %s.", md.Escape(e.Keys[0].WAL.StatsSource)))
	}
}

// engineRow is key r's row of engine e's table.
func engineRow(e engineResult, r keyResult, pg bool) []string {
	fill, frag := "—", "—"
	if r.Index.fillKnown() {
		fill, frag = pct(r.Index.LeafFill), pct(r.Index.Fragmentation)
	}
	table := "—"
	if r.TableBytes > 0 {
		table = units.Bytes(r.TableBytes)
	}
	row := []string{r.Key.label(), fmt.Sprint(r.KeyBytes), units.Bytes(r.Index.Bytes),
		fmt.Sprintf("%s / %s", units.Thousands(int(r.Index.LeafPages)), units.Thousands(int(r.Index.InternalPages))),
		fmt.Sprint(r.Index.Levels), units.TrimSig(r.bytesPerRow(), 3),
		ratioOnly(e.ratio(r.Key, bigint)), fill, frag, table, units.Rate(r.InsertsPerSec)}
	if pg {
		row = append(row, walBytes(r.WAL), walPerRow(r.WAL, r.Rows))
	}
	tailRate := "—"
	if r.Tail != nil {
		tailRate = units.Rate(r.Tail.InsertsPerSec)
	}
	row = append(row, tailRate)
	if pg {
		tw, fpi := "—", "—"
		if r.Tail != nil {
			tw = walPerRow(r.Tail.WAL, r.Tail.Rows)
			fpi = walFPI(r.Tail.WAL)
		}
		row = append(row, tw, fpi)
	}
	return row
}

// writeEngines is the engines' versions, drivers and settings.
func writeEngines(d *report.Document, run *runResult) {
	var rows [][]string
	for _, e := range run.Engines {
		var set []string
		for _, k := range sortedKeys(e.Settings) {
			set = append(set, k+" = "+e.Settings[k])
		}
		rows = append(rows, []string{e.Engine, e.Version, e.Driver, units.Thousands(e.PageSize), strings.Join(set, "; ")})
	}
	d.Section(2, "Engines").Table([]string{"Engine", "Version", "Driver", "Page size", "Settings"}, rows)
}

// howToRead is the report's last section, on how it was measured and
// what the documents' arithmetic is.
const howToRead = `Every key kind is loaded the same way into a fresh table: the keys are minted first (so the inserts per
second are the database's, not the generator's), then inserted in the order they were minted, one writer,
in the same statements and transactions. The primary-key index is measured after the load: its size, its
pages, how full its leaves are, and how fragmented (the share of leaves whose next leaf in key order lies
earlier in the file, pgstatindex's definition; dbstat gives SQLite's in key order).

The documents' arithmetic has two factors. *Width*: a 16-byte key makes every index entry bigger, so fewer fit a
page (PostgreSQL: 28 bytes per entry with its line pointer against 20 for a bigint, 1.4×). *Fill*: an ordered key
always inserts at the right edge, so full leaves stay full (PostgreSQL splits the rightmost leaf leaving it 90%
full), while a random key inserts everywhere and splits leaves in half, which converges to ln 2 ≈ 69% full
(1.3×). UUIDv7 and ULID pay the width only; UUIDv4 both; a snowlab ID neither, which is why it should sit on
the sequence's row.

*Leaf fill* counts index entries and their pointers as used: dbstat's page size minus unused bytes over page
size for SQLite, pgstatindex's avg_leaf_density for PostgreSQL. The *tail* is more rows inserted after a
checkpoint into the table the load filled: what inserts cost a table that already exists. Its *full-page
images* are PostgreSQL's: the first change to a page after a checkpoint logs the whole page, so a key that
scatters its inserts over every leaf logs most of the index again, where an ordered key touches one leaf.
SQLite's own ratios differ from the documents' because its format differs (variable-width records, 4 KiB
pages, and a split rule that redistributes cells among three siblings instead of halving one page): the
documents' numbers are PostgreSQL's arithmetic, and the PostgreSQL column is the one to hold them against.
`

func ratioOnly(v float64) string {
	if math.IsNaN(v) {
		return "—"
	}
	return units.TrimSig(v, 3) + "×"
}

func walBytes(w *walStats) string {
	if w == nil {
		return "—"
	}
	return units.Bytes(w.Bytes)
}

func walPerRow(w *walStats, rows int) string {
	if w == nil || rows == 0 {
		return "—"
	}
	return units.TrimSig(float64(w.Bytes)/float64(rows), 3) + " B"
}

func walFPI(w *walStats) string {
	if w == nil || w.StatsSource != "pg_stat_wal" {
		return "—"
	}
	return units.Thousands(int(w.FPI))
}

func keyList(ks []keyKind) string {
	var s []string
	for _, k := range ks {
		s = append(s, k.label())
	}
	return strings.Join(s, ", ")
}

func upperFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

func sortedKeys(m map[string]string) []string { return slices.Sorted(maps.Keys(m)) }

// writeTable writes the measured-versus-predicted table and each
// engine's for a terminal: those sections of its report.
func writeTable(w io.Writer, run *runResult) error {
	return document(run).WriteText(w, func(title string) bool {
		return title == "Predicted and measured" ||
			slices.ContainsFunc(run.Engines, func(e engineResult) bool { return strings.HasPrefix(title, e.Engine+": ") })
	})
}
