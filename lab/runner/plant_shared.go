//go:build snowlab_plant_shared && !snowlab_plant_calls

package runner

import "sync/atomic"

// Plant names the slowdown this build plants: every ID stored in one
// cache line that every goroutine writes.
const Plant = "shared"

// plant stores id in the goroutine's word of the shared line, atomically:
// on amd64 an exchange with memory, one instruction (two with the
// reload of slot after the call, as a plain store), which the instruction
// gate passes; it waits for the line, which above one goroutine moves
// between cores on every ID. A plain store into the line cost next to
// nothing beside a call of some 30 ns in some runs (the line moved while
// the next call ran) and doubled atomicgen's cost at G=2 in others: it
// depends on which host cores the VM's CPUs are on.
func plant(id uint64, slot *uint64) { atomic.StoreUint64(slot, id) }

// extra are the planted extra calls: none in this build.
func extra(func() (uint64, error), int, *worker) error { return nil }
