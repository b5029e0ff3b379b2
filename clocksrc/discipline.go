package clocksrc

import (
	"fmt"
	"strings"
	"time"

	"github.com/snowlab/snowlab/internal/anchor"
)

// Discipline is what is known of the system clock a generator's time comes
// from: the kernel's account of its NTP discipline, and what one Default
// clock of this process has done to follow the wall clock.
type Discipline struct {
	Kernel Kernel
	// Default is what the Default clock given to ReadDiscipline saw; nil
	// when that clock is not one of Default's.
	Default *Corrections
}

// ReadDiscipline reads the kernel's clock discipline (ReadKernel) and, when
// c is a clock Default made, what it has seen of the wall clock. It changes
// nothing.
func ReadDiscipline(c Clock) Discipline {
	d := Discipline{Kernel: ReadKernel()}
	if a, ok := c.(*anchor.Clock); ok {
		cor := Corrections(a.Corrections())
		d.Default = &cor
	}
	return d
}

// Kernel is the kernel's account of the system clock's discipline, as
// adjtimex(2) reports it on Linux. Where the system does not say (every
// system but Linux, or a Linux that refuses the call) Known is false,
// Reason says why, and every other field is zero: nothing is guessed.
type Kernel struct {
	Known  bool
	Reason string // why not Known; "" when Known

	// Synchronized is the kernel's own verdict: STA_UNSYNC is clear and
	// adjtimex did not return TIME_ERROR (which it also returns for a
	// clock or PPS fault). An unsynchronized clock is free-running: no
	// NTP daemon is correcting it, or it has lost its servers.
	Synchronized bool
	// Leap is the leap second the kernel holds armed, under way or just
	// taken.
	Leap Leap
	// State is adjtimex's return value. TIME_ERROR hides the leap state
	// behind it; Leap then reads the STA_INS and STA_DEL flags.
	State TimeState
	// Status is the STA_* flags.
	Status Status
	// Offset is the offset the kernel's PLL is still correcting
	// (microseconds from the kernel, nanoseconds with STA_NANO).
	Offset time.Duration
	// FrequencyPPM is the frequency correction applied to the clock, in
	// parts per million (the kernel's value is scaled by 2^16).
	FrequencyPPM float64
	// EstError and MaxError are the estimated and maximum error the NTP
	// daemon last told the kernel (microseconds); the kernel adds 500 ppm
	// of elapsed time to MaxError every second until the daemon updates
	// it, up to 16 s, when it sets STA_UNSYNC.
	EstError, MaxError time.Duration
	// TAIOffset is TAI minus UTC, as the daemon set it (0 when it never
	// did).
	TAIOffset time.Duration
}

// LeapPending reports whether a leap second is armed or under way: one is
// to be inserted or deleted at the end of this UTC day, or 23:59:60 is
// being inserted now. A leap already taken (TIME_WAIT) is not pending.
func (k Kernel) LeapPending() bool {
	switch k.Leap {
	case LeapInsert, LeapDelete, LeapInProgress:
		return true
	}
	return false
}

// Leap is what the kernel holds of a leap second.
type Leap int

const (
	LeapNone       Leap = iota // no leap second armed
	LeapInsert                 // 23:59:60 is inserted at the end of the UTC day (STA_INS, TIME_INS)
	LeapDelete                 // 23:59:59 is skipped at the end of the UTC day (STA_DEL, TIME_DEL)
	LeapInProgress             // 23:59:60 is being inserted now (TIME_OOP)
	LeapTaken                  // a leap second was just taken; the flag is not yet cleared (TIME_WAIT)
)

var leapNames = [...]string{"none", "insert", "delete", "in progress", "taken"}

func (l Leap) String() string {
	if l >= 0 && int(l) < len(leapNames) {
		return leapNames[l]
	}
	return fmt.Sprintf("Leap(%d)", int(l))
}

// TimeState is adjtimex's return value: the kernel's leap-second state
// machine, or TIME_ERROR.
type TimeState int

const (
	TimeOK    TimeState = 0 // no leap second armed
	TimeIns   TimeState = 1 // insert a second at the end of the UTC day
	TimeDel   TimeState = 2 // delete a second at the end of the UTC day
	TimeOOP   TimeState = 3 // the inserted second is under way
	TimeWait  TimeState = 4 // a leap second was taken
	TimeError TimeState = 5 // the clock is unsynchronized or faulty
)

var stateNames = [...]string{"TIME_OK", "TIME_INS", "TIME_DEL", "TIME_OOP", "TIME_WAIT", "TIME_ERROR"}

func (s TimeState) String() string {
	if s >= 0 && int(s) < len(stateNames) {
		return stateNames[s]
	}
	return fmt.Sprintf("TimeState(%d)", int(s))
}

