package faults

import (
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/snowlab/snowlab"
)

// analysis is what the clients received and the readiness polled, read
// after a scenario's load ended.
type analysis struct {
	callers []*caller
	ready   [][]sample // by replica
	layout  snowlab.Layout
}

// idAt is an ID as a client received it.
type idAt struct {
	id      snowlab.ID
	parts   snowlab.Parts
	replica int
	at      time.Time // when it arrived
}

// served lists every ID replica r served whose node id is node (-1: any),
// in no particular order.
func (a *analysis) servedBy(r, node int) []idAt {
	var out []idAt
	for _, c := range a.callers {
		for _, s := range c.served {
			if s.replica != r {
				continue
			}
			for _, v := range c.ids[s.first : s.first+s.n] {
				p := a.layout.Decode(v)
				if node < 0 || p.Node == node {
					out = append(out, idAt{v, p, r, s.at})
				}
			}
		}
	}
	return out
}

// lastTime is the latest embedded time of ids (zero when none), firstTime
// the earliest.
func lastTime(ids []idAt) time.Time {
	if len(ids) == 0 {
		return time.Time{}
	}
	return slices.MaxFunc(ids, byTime).parts.Time
}

func firstTime(ids []idAt) time.Time {
	if len(ids) == 0 {
		return time.Time{}
	}
	return slices.MinFunc(ids, byTime).parts.Time
}

func byTime(x, y idAt) int { return x.parts.Time.Compare(y.parts.Time) }

// maxExamples bounds the duplicates and order violations described.
const maxExamples = 5

// calls counts the clients' calls and checks every ID: unique across
// every client, and increasing per client and node id.
func (a *analysis) calls() callStats {
	st := callStats{Attempts: map[string]int{}}
	var all []snowlab.ID
	var failovers []time.Duration
	for ci, c := range a.callers {
		st.Calls += c.calls
		st.Served += len(c.served)
		st.Failed += c.failed
		for _, at := range c.attempts {
			st.Attempts[at.outcome]++
		}
		all = append(all, c.ids...)
		failovers = append(failovers, c.failovers...)
		last := map[int]snowlab.ID{}
		for _, v := range c.ids {
			node := a.layout.Decode(v).Node
			if prev, ok := last[node]; ok && v <= prev {
				st.OrderViolations++
				if len(st.Examples) < maxExamples {
					st.Examples = append(st.Examples, fmt.Sprintf("client %d: node %d's ID %d (%s) came after %d (%s)",
						ci, node, v, a.describe(v), prev, a.describe(prev)))
				}
			}
			last[node] = v
		}
	}
	st.IDs = len(all)
	slices.Sort(all)
	for i := 1; i < len(all); i++ {
		if all[i] == all[i-1] {
			st.Duplicates++
			if len(st.Examples) < maxExamples {
				st.Examples = append(st.Examples, fmt.Sprintf("ID %d (%s) received twice", all[i], a.describe(all[i])))
			}
		}
	}
	st.Failovers = len(failovers)
	if len(failovers) > 0 {
		slices.Sort(failovers)
		st.FailoverMax = failovers[len(failovers)-1]
		st.FailoverP99 = failovers[len(failovers)*99/100]
	}
	return st
}

func (a *analysis) describe(v snowlab.ID) string {
	p := a.layout.Decode(v)
	return fmt.Sprintf("node %d, %s, seq %d", p.Node, p.Time.UTC().Format("15:04:05.000"), p.Seq)
}

// replica is replica r's figures, its role and bound left to the
// scenario.
func (a *analysis) replica(r int, name string) replicaStat {
	st := replicaStat{Name: name}
	nodes := map[int]bool{}
	var tries []sample
	for _, c := range a.callers {
		for _, s := range c.served {
			if s.replica != r {
				continue
			}
			st.IDs += s.n
			for _, v := range c.ids[s.first : s.first+s.n] {
				nodes[a.layout.Decode(v).Node] = true
			}
		}
		for _, at := range c.attempts {
			if at.replica == r {
				tries = append(tries, sample{at.at, at.outcome == outcomeOK})
			}
		}
	}
	st.Nodes = slices.Sorted(maps.Keys(nodes))
	slices.SortFunc(tries, func(x, y sample) int { return x.at.Compare(y.at) })
	st.Refusing = longestFalse(tries)
	if r < len(a.ready) {
		st.NotReady = longestFalse(a.ready[r])
	}
	return st
}
