package clocksrc_test

import (
	"fmt"
	"time"

	"github.com/snowlab/snowlab/clocksrc"
)

// A scripted clock replays a rewind deterministically: the third read goes
// back 3 ms, and after the script the clock moves on 1 ms per read.
func ExampleScriptedMillis() {
	clock := clocksrc.ScriptedMillis(1000, 1002, 999, 1003)
	for range 6 {
		fmt.Println(clock.UnixNano() / int64(time.Millisecond))
	}
	// Output:
	// 1000
	// 1002
	// 999
	// 1003
	// 1004
	// 1005
}

func ExampleFixedMillis() {
	clock := clocksrc.FixedMillis(1_700_000_000_000)
	fmt.Println(clock.UnixNano())
	fmt.Println(time.Unix(0, clock.UnixNano()).UTC().Format(time.RFC3339Nano))
	// Output:
	// 1700000000000000000
	// 2023-11-14T22:13:20Z
}

// Func turns any function into a clock, here one that retreats 1 µs on
// every read.
func ExampleFunc() {
	ns := int64(5_000)
	clock := clocksrc.Func(func() int64 {
		ns -= 1_000
		return ns
	})
	for range 3 {
		fmt.Println(clock.UnixNano())
	}
	// Output:
	// 4000
	// 3000
	// 2000
}

// ReadDiscipline tells whether the kernel vouches for the clock before a
// service trusts it, and what a Default clock has had to correct. What it
// prints depends on the host.
func ExampleReadDiscipline() {
	clock := clocksrc.Default()
	d := clocksrc.ReadDiscipline(clock)
	k := d.Kernel
	switch {
	case !k.Known:
		fmt.Println("the kernel does not say:", k.Reason)
	case !k.Synchronized:
		fmt.Println("unsynchronized: nothing corrects this clock; maximum error", k.MaxError)
	case k.LeapPending():
		fmt.Println("a leap second is armed:", k.Leap)
	default:
		fmt.Println("synchronized, maximum error", k.MaxError)
	}
	fmt.Println("backward steps:", d.Default.BackwardSteps, "slew left:", d.Default.SlewLeft)
}
