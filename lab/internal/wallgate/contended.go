package wallgate

import (
	"fmt"
	"math"
	"strings"

	"github.com/snowlab/snowlab/lab/compare"
	"github.com/snowlab/snowlab/lab/internal/stats"
	"github.com/snowlab/snowlab/lab/result"
)

// ContendedG is the goroutine count the contended costs are gated at: the
// check suite's largest (it saturates at 1 and 2 on a 2-core CI machine).
const ContendedG = 2

// contended are the costs under contention: each non-strict generator's
// time per ID over its limit subject's at ContendedG, both sides
// contending alike (atomicgen and limit/clock+add on one shared word;
// shardedgen and limit/per-p+add each on the calling P's), per repeat in IDs
// per CPU-second where both have them. mutexgen is left out, as
// lab/compare leaves it out at G=1: how a lock is handed over differs by
// CPU.
func contended(run *result.Run) []ratio {
	sat := map[string]*result.SaturateResult{}
	for i := range run.Saturate {
		r := &run.Saturate[i]
		if r.Goroutines == ContendedG && sat[r.Subject] == nil {
			sat[r.Subject] = r
		}
	}
	var out []ratio
	for _, s := range run.Subjects {
		if s.Peer || s.Physical || s.Strict || s.Limit == "" || strings.HasPrefix(s.Name, "mutexgen/") {
			continue
		}
		gen, lim := sat[s.Name], sat[s.Limit]
		if gen == nil || lim == nil {
			continue
		}
		r := compare.Ratio{Name: fmt.Sprintf("%s ns/ID over %s @G=%d", s.Name, s.Limit, ContendedG), LowerIsBetter: true}
		num, den := lim.Samples, gen.Samples
		if len(lim.CPUSamples) == len(num) && len(gen.CPUSamples) == len(den) && len(num) > 0 {
			num, den = lim.CPUSamples, gen.CPUSamples
		}
		if len(num) == 0 || len(num) != len(den) {
			continue
		}
		for i := range num {
			if den[i] > 0 {
				r.Samples = append(r.Samples, num[i]/den[i])
			}
		}
		if len(r.Samples) == 0 {
			continue
		}
		r.Value = stats.Median(r.Samples)
		if !math.IsNaN(r.Value) {
			out = append(out, ratio{Ratio: r, contention: true})
		}
	}
	return out
}
