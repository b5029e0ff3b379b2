package clocksrc

import (
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

// scriptedKernel is a kernel that answers adjtimex with tx, or fails with
// err: what the tests read instead of this machine's clock.
type scriptedKernel struct {
	tx  timex
	err error
}

func (k scriptedKernel) readTimex() (timex, error) { return k.tx, k.err }

func TestReadKernel(t *testing.T) {
	// A chrony-synchronized host: PLL and nanosecond offsets, 37 s of TAI.
	synced := timex{state: int(TimeOK), status: int32(StaPLL | StaNano), offset: -12_345, freq: -215_285, maxerror: 16_500, esterror: 120, tai: 37}
	with := func(tx timex, state TimeState, status Status) timex {
		tx.state, tx.status = int(state), int32(status)
		return tx
	}
	tests := []struct {
		name string
		tx   timex
		want Kernel
	}{
		{"synchronized", synced, Kernel{
			Known: true, Synchronized: true, State: TimeOK, Status: StaPLL | StaNano,
			Offset: -12_345 * time.Nanosecond, FrequencyPPM: -215_285.0 / 65536,
			EstError: 120 * time.Microsecond, MaxError: 16500 * time.Microsecond, TAIOffset: 37 * time.Second,
		}},
		{"offset in microseconds without STA_NANO", with(synced, TimeOK, StaPLL), Kernel{
			Known: true, Synchronized: true, State: TimeOK, Status: StaPLL,
			Offset: -12_345 * time.Microsecond, FrequencyPPM: -215_285.0 / 65536,
			EstError: 120 * time.Microsecond, MaxError: 16500 * time.Microsecond, TAIOffset: 37 * time.Second,
		}},
		// A free-running clock: no daemon has told the kernel anything.
		{"unsynchronized", timex{state: int(TimeError), status: int32(StaUnsync), maxerror: 16_000_000, esterror: 16_000_000}, Kernel{
			Known: true, State: TimeError, Status: StaUnsync,
			EstError: 16 * time.Second, MaxError: 16 * time.Second,
		}},
		// STA_UNSYNC alone is unsynchronized, whatever the state says.
		{"STA_UNSYNC with TIME_OK", with(synced, TimeOK, StaPLL|StaUnsync), Kernel{
			Known: true, State: TimeOK, Status: StaPLL | StaUnsync,
			Offset: -12_345 * time.Microsecond, FrequencyPPM: -215_285.0 / 65536,
			EstError: 120 * time.Microsecond, MaxError: 16500 * time.Microsecond, TAIOffset: 37 * time.Second,
		}},
		// TIME_ERROR for a clock fault with STA_UNSYNC clear.
		{"clock fault", timex{state: int(TimeError), status: int32(StaPLL | StaClockErr)}, Kernel{
			Known: true, State: TimeError, Status: StaPLL | StaClockErr,
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := readKernel(scriptedKernel{tx: tt.tx})
			assert.Equal(t, tt.want, got)
		})
	}
}

// TestReadKernelLeap walks the kernel's leap-second state machine as a
// leap second's day goes by: armed, taken up, under way, taken, cleared.
func TestReadKernelLeap(t *testing.T) {
	tests := []struct {
		name    string
		state   TimeState
		status  Status
		leap    Leap
		pending bool
		synced  bool
	}{
		{"none", TimeOK, StaPLL, LeapNone, false, true},
		{"armed, before the kernel's next tick", TimeOK, StaPLL | StaIns, LeapInsert, true, true},
		{"insert armed", TimeIns, StaPLL | StaIns, LeapInsert, true, true},
		{"delete armed", TimeDel, StaPLL | StaDel, LeapDelete, true, true},
		{"23:59:60 under way", TimeOOP, StaPLL | StaIns, LeapInProgress, true, true},
		{"taken, flag still set", TimeWait, StaPLL | StaIns, LeapTaken, false, true},
		// TIME_ERROR hides the state: the flags say what is armed.
		{"insert armed, unsynchronized", TimeError, StaUnsync | StaIns, LeapInsert, true, false},
		{"delete armed, unsynchronized", TimeError, StaUnsync | StaDel, LeapDelete, true, false},
		{"unsynchronized, none armed", TimeError, StaUnsync, LeapNone, false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			k := readKernel(scriptedKernel{tx: timex{state: int(tt.state), status: int32(tt.status)}})
			assert.True(t, k.Known)
			assert.Equal(t, tt.leap, k.Leap)
			assert.Equal(t, tt.pending, k.LeapPending())
			assert.Equal(t, tt.synced, k.Synchronized)
			assert.Equal(t, tt.state, k.State)
		})
	}
}

func TestReadKernelUnknown(t *testing.T) {
	k := readKernel(scriptedKernel{err: errors.New("adjtimex: operation not permitted")})
	assert.Equal(t, Kernel{Reason: "adjtimex: operation not permitted"}, k, "nothing but the reason when the kernel does not say")
	assert.False(t, k.LeapPending())
}

func TestKernelNames(t *testing.T) {
	assert.Equal(t, "PLL NANO", (StaPLL | StaNano).String())
	assert.Equal(t, []string{"INS", "UNSYNC", "0x10000"}, (StaIns | StaUnsync | 1<<16).Names())
	assert.Equal(t, "none", Status(0).String())
	assert.Equal(t, "TIME_OOP", TimeOOP.String())
	assert.Equal(t, "TimeState(9)", TimeState(9).String())
	assert.Equal(t, "in progress", LeapInProgress.String())
	assert.Equal(t, "Leap(-1)", Leap(-1).String())
}

// ReadDiscipline reports corrections for Default's clock alone.
func TestReadDisciplineSeesDefault(t *testing.T) {
	d := ReadDiscipline(Default())
	if assert.NotNil(t, d.Default, "Default's corrections") {
		assert.Zero(t, d.Default.BackwardSteps)
		assert.GreaterOrEqual(t, d.Default.Running, time.Duration(0))
	}
	for _, c := range []Clock{Realtime(), Monotonic(), FixedMillis(1)} {
		assert.Nil(t, ReadDiscipline(c).Default, "%T has no corrections", c)
	}
}
