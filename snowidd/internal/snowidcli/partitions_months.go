package snowidcli

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// maxMonths is the longest -every in months: a century. Longer is never
// a partition's span, and it keeps month counts far from overflowing.
const maxMonths = 1200

// parseEvery reads -every: a duration (24h, 1h), or calendar months in
// UTC, "month" or Nmo (1mo, 3mo, 12mo). A month is no duration: 28 to
// 31 days, so 720h from 2025-01-01 would end on 2025-01-31 and drift a
// day further each month. Exactly one of every and months is set.
func parseEvery(s string) (every time.Duration, months int, ok bool) {
	if s == "month" {
		return 0, 1, true
	}
	if n, found := strings.CutSuffix(s, "mo"); found {
		m, err := strconv.Atoi(n)
		if err != nil || m < 1 || m > maxMonths || n != strconv.Itoa(m) {
			return 0, 0, false
		}
		return 0, m, true
	}
	d, err := time.ParseDuration(s)
	if err != nil || d <= 0 {
		return 0, 0, false
	}
	return d, 0, true
}

// monthStart reports whether t is a calendar month's start in UTC: the
// 1st at 00:00:00.000000000. (Truncate cannot say: months differ.)
func monthStart(t time.Time) bool {
	u := t.UTC()
	return u.Equal(time.Date(u.Year(), u.Month(), 1, 0, 0, 0, 0, time.UTC))
}

// countMonths is how many partitions of ps.months calendar months fill
// [from, to), or, in msg, why they do not: both ends must be months'
// starts in UTC, to a whole number of partitions apart, and every start
// in between must be at a tick (months of 28 to 31 days all are at 1ms,
// but a tick of 7ms from midnight meets a month's start only 1 time in 7).
func (ps *partitionSeries) countMonths() (n int, msg string) {
	from, to := ps.from.UTC(), ps.to.UTC()
	for _, end := range []struct {
		flag, arg string
		t         time.Time
	}{{"-from", ps.fromArg, from}, {"-to", ps.toArg, to}} {
		if !monthStart(end.t) {
			first := time.Date(end.t.Year(), end.t.Month(), 1, 0, 0, 0, 0, time.UTC)
			return 0, fmt.Sprintf("%s %s is not the start of a calendar month in UTC, which -every %s partitions begin and end at: such as %s or %s",
				end.flag, end.arg, ps.everyText(), first.Format(time.DateOnly), first.AddDate(0, 1, 0).Format(time.DateOnly))
		}
	}
	span := (to.Year()-from.Year())*12 + int(to.Month()) - int(from.Month())
	switch {
	case span == 0:
		return 0, fmt.Sprintf("-from %s and -to %s are the same instant: no partition", ps.fromArg, ps.toArg)
	case span%ps.months != 0:
		over := fmt.Sprintf("%d months", span%ps.months)
		if span%ps.months == 1 {
			over = "1 month"
		}
		return 0, fmt.Sprintf("-to %s is not -from plus a whole number of -every %s (%d, then %s over)", ps.toArg, ps.everyText(), span/ps.months, over)
	}
	// At most 3,504 months: a layout's window fits a time.Duration (292
	// years), so maxPartitions never binds a series of months.
	n = span / ps.months
	l := ps.layout
	for i := 1; i < n; i++ {
		if b := ps.bound(i); b.Sub(l.Epoch)%l.Unit != 0 {
			return 0, fmt.Sprintf("the partition starting %s is inside a tick of %v (%v past its start): calendar months do not meet at tick boundaries",
				b.Format(time.DateOnly), l.Unit, b.Sub(l.Epoch)%l.Unit)
		}
	}
	return n, ""
}

// bound is the start of the series' partition i (its end when i is the
// count): i partitions past -from, in months or in durations.
func (ps *partitionSeries) bound(i int) time.Time {
	if ps.months > 0 {
		return ps.from.UTC().AddDate(0, i*ps.months, 0)
	}
	return ps.from.Add(time.Duration(i) * ps.every)
}

// everyText is -every as the header and errors show it.
func (ps *partitionSeries) everyText() string {
	if ps.months > 0 {
		return strconv.Itoa(ps.months) + "mo"
	}
	return ps.every.String()
}
