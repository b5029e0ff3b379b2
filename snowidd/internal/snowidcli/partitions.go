package snowidcli

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/snowlab/snowlab"
	"github.com/snowlab/snowlab/snowidd/internal/idtext"
)

// maxPartitions is the most partitions one partitions command writes. A
// PostgreSQL table of many thousand partitions plans every query slowly;
// a command asked for more has almost always been given the wrong -every.
const maxPartitions = 10000

// maxIdentBytes is the longest identifier PostgreSQL keeps (NAMEDATALEN-1):
// it cuts a longer one short without an error, and two partition names
// cut short could become one.
const maxIdentBytes = 63

// partitionSeries is what partitions' flags asked for, parsed: the
// partitions of parent over [from, to), each every long, or each months
// calendar months in UTC; n of them once check has passed.
type partitionSeries struct {
	parent         tableName
	layout         snowlab.Layout
	from, to       time.Time
	every          time.Duration
	months         int
	n              int
	fromArg, toArg string
	name           func(time.Time) string
}

func runPartitions(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("partitions", stderr)
	table := fs.String("table", "", "the parent `table`, partitioned BY RANGE (id): a SQL identifier, schema-qualified or not")
	fromArg := fs.String("from", "", "`FROM`, the first partition's start: RFC 3339 or a date (midnight UTC)")
	toArg := fs.String("to", "", "`TO`, the last partition's end (exclusive): -from plus a whole number of -every")
	everyArg := fs.String("every", "", "each partition's `duration`, such as 24h or 1h (a whole number of ticks), or calendar months in UTC: month or Nmo (1mo, 3mo), -from and -to each the 1st of a month")
	lf := AddLayoutFlags(fs)
	pos, code, ok := parse(fs, args)
	if !ok {
		return code
	}
	if len(pos) > 0 {
		return usageError(fs, "unexpected argument %q", pos[0])
	}
	for _, f := range []struct{ name, v string }{{"table", *table}, {"from", *fromArg}, {"to", *toArg}, {"every", *everyArg}} {
		if f.v == "" {
			return usageError(fs, "-%s not given", f.name)
		}
	}
	ps := partitionSeries{fromArg: *fromArg, toArg: *toArg}
	var err error
	if ps.parent, err = parseTableName(*table); err != nil {
		return usageError(fs, "-table %q: %v", *table, err)
	}
	if ps.layout, err = lf.Layout(); err != nil {
		return usageError(fs, "%v", err)
	}
	if ps.from, err = parseInstant(*fromArg); err != nil {
		return usageError(fs, "-from %q: %v", *fromArg, err)
	}
	if ps.to, err = parseInstant(*toArg); err != nil {
		return usageError(fs, "-to %q: %v", *toArg, err)
	}
	if ps.every, ps.months, ok = parseEvery(*everyArg); !ok {
		return usageError(fs, "-every %q: want a positive duration such as 24h or 1h, or calendar months: month or Nmo (1 to %d)", *everyArg, maxMonths)
	}
	if msg := ps.check(*table); msg != "" {
		return usageError(fs, "%s", msg)
	}
	if err := ps.write(stdout); err != nil {
		var re rangeError
		if errors.As(err, &re) {
			return usageError(fs, "%v", err)
		}
		return writeFailed(stderr, err)
	}
	return exitOK
}

// rangeError is a piece of a series outside the layout's window: never
// seen once check has passed [from, to), and a usage error if it were.
type rangeError struct{ error }

// check says what is wrong with the series ("" when nothing is), and sets
// its namer: partitions must meet at tick boundaries, fit the layout, be a
// whole and bounded number, and have names PostgreSQL keeps whole.
func (ps *partitionSeries) check(table string) string {
	l, from, to, every := ps.layout, ps.from, ps.to, ps.every
	if ps.months == 0 && every%l.Unit != 0 {
		return fmt.Sprintf("-every %v is not a whole number of ticks of %v: partitions would not meet at tick boundaries", every, l.Unit)
	}
	if _, _, err := l.Range(from, to); err != nil {
		return fmt.Sprintf("[-from %s, -to %s): %v", ps.fromArg, ps.toArg, err)
	}
	if d := from.Sub(l.Epoch); d%l.Unit != 0 {
		return fmt.Sprintf("-from %s is inside a tick of %v (%v past its start): a partition must start at a tick", ps.fromArg, l.Unit, d%l.Unit)
	}
	var n int64 // an int64: 292 years of 1ns partitions overflow an int on 32 bits
	if ps.months > 0 {
		months, msg := ps.countMonths()
		if msg != "" {
			return msg
		}
		n = int64(months)
	} else if span := to.Sub(from); span == 0 {
		return fmt.Sprintf("-from %s and -to %s are the same instant: no partition", ps.fromArg, ps.toArg)
	} else if span%every != 0 {
		return fmt.Sprintf("-to %s is not -from plus a whole number of -every %v (%d, then %v over)", ps.toArg, every, span/every, span%every)
	} else {
		n = int64(span / every)
	}
	if n > maxPartitions {
		return fmt.Sprintf("%d partitions of %s, more than the %d this command writes: take a longer -every or a shorter interval", n, ps.everyText(), maxPartitions)
	}
	ps.n = int(n)
	ps.name = partitionNamer(from, every, ps.months)
	if longest := ps.parent.table + "_" + ps.name(from); len(longest) > maxIdentBytes {
		return fmt.Sprintf("-table %q: partition names such as %q are %d bytes, over PostgreSQL's %d (it would cut them short)",
			table, longest, len(longest), maxIdentBytes)
	}
	return ""
}

