//go:build snowlab_plant_shared && !snowlab_plant_calls

package runner

import "fmt"

// Plant names the slowdown this build plants: every ID stored in one
// cache line that every goroutine writes.
const Plant = "shared"

// plant stores id in the goroutine's word of the shared line: one store,
// and above one goroutine a cache line that moves between cores on every
// ID.
func plant(id uint64, slot *uint64) { *slot = id }

// extra are the planted extra calls: none in this build.
func extra(func() (uint64, error), int, *worker) error { return nil }

func plantCallsNow() int { return 0 }

func setPlantCalls(q int) error {
	if q != 0 {
		return fmt.Errorf("%w: -plant-calls %d: this runner plants the shared line, not extra calls (snowlab_plant_calls)", errUsage, q)
	}
	return nil
}
