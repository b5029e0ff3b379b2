//go:build go1.27

package peers

import (
	"runtime"
	"time"
	"uuid"

	"github.com/snowlab/snowlab/lab/subject"
)

// stdlibPeers are the peers from Go's own standard library: uuid, new in
// Go 1.27. This file builds only with a Go 1.27 toolchain (the go1.27
// build tag; GOTOOLCHAIN=go1.27.3 fetches one); on Go 1.26 stduuid_pre127.go
// stands in and the list is empty, so the lab builds and runs without it.
func stdlibPeers() []subject.Subject { return []subject.Subject{stdUUIDv7Subject()} }

// stdUUIDv7Subject is the standard library's uuid.NewV7, as its Go 1.27
// source ($GOROOT/src/uuid/uuid.go) has it:
//
//   - one package-level sync.Mutex (v7mu) around time.Now and a 60-bit
//     timestamp: 48 bits of Unix milliseconds, then a 12-bit
//     sub-millisecond fraction in rand_a (1/4096 ms units, as RFC 9562
//     §6.2 method 3 permits);
//   - when that timestamp is not above the last one returned, it becomes
//     last+1: so every call in the process gets a larger first 8 bytes than
//     the call the mutex served before it, and each goroutine's IDs
//     increase (OrderCaller). The +1 carries into the milliseconds under a
//     sustained rate above 4,096 per ms (4.096 M/s), so the embedded time
//     can run ahead of the clock: not Strict, and no per-tick ceiling;
//   - "except when the system clock moves backwards" (its doc): when the
//     wall clock's whole seconds go back, the last timestamp is ignored and
//     the clock is taken as it is, so order breaks there (a step back
//     within one second is still absorbed by last+1). google/uuid v1.6.0
//     never resets: it keeps order and runs ahead instead. The lab's
//     workloads never step the clock, so the promise they check is
//     OrderCaller;
//   - the other 62 bits come from crypto/rand on every call, outside the
//     mutex: uniqueness across a reset rests on them, as in google/uuid.
func stdUUIDv7Subject() subject.Subject {
	return subject.Subject{
		Name:    "stdlib/uuid-v7",
		Library: "uuid@" + runtime.Version(),
		Strict:  false,
		Decode: func(id subject.ID) (time.Time, int) {
			return time.UnixMilli(int64(id.Hi >> 16)), -1
		},
		New: func() (subject.Minter, error) { return stdUUIDv7Minter{}, nil },
		Note: "Go 1.27's standard library: one package-level sync.Mutex around time.Now and a 48-bit ms + 12-bit " +
			"sub-ms (1/4096 ms) timestamp, last+1 when not above the last (global state: every instance shares it; " +
			"a carry into the ms runs ahead of the clock under load); order resets when the wall clock's seconds " +
			"go back (\"except when the system clock moves backwards\"); 62 random bits from crypto/rand per call",
	}
}

type stdUUIDv7Minter struct{}

// Next returns uuid.NewV7's UUID, which has no error to return: its
// crypto/rand read cannot fail (crypto/rand.Read crashes the program
// rather than return an error since Go 1.24).
func (stdUUIDv7Minter) Next() (subject.ID, error) {
	return subject.ID128(uuid.NewV7()), nil
}
