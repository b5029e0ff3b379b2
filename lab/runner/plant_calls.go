//go:build snowlab_plant_calls && !snowlab_plant_shared

package runner

// Plant names the slowdown this build plants: more calls than IDs.
const Plant = "calls"

// plant is nothing after each call: the calls plant makes its extra calls
// ahead of a batch (extra).
func plant(uint64, *uint64) {}

// extra makes the batch's share of extra calls, plantCalls of every 1,024
// of its n calls, the remainder carried to the next batch, in a loop of
// their own before the batch: the loop the batch runs is the clean
// build's, and the work added is the very work measured, so that it costs
// the same share of instructions and of time.
func extra(next func() (uint64, error), n int, w *worker) error {
	var k int
	k, w.carry = extraCalls(w.carry, n, plantCalls)
	for i := 0; i < k; i++ {
		if _, err := next(); err != nil {
			return err
		}
	}
	return nil
}
