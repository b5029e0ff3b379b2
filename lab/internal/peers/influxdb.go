package peers

import (
	"time"

	"github.com/influxdata/influxdb/pkg/snowflake"

	"github.com/snowlab/snowlab/lab/subject"
)

// influxMachine is the machine id every InfluxDB generator holds.
const influxMachine = 1

// Layout of github.com/influxdata/influxdb/pkg/snowflake (gen.go): 42 bits
// of ms since 1491696000000 (2017-04-09T00:00:00Z), 10 machine bits,
// 12 sequence bits, as an unsigned 64-bit value.
const influxEpochMs = 1491696000000

// influxSubject is InfluxDB 1.x's snowflake generator. It is lock-free: one
// CAS loop on a state word that takes max(clock, state) and, when a
// millisecond's 4,096 sequence values are spent, simply moves on to the
// next millisecond. Nothing bounds how far that runs ahead of the clock.
func influxSubject() subject.Subject {
	return subject.Subject{
		Name:    "influxdata/influxdb-snowflake",
		Library: "github.com/influxdata/influxdb@v1.13.2",
		Strict:  false,
		Nodes:   1,
		PerTick: 4096,
		Tick:    time.Millisecond,
		Decode: func(id subject.ID) (time.Time, int) {
			return time.UnixMilli(influxEpochMs + int64(id.Lo>>22)), int(id.Lo>>12) & 1023
		},
		New: func() (subject.Minter, error) {
			return influxMinter{snowflake.New(influxMachine)}, nil
		},
		Note: "borrows without limit: a spent millisecond moves on to the next, so timestamps may run ahead of the clock; " +
			"after 100 lost CASes a call falls back to an atomic add that can carry the sequence into the machine bits " +
			"(the state word holds no machine id; it is OR-ed in afterwards)",
	}
}

type influxMinter struct{ g *snowflake.Generator }

func (m influxMinter) Next() (subject.ID, error) {
	return subject.ID{Lo: m.g.Next()}, nil
}
