package report

import (
	"fmt"
	"time"

	"github.com/snowlab/snowlab/lab/internal/md"
	"github.com/snowlab/snowlab/lab/internal/resultdir"
	"github.com/snowlab/snowlab/lab/result"
)

// Title is an experiment report's title: what the experiment measured,
// then the day the run started and the host it ran on, each where h
// records it.
func Title(what string, h *result.Header) string {
	if !h.Started.IsZero() {
		what += ", " + h.Started.UTC().Format("2006-01-02")
	}
	if h.Host.Hostname != "" {
		what += " on " + h.Host.Hostname
	}
	return what
}

// Provenance is the items a report's setup list opens with (a suite
// run's and every experiment's): when the run started ("unknown" where
// not recorded) and how long it took, the commit it ran at and the
// command that ran it, any credential in the command redacted, since a
// report is published.
func Provenance(h *result.Header) []string {
	date, took := "unknown", ""
	if !h.Started.IsZero() {
		date = h.Started.UTC().Format("2006-01-02 15:04:05 UTC")
	}
	if h.Elapsed >= time.Minute {
		took = fmt.Sprintf(" (took %s)", h.Elapsed.Round(time.Second))
	} else if h.Elapsed > 0 {
		took = fmt.Sprintf(" (took %s)", h.Elapsed.Round(time.Millisecond))
	}
	return []string{
		fmt.Sprintf("**Date:** %s%s", date, took),
		"**Commit:** " + md.Code(md.OrDash((&result.Run{Commit: h.Commit, Dirty: h.Dirty}).Revision())),
		"**Command:** " + md.Code(md.OrDash(md.ShellJoin(resultdir.RedactArgs(h.Command)))),
	}
}
