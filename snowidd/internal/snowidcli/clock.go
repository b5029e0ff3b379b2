package snowidcli

import (
	"encoding/json"
	"fmt"
	"io"
	"text/tabwriter"
	"time"

	"github.com/snowlab/snowlab/clocksrc"
)

// runClock prints the kernel's clock discipline and what a Default clock
// saw while clock watched it. read is clocksrc.ReadDiscipline; tests
// script the kernel's answer through it.
func runClock(args []string, stdout, stderr io.Writer, read func(clocksrc.Clock) clocksrc.Discipline) int {
	fs := newFlagSet("clock", stderr)
	asJSON := fs.Bool("json", false, "print one JSON object")
	watch := fs.Duration("watch", 0, "read a Default clock for `D` before reporting what it saw (0: report at once, a clock that has seen nothing yet)")
	pos, code, ok := parse(fs, args)
	if !ok {
		return code
	}
	if len(pos) > 0 {
		return usageError(fs, "unexpected argument %q", pos[0])
	}
	if *watch < 0 {
		return usageError(fs, "-watch %v: want 0 or more", *watch)
	}

	clock := clocksrc.Default()
	// Default's clock compares itself with the wall clock only while it
	// is read, once every DefaultResync.
	for deadline := time.Now().Add(*watch); time.Now().Before(deadline); {
		clock.UnixNano()
		time.Sleep(min(10*time.Millisecond, time.Until(deadline)))
	}
	clock.UnixNano()
	d := read(clock)

	if *asJSON {
		if err := json.NewEncoder(stdout).Encode(clockRecord(d)); err != nil {
			return writeFailed(stderr, err)
		}
		return exitOK
	}
	w := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
	writeKernel(w, d.Kernel)
	if c := d.Default; c != nil {
		fmt.Fprintf(w, "Default clock\tone made by this command, read for %v\n", c.Running.Round(time.Millisecond))
		fmt.Fprintf(w, "  resyncs\t%d\n", c.Resyncs)
		fmt.Fprintf(w, "  forward steps followed\t%d (%v in all)\n", c.ForwardSteps, c.Forward)
		fmt.Fprintf(w, "  backward steps slewed\t%d (%v in all)\n", c.BackwardSteps, c.Backward)
		fmt.Fprintf(w, "  slew left\t%v (ahead of the wall clock by that much)\n", c.SlewLeft)
	}
	if err := w.Flush(); err != nil {
		return writeFailed(stderr, err)
	}
	return exitOK
}

func writeKernel(w io.Writer, k clocksrc.Kernel) {
	if !k.Known {
		fmt.Fprintf(w, "kernel\tunknown: %s\n", k.Reason)
		for _, f := range []string{"synchronized", "leap second", "state", "status", "offset", "frequency", "estimated error", "maximum error", "TAI - UTC"} {
			fmt.Fprintf(w, "  %s\tunknown\n", f)
		}
		return
	}
	yes := map[bool]string{true: "yes", false: "no"}
	leap := k.Leap.String()
	if k.LeapPending() {
		leap += " (pending)"
	}
	fmt.Fprintf(w, "kernel\tadjtimex, read only\n")
	fmt.Fprintf(w, "  synchronized\t%s\n", yes[k.Synchronized])
	fmt.Fprintf(w, "  leap second\t%s\n", leap)
	fmt.Fprintf(w, "  state\t%v\n", k.State)
	fmt.Fprintf(w, "  status\t%v\n", k.Status)
	fmt.Fprintf(w, "  offset\t%v\n", k.Offset)
	fmt.Fprintf(w, "  frequency\t%.3f ppm\n", k.FrequencyPPM)
	fmt.Fprintf(w, "  estimated error\t%v\n", k.EstError)
	fmt.Fprintf(w, "  maximum error\t%v\n", k.MaxError)
	fmt.Fprintf(w, "  TAI - UTC\t%v\n", k.TAIOffset)
}

// clockJSON is snowid clock -json. Every key is present; a value the
// kernel does not give is null, never a guess.
type clockJSON struct {
	Kernel  kernelJSON   `json:"kernel"`
	Default *defaultJSON `json:"default_clock"`
}

type kernelJSON struct {
	Known        bool     `json:"known"`
	Reason       string   `json:"reason"`
	Synchronized *bool    `json:"synchronized"`
	Leap         *string  `json:"leap"`
	LeapPending  *bool    `json:"leap_pending"`
	State        *string  `json:"state"`
	Status       []string `json:"status"`
	OffsetNs     *int64   `json:"offset_ns"`
	FrequencyPPM *float64 `json:"frequency_ppm"`
	EstErrorNs   *int64   `json:"est_error_ns"`
	MaxErrorNs   *int64   `json:"max_error_ns"`
	TAIOffsetS   *int64   `json:"tai_offset_s"`
}

type defaultJSON struct {
	RunningNs     int64  `json:"running_ns"`
	Resyncs       uint64 `json:"resyncs"`
	ForwardSteps  uint64 `json:"forward_steps"`
	ForwardNs     int64  `json:"forward_ns"`
	BackwardSteps uint64 `json:"backward_steps"`
	BackwardNs    int64  `json:"backward_ns"`
	SlewLeftNs    int64  `json:"slew_left_ns"`
}

func clockRecord(d clocksrc.Discipline) clockJSON {
	var r clockJSON
	k := d.Kernel
	r.Kernel.Known, r.Kernel.Reason = k.Known, k.Reason
	if k.Known {
		leap, state := k.Leap.String(), k.State.String()
		offset, est, maxErr := int64(k.Offset), int64(k.EstError), int64(k.MaxError)
		tai := int64(k.TAIOffset / time.Second)
		synced, pending, freq := k.Synchronized, k.LeapPending(), k.FrequencyPPM
		r.Kernel.Synchronized, r.Kernel.Leap, r.Kernel.LeapPending = &synced, &leap, &pending
		r.Kernel.State, r.Kernel.Status = &state, k.Status.Names()
		r.Kernel.OffsetNs, r.Kernel.FrequencyPPM = &offset, &freq
		r.Kernel.EstErrorNs, r.Kernel.MaxErrorNs, r.Kernel.TAIOffsetS = &est, &maxErr, &tai
	}
	if c := d.Default; c != nil {
		r.Default = &defaultJSON{
			RunningNs: int64(c.Running), Resyncs: c.Resyncs,
			ForwardSteps: c.ForwardSteps, ForwardNs: int64(c.Forward),
			BackwardSteps: c.BackwardSteps, BackwardNs: int64(c.Backward),
			SlewLeftNs: int64(c.SlewLeft),
		}
	}
	return r
}
