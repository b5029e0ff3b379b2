package peers

import (
	"math/rand"
	randv2 "math/rand/v2"
	"sync"
	"time"

	"github.com/oklog/ulid/v2"

	"github.com/snowlab/snowlab/lab/subject"
)

// ulidSubject is github.com/oklog/ulid/v2 with monotonic entropy:
// ulid.Monotonic(math/rand, 0), the fast path its README shows (a
// *math/rand.Rand lets Monotonic draw increments with Int63n instead of
// reading bytes through bufio). A MonotonicEntropy is not safe for
// concurrent use, so each instance guards its own with a sync.Mutex, as
// users must, and reads the clock inside that lock.
//
// Why not ulid.Make(): in v2.1.2 DefaultEntropy is a process-wide
// LockedMonotonicReader around the same Monotonic(math/rand, 0), but Make
// reads the clock before it takes the lock. A goroutine that read an
// older millisecond and reaches the lock late resets the monotonic state,
// and another goroutine's next ID in the current millisecond then gets
// fresh random entropy, which may sort below its previous ID: measured at
// 240 per-goroutine inversions in 1.6 M IDs (8 goroutines, 2 CPUs). With
// the clock read under the lock, every instance's IDs increase in the
// order the lock hands them out, so OrderCaller holds.
func ulidSubject() subject.Subject {
	return subject.Subject{
		Name:    "oklog/ulid-monotonic",
		Library: "github.com/oklog/ulid/v2@v2.1.2",
		Strict:  true, // the timestamp is always time.Now(); a spent ms is an error (ErrMonotonicOverflow), never a borrow
		Decode: func(id subject.ID) (time.Time, int) {
			return ulid.Time(ulid.ULID(id.Bytes128()).Time()), -1
		},
		New: func() (subject.Minter, error) {
			src := rand.New(rand.NewSource(randv2.Int64()))
			return &ulidMinter{entropy: ulid.Monotonic(src, 0)}, nil
		},
		Note: "ulid.New(ulid.Timestamp(time.Now()), ulid.Monotonic(math/rand, 0)) with a sync.Mutex per instance around " +
			"clock read and mint (MonotonicEntropy is not safe for concurrent use); not ulid.Make(), which reads the " +
			"clock outside its lock and so breaks per-goroutine order under contention",
	}
}

type ulidMinter struct {
	mu      sync.Mutex
	entropy *ulid.MonotonicEntropy
}

// Next returns ulid.New's error, ErrMonotonicOverflow in practice: 80 bits
// from a random start, increments below 2^32, so practically never.
func (m *ulidMinter) Next() (subject.ID, error) {
	m.mu.Lock()
	u, err := ulid.New(ulid.Timestamp(time.Now()), m.entropy)
	m.mu.Unlock()
	if err != nil {
		return subject.ID{}, err
	}
	return subject.ID128(u), nil
}
