// Command own is the runner over snowlab's own generators that loadgen ab
// builds from each revision it compares: atomicgen, mutexgen and
// shardedgen (a node per shard, as many shards as GOMAXPROCS), each under
// the Monotonic policy, whose common path is what NextID costs (a Strict
// generator on a fast CPU waits for the next tick, and would time the
// clock). loadgen copies it with package runner into a git worktree of
// the revision, so it uses only the library's public API, which every
// revision has.
package main

import (
	"runtime"

	"github.com/snowlab/snowlab"
	"github.com/snowlab/snowlab/atomicgen"
	"github.com/snowlab/snowlab/clocksrc"
	"github.com/snowlab/snowlab/lab/runner"
	"github.com/snowlab/snowlab/mutexgen"
	"github.com/snowlab/snowlab/shardedgen"
)

func main() {
	runner.Main(
		subject("atomicgen/monotonic", true, func(c snowlab.Config) (snowlab.Generator, error) { return atomicgen.New(c) }),
		subject("mutexgen/monotonic", true, func(c snowlab.Config) (snowlab.Generator, error) { return mutexgen.New(c) }),
		// A goroutine can move between Ps, and so between shards: each
		// shard's IDs increase, not each goroutine's.
		subject("shardedgen/node-per-shard/monotonic", false, func(c snowlab.Config) (snowlab.Generator, error) {
			return shardedgen.New(shardedgen.Config{Config: c, Shards: runtime.GOMAXPROCS(0), Mode: shardedgen.NodePerShard})
		}),
	)
}

// subject is a generator made by newGen under Monotonic on node 1: on the
// default clock for the timed slices, on a clock fixed at 2026-01-01 for
// count mode (Monotonic then borrows the next tick when a tick's
// sequence is spent, the same path on every run).
func subject(name string, increasing bool, newGen func(snowlab.Config) (snowlab.Generator, error)) runner.Subject {
	on := func(clock clocksrc.Clock) func() (func() (uint64, error), error) {
		return func() (func() (uint64, error), error) {
			g, err := newGen(snowlab.Config{Node: 1, Policy: snowlab.Monotonic, Clock: clock})
			if err != nil {
				return nil, err
			}
			return func() (uint64, error) {
				id, err := g.NextID()
				return uint64(id), err
			}, nil
		}
	}
	return runner.Subject{Name: name, Increasing: increasing, New: on(nil), Fixed: on(clocksrc.FixedMillis(1767225600000))}
}