// Status is the kernel's STA_* flags of the clock discipline.
type Status uint32

// The STA_* flags of Linux's <linux/timex.h>. They are declared here rather
// than taken from x/sys so that Kernel is decoded, and tested, the same way
// on every system.
const (
	StaPLL       Status = 0x0001 // phase-locked loop updates enabled
	StaPPSFreq   Status = 0x0002 // PPS frequency discipline
	StaPPSTime   Status = 0x0004 // PPS time discipline
	StaFLL       Status = 0x0008 // frequency-locked loop mode
	StaIns       Status = 0x0010 // insert a leap second at the end of the UTC day
	StaDel       Status = 0x0020 // delete a leap second at the end of the UTC day
	StaUnsync    Status = 0x0040 // the clock is unsynchronized
	StaFreqHold  Status = 0x0080 // frequency held
	StaPPSSignal Status = 0x0100 // PPS signal present
	StaPPSJitter Status = 0x0200 // PPS jitter limit exceeded
	StaPPSWander Status = 0x0400 // PPS wander limit exceeded
	StaPPSError  Status = 0x0800 // PPS calibration error
	StaClockErr  Status = 0x1000 // clock hardware fault
	StaNano      Status = 0x2000 // offsets are in nanoseconds, not microseconds
	StaMode      Status = 0x4000 // FLL rather than PLL
	StaClk       Status = 0x8000 // clock source B rather than A
)

var statusNames = [...]string{
	"PLL", "PPSFREQ", "PPSTIME", "FLL", "INS", "DEL", "UNSYNC", "FREQHOLD",
	"PPSSIGNAL", "PPSJITTER", "PPSWANDER", "PPSERROR", "CLOCKERR", "NANO", "MODE", "CLK",
}

// Names lists the flags set, as STA_ names without the prefix ("PLL",
// "NANO"), in bit order; a bit Linux does not define is "0x…".
func (s Status) Names() []string {
	names := []string{}
	for bit := 0; bit < 32; bit++ {
		if s&(1<<bit) == 0 {
			continue
		}
		if bit < len(statusNames) {
			names = append(names, statusNames[bit])
		} else {
			names = append(names, fmt.Sprintf("%#x", uint32(1)<<bit))
		}
	}
	return names
}

func (s Status) String() string {
	if s == 0 {
		return "none"
	}
	return strings.Join(s.Names(), " ")
}

// timex is what Kernel is decoded from: the fields of Linux's struct timex
// it reads and adjtimex's return value, in widths every platform holds (the
// kernel's longs are 32 bits on 386).
type timex struct {
	state    int
	status   int32
	offset   int64 // µs, or ns with STA_NANO
	freq     int64 // ppm scaled by 2^16
	maxerror int64 // µs
	esterror int64 // µs
	tai      int32 // s
}

// kernelSource asks the kernel for its clock discipline without changing
// it. On Linux it is adjtimex with no mode bits; tests script its answer.
type kernelSource interface {
	readTimex() (timex, error)
}

// ReadKernel asks the kernel for its clock discipline. It only reads: the
// call sets no mode bit, so it changes nothing and needs no privilege.
func ReadKernel() Kernel { return readKernel(systemKernel{}) }

func readKernel(src kernelSource) Kernel {
	tx, err := src.readTimex()
	if err != nil {
		return Kernel{Reason: err.Error()}
	}
	return tx.kernel()
}

func (tx timex) kernel() Kernel {
	status := Status(uint32(tx.status))
	state := TimeState(tx.state)
	k := Kernel{
		Known:        true,
		Synchronized: state != TimeError && status&StaUnsync == 0,
		State:        state,
		Status:       status,
		FrequencyPPM: float64(tx.freq) / (1 << 16),
		EstError:     time.Duration(tx.esterror) * time.Microsecond,
		MaxError:     time.Duration(tx.maxerror) * time.Microsecond,
		TAIOffset:    time.Duration(tx.tai) * time.Second,
		Offset:       time.Duration(tx.offset) * time.Microsecond,
	}
	if status&StaNano != 0 {
		k.Offset = time.Duration(tx.offset)
	}
	switch state {
	case TimeIns:
		k.Leap = LeapInsert
	case TimeDel:
		k.Leap = LeapDelete
	case TimeOOP:
		k.Leap = LeapInProgress
	case TimeWait:
		k.Leap = LeapTaken
	default:
		// TIME_OK between the daemon arming a leap and the kernel's next
		// tick taking it up, or TIME_ERROR, which hides the state: the
		// flags say what is armed.
		switch {
		case status&StaIns != 0:
			k.Leap = LeapInsert
		case status&StaDel != 0:
			k.Leap = LeapDelete
		}
	}
	return k
}
