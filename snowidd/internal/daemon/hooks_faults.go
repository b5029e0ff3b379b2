//go:build snowidd_faults

package daemon

import (
	"encoding/json"
	"fmt"
	"net/http"
	"sync/atomic"
	"time"

	"github.com/snowlab/snowlab/clocksrc"
)

// FaultClockPath is where a fault-injection build (go build -tags
// snowidd_faults, make snowidd-faults) lets its lab step the replica's
// clock: POST ?step=D adds D (a Go duration, negative steps back) to every
// reading the replica takes from then on (its IDs, its lease's
// reservations, its readiness, its GET /clock); GET answers the offset.
// A step is what NTP does to a clock; the machine's clock is never
// touched, and a build without the tag has no such path.
const FaultClockPath = "/fault/clock"

// systemHooks in a fault-injection build: the default clock plus an
// offset the lab steps over FaultClockPath.
func systemHooks() hooks {
	c := &faultClock{base: clocksrc.Default()}
	return hooks{readKernel: clocksrc.ReadKernel, clock: c, wrap: c.wrap, store: recordStore,
		note: "fault-injection build: the clock is stepped over POST " + FaultClockPath + "; never run this build in production"}
}

// faultClock is base plus offset ns.
type faultClock struct {
	base   clocksrc.Clock
	offset atomic.Int64
}

func (c *faultClock) UnixNano() int64 { return c.base.UnixNano() + c.offset.Load() }

// faultAnswer is FaultClockPath's body.
type faultAnswer struct {
	OffsetNano int64  `json:"offset_nano"`
	Offset     string `json:"offset"`
}

// wrap serves FaultClockPath beside h.
func (c *faultClock) wrap(h http.Handler) http.Handler {
	mux := http.NewServeMux()
	mux.Handle("/", h)
	answer := func(w http.ResponseWriter) {
		off := c.offset.Load()
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(faultAnswer{OffsetNano: off, Offset: time.Duration(off).String()})
	}
	mux.HandleFunc("GET "+FaultClockPath, func(w http.ResponseWriter, _ *http.Request) { answer(w) })
	mux.HandleFunc("POST "+FaultClockPath, func(w http.ResponseWriter, r *http.Request) {
		d, err := time.ParseDuration(r.URL.Query().Get("step"))
		if err != nil {
			http.Error(w, fmt.Sprintf("step %q: want a Go duration such as -2s or 10s", r.URL.Query().Get("step")), http.StatusBadRequest)
			return
		}
		c.offset.Add(int64(d))
		answer(w)
	})
	return mux
}
