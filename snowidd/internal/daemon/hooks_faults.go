//go:build snowidd_faults

package daemon

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/snowlab/snowlab/clocksrc"
	"github.com/snowlab/snowlab/snowidd/gen/snowlab/v1/snowlabv1connect"
)

// FaultClockPath is where a fault-injection build (go build -tags
// snowidd_faults, make snowidd-faults) lets its lab step the replica's
// clock: POST ?step=D adds D (a Go duration, negative steps back) to every
// reading the replica takes from then on (its IDs, its lease's
// reservations, its readiness, its GET /clock); GET answers the offset.
// A step is what NTP does to a clock; the machine's clock is never
// touched, and a build without the tag has no such path.
const FaultClockPath = "/fault/clock"

// FaultHoldPath is where a fault-injection build lets its lab hold one
// answer: POST ?for=D arms it, and the next NextIDs call made under
// FaultHeldPrefix, its IDs minted, waits D (or until the caller gives up)
// before the first byte of its answer is written; GET answers whether a
// hold is armed and whether an answer is being held. The lab's kill -9
// scenario kills the replica while "holding" is true, so the kill lands
// inside a call whose IDs were minted and never delivered, every time:
// unheld, a replica mints and sends 100,000 IDs in a few milliseconds,
// and a kill timed from the client missed the call 1 time in 3 or more
// under CI's load.
const FaultHoldPath = "/fault/hold"

// FaultHeldPrefix is the base URL path of the calls a hold may take: a
// client whose target is the replica's URL plus this prefix is served as
// any other, and only its NextIDs calls are held, so the rest of the
// lab's load on the replica goes on unheld.
const FaultHeldPrefix = "/fault/held"

// systemHooks in a fault-injection build: the default clock plus an
// offset the lab steps over FaultClockPath, and the hold of
// FaultHoldPath.
func systemHooks() hooks {
	c := &faultClock{base: clocksrc.Default()}
	h := &faultHold{}
	return hooks{readKernel: clocksrc.ReadKernel, clock: c, wrap: func(next http.Handler) http.Handler { return h.wrap(c.wrap(next)) }, store: recordStore,
		note: "fault-injection build: the clock is stepped over POST " + FaultClockPath + " and answers held over POST " + FaultHoldPath + "; never run this build in production"}
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

// faultHold is FaultHoldPath's state.
type faultHold struct {
	armed   atomic.Int64 // ns the next NextIDs answer is held; 0: none
	holding atomic.Bool
}

// faultHoldAnswer is FaultHoldPath's body.
type faultHoldAnswer struct {
	Armed   bool `json:"armed"`
	Holding bool `json:"holding"`
}

// wrap serves FaultHoldPath beside next, and next under FaultHeldPrefix,
// where the NextIDs call that takes an armed hold has its answer held.
func (h *faultHold) wrap(next http.Handler) http.Handler {
	mux := http.NewServeMux()
	mux.Handle("/", next)
	answer := func(w http.ResponseWriter) {
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(faultHoldAnswer{Armed: h.armed.Load() > 0, Holding: h.holding.Load()})
	}
	mux.HandleFunc("GET "+FaultHoldPath, func(w http.ResponseWriter, _ *http.Request) { answer(w) })
	mux.HandleFunc("POST "+FaultHoldPath, func(w http.ResponseWriter, r *http.Request) {
		d, err := time.ParseDuration(r.URL.Query().Get("for"))
		if err != nil || d <= 0 {
			http.Error(w, fmt.Sprintf("for %q: want a positive Go duration such as 5s", r.URL.Query().Get("for")), http.StatusBadRequest)
			return
		}
		h.armed.Store(int64(d))
		answer(w)
	})
	mux.Handle(FaultHeldPrefix+"/", http.StripPrefix(FaultHeldPrefix, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == snowlabv1connect.IDServiceNextIDsProcedure {
			if d := h.armed.Swap(0); d > 0 {
				w = &heldWriter{ResponseWriter: w, h: h, d: time.Duration(d), ctx: r.Context()}
			}
		}
		next.ServeHTTP(w, r)
	})))
	return mux
}

// heldWriter holds its answer before the first thing written: the
// handler has minted the IDs by then (a unary answer is written after
// the method returns).
type heldWriter struct {
	http.ResponseWriter
	h    *faultHold
	d    time.Duration
	ctx  context.Context
	once sync.Once
}

func (w *heldWriter) hold() {
	w.once.Do(func() {
		w.h.holding.Store(true)
		defer w.h.holding.Store(false)
		t := time.NewTimer(w.d)
		defer t.Stop()
		select {
		case <-t.C:
		case <-w.ctx.Done():
		}
	})
}

func (w *heldWriter) WriteHeader(code int) {
	w.hold()
	w.ResponseWriter.WriteHeader(code)
}

func (w *heldWriter) Write(p []byte) (int, error) {
	w.hold()
	return w.ResponseWriter.Write(p)
}

func (w *heldWriter) Flush() {
	w.hold()
	_ = http.NewResponseController(w.ResponseWriter).Flush()
}

// Unwrap lets http.ResponseController reach the server's writer.
func (w *heldWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }
