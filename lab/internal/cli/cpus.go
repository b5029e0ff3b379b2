package cli

import (
	"fmt"
	"runtime"
	"slices"

	"github.com/snowlab/snowlab/lab/internal/host"
	"github.com/snowlab/snowlab/lab/internal/limit"
)

// maxProcs bounds -gomaxprocs: the per-P limit holds at most that many
// words.
const maxProcs = limit.MaxShards

// bindCPUs holds loadgen to the CPUs and the GOMAXPROCS a run asks for
// (-cpus, -gomaxprocs): it binds this process to the CPUs of spec (""
// leaves them; a list as host.ParseCPUList reads it) and sets GOMAXPROCS
// to procs, or to their count when procs is 0; restore puts both back,
// for a caller that goes on (a test binary). An error names -cpus and
// spec.
func bindCPUs(spec string, procs int) (restore func(), err error) {
	var undo []func()
	restore = func() {
		for _, f := range slices.Backward(undo) {
			f()
		}
	}
	if spec != "" {
		cpus, err := host.ParseCPUList(spec)
		if err == nil {
			if was := host.Affinity(); len(was) > 0 {
				undo = append(undo, func() { _ = host.SetAffinity(was) })
			}
			err = host.SetAffinity(cpus)
		}
		if err != nil {
			restore()
			return nil, fmt.Errorf("-cpus %q: %v", spec, err)
		}
		if procs == 0 {
			// Set, not left to the runtime, which would follow the
			// new affinity at a moment of its choosing, mid-run.
			procs = min(len(cpus), maxProcs)
		}
	}
	if procs > 0 {
		was := runtime.GOMAXPROCS(procs)
		undo = append(undo, func() { runtime.GOMAXPROCS(was) })
	}
	return restore, nil
}
