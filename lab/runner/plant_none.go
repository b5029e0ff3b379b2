//go:build !snowlab_plant_calls && !snowlab_plant_shared

package runner

// Plant names the slowdown this build plants: none.
const Plant = "none"

// plant is the planted work after every call: none in a clean build.
func plant(uint64, *uint64) {}

// extra are the planted extra calls of a batch: none in a clean build.
func extra(func() (uint64, error), int, *worker) error { return nil }
