package snowidcli

import (
	"fmt"
	"time"

	"github.com/snowlab/snowlab"
	"github.com/snowlab/snowlab/snowidd/internal/idtext"
)

// The layout's window, [epoch, horizon), is when its IDs can be minted.
// An epoch ahead of the clock (2030 typed for 2023) leaves the horizon
// further off than the layout lasts, so "years left" measured from now
// would promise more than can be minted, none of it yet: the commands say
// so plainly instead.

// windowErr says, wrapping snowlab.ErrOverflow, when t is outside the
// window of l: nothing can be minted then. nil when t is inside.
func windowErr(l snowlab.Layout, t time.Time) error {
	tf := idtext.TimeFormat(l)
	epoch, horizon := l.Epoch.UTC(), l.Horizon().UTC()
	window := fmt.Sprintf("[%s, %s)", epoch.Format(tf), horizon.Format(tf))
	clock := t.UTC().Format(time.RFC3339)
	switch {
	case t.Before(epoch):
		return fmt.Errorf("%w %s: the epoch is %s after the clock (%s): nothing can be minted before it",
			snowlab.ErrOverflow, window, span(epoch.Sub(t)), clock)
	case !t.Before(horizon):
		return fmt.Errorf("%w %s: the horizon passed %s before the clock (%s): nothing can be minted any more",
			snowlab.ErrOverflow, window, span(t.Sub(horizon)), clock)
	}
	return nil
}

// span writes d for a person: in years (of 365.2425 days) from a year up,
// in days from a day up, else as a Duration to the second.
func span(d time.Duration) string {
	const day, year = 24 * time.Hour, 31_556_952 * time.Second // 365.2425 days
	switch {
	case d >= year:
		return fmt.Sprintf("%.1f years", float64(d)/float64(year))
	case d >= day:
		return fmt.Sprintf("%.1f days", float64(d)/float64(day))
	}
	return d.Round(time.Second).String()
}

// mintFrom is the first instant a layout with epoch can mint at, seen
// from t: t, or the epoch when it is ahead.
func mintFrom(t, epoch time.Time) time.Time {
	if t.Before(epoch) {
		return epoch
	}
	return t
}
