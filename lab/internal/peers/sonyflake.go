package peers

import (
	"fmt"
	"time"

	"github.com/sony/sonyflake/v2"

	"github.com/snowlab/snowlab/lab/subject"
)

// sonyflakeMachine is the machine id every Sonyflake instance holds. It is
// fixed so that New never looks up a private IP address (the library's
// default MachineID), which would make the subject depend on the host's
// network configuration.
const sonyflakeMachine = 1

func sonyflakeMachineID() (int, error) { return sonyflakeMachine, nil }

// sonyflake1ms is Sonyflake brought to the Snowflake layout for a fair
// comparison with the 1 ms generators: 1 ms unit, 12 sequence bits and
// 10 machine bits, which leaves v2's 63-12-10 = 41 time bits (v2 requires
// at least 32), ~69 years from its default start, 2025-01-01 UTC.
var sonyflake1ms = sonyflake.Settings{
	BitsSequence:  12,
	BitsMachineID: 10,
	TimeUnit:      time.Millisecond,
	MachineID:     sonyflakeMachineID,
}

// sonyflakeDefault is Sonyflake as shipped: 10 ms unit, 8 sequence bits,
// 16 machine bits, 39 time bits, start 2025-01-01 UTC. Only MachineID is set.
var sonyflakeDefault = sonyflake.Settings{
	MachineID: sonyflakeMachineID,
}

func sonyflakeSubject1ms() subject.Subject {
	return sonyflakeSubject("sony/sonyflake-1ms", sonyflake1ms, 4096, time.Millisecond,
		"settings changed for a fair comparison: TimeUnit 1ms, BitsSequence 12, BitsMachineID 10 "+
			"(41 time bits); MachineID fixed to 1 instead of the private-IP lookup; ")
}

func sonyflakeSubjectDefault() subject.Subject {
	return sonyflakeSubject("sony/sonyflake", sonyflakeDefault, 256, 10*time.Millisecond,
		"library defaults (10ms unit, 8 sequence bits, 16 machine bits, 39 time bits, start 2025-01-01); "+
			"MachineID fixed to 1 instead of the private-IP lookup; ")
}

// sonyflakeSubject is Sonyflake with settings st; note, what st changes,
// leads its Note.
func sonyflakeSubject(name string, st sonyflake.Settings, perTick int, tick time.Duration, note string) subject.Subject {
	// The decoder is an instance with the same settings: ToTime and
	// Decompose read only fields fixed by New, so one instance serves
	// every goroutine.
	dec, err := sonyflake.New(st)
	if err != nil {
		panic(fmt.Sprintf("peers: %s: static settings rejected: %v", name, err))
	}
	return subject.Subject{
		Name:    name,
		Library: "github.com/sony/sonyflake/v2@v2.2.0",
		Strict:  true,
		Nodes:   1,
		PerTick: perTick,
		Tick:    tick,
		Decode: func(id subject.ID) (time.Time, int) {
			v := int64(id.Lo)
			return dec.ToTime(v), int(dec.Decompose(v)["machine"])
		},
		New: func() (subject.Minter, error) {
			sf, err := sonyflake.New(st)
			if err != nil {
				return nil, err
			}
			return sonyflakeMinter{sf}, nil
		},
		Note: note + "one sync.Mutex per instance, and a spent tick is waited out with time.Sleep while holding it",
	}
}

type sonyflakeMinter struct{ sf *sonyflake.Sonyflake }

func (m sonyflakeMinter) Next() (subject.ID, error) {
	v, err := m.sf.NextID()
	return subject.ID{Lo: uint64(v)}, err
}
