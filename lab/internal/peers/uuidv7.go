package peers

import (
	"time"

	"github.com/google/uuid"

	"github.com/snowlab/snowlab/lab/subject"
)

// uuidV7Subject is github.com/google/uuid's NewV7. In v1.6.0 the 48-bit
// unix-ms timestamp and the 12-bit rand_a field are taken together from
// getV7Time, under a package-level mutex, as (ms<<12 | ns-within-ms>>8);
// when that is not above the last value returned it becomes last+1. So the
// first 8 bytes are strictly increasing across every call in the process,
// which is why Order is OrderCaller. The +1 can carry into the millisecond,
// so under a sustained rate above ~3.9 M/s the timestamp runs ahead of the
// clock: Strict is false, and there is no per-tick ceiling (PerTick 0).
// The remaining 62 bits are read from crypto/rand on every call.
func uuidV7Subject() subject.Subject {
	return subject.Subject{
		Name:    "google/uuid-v7",
		Library: "github.com/google/uuid@v1.6.0",
		Strict:  false,
		Decode: func(id subject.ID) (time.Time, int) {
			return time.UnixMilli(int64(id.Hi >> 16)), -1
		},
		New: func() (subject.Minter, error) { return uuidV7Minter{}, nil },
		Note: "OrderCaller because v1.6.0's getV7Time returns ms<<12|seq strictly increasing under a process-wide mutex " +
			"(global state: every instance shares it); a seq overflow carries into the ms, so time may run ahead under load; " +
			"random bits come from crypto/rand per call (EnableRandPool not used, library default)",
	}
}

type uuidV7Minter struct{}

func (uuidV7Minter) Next() (subject.ID, error) {
	u, err := uuid.NewV7()
	if err != nil {
		return subject.ID{}, err
	}
	return subject.ID128(u), nil
}