// write writes the series' header and one CREATE TABLE a partition. Every
// piece lies inside [from, to), which check found in the layout's window.
func (ps *partitionSeries) write(stdout io.Writer) error {
	l, parent := ps.layout, ps.parent
	tf := idtext.TimeFormat(l)
	out := bufio.NewWriter(stdout)
	fmt.Fprintf(out, "-- snowid partitions: %d of %s, [%s, %s) every %s\n",
		ps.n, parent.quoted(), ps.from.UTC().Format(tf), ps.to.UTC().Format(tf), ps.everyText())
	fmt.Fprintf(out, "-- layout %s, %v ticks since %s; the parent is PARTITION BY RANGE (id)\n",
		formatBits(l), l.Unit, l.Epoch.UTC().Format(tf))
	for i := range ps.n {
		a, b := ps.bound(i), ps.bound(i+1)
		lo, hi, err := l.Range(a, b)
		if err != nil {
			return rangeError{fmt.Errorf("[%v, %v): %w", a, b, err)}
		}
		part := parent.sibling(parent.table + "_" + ps.name(a))
		fmt.Fprintf(out, "CREATE TABLE %s PARTITION OF %s FOR VALUES FROM (%d) TO (%d);\n", part.quoted(), parent.quoted(), lo, hi)
	}
	return out.Flush()
}

// partitionNamer returns the suffix a partition starting at t is named by:
// t in UTC, to the coarsest of month (a series of calendar months),
// day, hour, minute, second, millisecond, microsecond or nanosecond that
// shows every start of the series from, from+every, … exactly, so that
// names are unique and sort by time.
func partitionNamer(from time.Time, every time.Duration, months int) func(time.Time) string {
	if months > 0 {
		return func(t time.Time) string { return stamp(t, "200601", 0) }
	}
	for _, g := range []struct {
		d      time.Duration
		layout string
		digits int
	}{
		{24 * time.Hour, "20060102", 0},
		{time.Hour, "2006010215", 0},
		{time.Minute, "200601021504", 0},
		{time.Second, "20060102150405", 0},
		{time.Millisecond, "20060102150405", 3},
		{time.Microsecond, "20060102150405", 6},
	} {
		// Truncate counts from the zero time, a UTC midnight, so a day
		// here is a UTC day.
		if every%g.d == 0 && from.Truncate(g.d).Equal(from) {
			return func(t time.Time) string { return stamp(t, g.layout, g.digits) }
		}
	}
	return func(t time.Time) string { return stamp(t, "20060102150405", 9) }
}

func stamp(t time.Time, layout string, digits int) string {
	s := t.UTC().Format(layout)
	if digits == 0 {
		return s
	}
	frac := fmt.Sprintf("%09d", t.Nanosecond())
	return s + "_" + frac[:digits]
}

// tableName is a table's name as PostgreSQL resolves it, with its schema
// when one was given.
type tableName struct{ schema, table string }

// parseTableName reads a table name as PostgreSQL reads it in SQL: one or
// two parts joined by a dot, each an unquoted identifier (a letter or _,
// then letters, digits, _ or $), which folds to lower case, or a quoted one
// ("..." with "" for a quote), taken as written.
func parseTableName(s string) (tableName, error) {
	var parts []string
	rest := s
	for {
		part, tail, err := parseIdent(rest)
		if err != nil {
			return tableName{}, err
		}
		parts = append(parts, part)
		if tail == "" {
			break
		}
		if tail[0] != '.' || len(parts) == 2 {
			return tableName{}, fmt.Errorf("unexpected %q after the name: want [schema.]table", tail)
		}
		rest = tail[1:]
	}
	if len(parts) == 1 {
		return tableName{table: parts[0]}, nil
	}
	return tableName{schema: parts[0], table: parts[1]}, nil
}

// parseIdent reads one identifier from the start of s and returns it and
// what follows it.
func parseIdent(s string) (ident, rest string, err error) {
	if strings.HasPrefix(s, `"`) {
		var b strings.Builder
		for i := 1; i < len(s); i++ {
			c := s[i]
			switch {
			case c == '"' && i+1 < len(s) && s[i+1] == '"':
				b.WriteByte('"')
				i++
			case c == '"':
				return checkIdent(b.String(), s[i+1:])
			case c < 0x20 || c == 0x7f:
				return "", "", fmt.Errorf("control character %q in a quoted identifier", c)
			default:
				b.WriteByte(c)
			}
		}
		return "", "", errors.New("a quoted identifier without its closing quote")
	}
	i := 0
	for i < len(s) && (s[i] == '_' || 'a' <= s[i] && s[i] <= 'z' || 'A' <= s[i] && s[i] <= 'Z' ||
		i > 0 && (isDigit(s[i]) || s[i] == '$')) {
		i++
	}
	if i == 0 {
		return "", "", errors.New(`want an identifier: a letter or _, then letters, digits, _ or $ (or a "quoted" one)`)
	}
	return checkIdent(strings.ToLower(s[:i]), s[i:])
}

func checkIdent(ident, rest string) (string, string, error) {
	switch {
	case ident == "":
		return "", "", errors.New("an empty quoted identifier")
	case len(ident) > maxIdentBytes:
		return "", "", fmt.Errorf("%d bytes, over PostgreSQL's %d", len(ident), maxIdentBytes)
	}
	return ident, rest, nil
}

// sibling is a table of the given name in n's schema.
func (n tableName) sibling(table string) tableName { return tableName{schema: n.schema, table: table} }

// quoted is n as SQL text: each part quoted, so that it means exactly n
// whatever it is (a keyword, mixed case).
func (n tableName) quoted() string {
	q := func(s string) string { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` }
	if n.schema == "" {
		return q(n.table)
	}
	return q(n.schema) + "." + q(n.table)
}
