package contention

import (
	"errors"
	"fmt"
	"slices"

	"github.com/snowlab/snowlab/lab/result"
)

// errCannotPlace is wrapped by place's error when the host has no CPUs
// for a placement: no SMT siblings, one package, too few cores.
var errCannotPlace = errors.New("cannot place")

// placements are the placements place knows, closest first: every
// goroutine on one CPU (they take turns, so a cache line never moves
// between cores), on SMT siblings of one core (one L1 between them), on
// separate cores of one package (a line moves through the shared L3),
// and spread across packages (a line crosses the interconnect).
var placements = []string{"same-cpu", "smt-siblings", "separate-cores", "across-packages"}

// place chooses the CPU each of g goroutines is pinned to for placement
// (one of placements), from the CPUs in allowed (all of t's when empty).
// Where the host cannot give that placement it returns an error wrapping
// errCannotPlace that says what the host lacks, so a sweep can say what it
// could not do on this host instead of measuring something else under
// the placement's name.
func place(t *result.Topology, placement string, g int, allowed []int) ([]int, error) {
	if t == nil || len(t.CPUs) == 0 {
		return nil, fmt.Errorf("%w: topology unknown", errCannotPlace)
	}
	if g < 1 {
		return nil, fmt.Errorf("%w: %d goroutines", errCannotPlace, g)
	}
	cores := coresOf(t, allowed)
	if len(cores) == 0 {
		return nil, fmt.Errorf("%w: none of CPUs %v is online", errCannotPlace, allowed)
	}
	switch placement {
	case "same-cpu":
		return slices.Repeat([]int{cores[0].cpus[0]}, g), nil
	case "smt-siblings":
		return placeSiblings(cores, g)
	case "separate-cores":
		return placeCores(cores, g)
	case "across-packages":
		return placePackages(cores, g)
	}
	return nil, fmt.Errorf("%w: unknown placement %q (want one of %v)", errCannotPlace, placement, placements)
}

// core is one core's allowed CPUs.
type core struct {
	pkg  int
	cpus []int
}

// coresOf groups the allowed online CPUs by core, in CPU order.
func coresOf(t *result.Topology, allowed []int) []core {
	var out []core
	idx := map[[2]int]int{}
	for _, c := range t.CPUs {
		if len(allowed) > 0 && !slices.Contains(allowed, c.CPU) {
			continue
		}
		k := [2]int{c.Package, c.Core}
		i, ok := idx[k]
		if !ok {
			i = len(out)
			idx[k] = i
			out = append(out, core{pkg: c.Package})
		}
		out[i].cpus = append(out[i].cpus, c.CPU)
	}
	return out
}

// placeSiblings fills the SMT siblings of as few cores as it can (of one
// package where it can), so that every goroutine shares its core with
// another.
func placeSiblings(cores []core, g int) ([]int, error) {
	var cpus []int
	for _, c := range cores {
		if len(c.cpus) > 1 {
			cpus = append(cpus, c.cpus...)
		}
	}
	switch {
	case len(cpus) == 0:
		return nil, fmt.Errorf("%w on SMT siblings: no core has two allowed hardware threads (no SMT on this host)", errCannotPlace)
	case g < 2:
		return nil, fmt.Errorf("%w on SMT siblings: 1 goroutine has no sibling to share with", errCannotPlace)
	case len(cpus) < g:
		return nil, fmt.Errorf("%w %d goroutines on SMT siblings: only %d sibling CPUs", errCannotPlace, g, len(cpus))
	}
	return cpus[:g], nil
}

// placeCores puts each goroutine on a core of its own, one thread per
// core, all in the package with the most cores.
func placeCores(cores []core, g int) ([]int, error) {
	byPkg := map[int][]int{}
	best := cores[0].pkg
	for _, c := range cores {
		byPkg[c.pkg] = append(byPkg[c.pkg], c.cpus[0])
		if len(byPkg[c.pkg]) > len(byPkg[best]) {
			best = c.pkg
		}
	}
	if n := len(byPkg[best]); n < g {
		return nil, fmt.Errorf("%w %d goroutines on separate cores of one package: it has %d allowed cores", errCannotPlace, g, n)
	}
	return byPkg[best][:g], nil
}

// placePackages deals the goroutines round-robin over the packages, one
// core each, so that neighbours in the list sit in different packages.
func placePackages(cores []core, g int) ([]int, error) {
	var pkgs []int
	byPkg := map[int][]int{}
	for _, c := range cores {
		if _, ok := byPkg[c.pkg]; !ok {
			pkgs = append(pkgs, c.pkg)
		}
		byPkg[c.pkg] = append(byPkg[c.pkg], c.cpus[0])
	}
	if len(pkgs) < 2 {
		return nil, fmt.Errorf("%w across packages: the allowed CPUs are in one package", errCannotPlace)
	}
	var cpus []int
	for i := 0; len(cpus) < g; i++ {
		took := false
		for _, p := range pkgs {
			if i < len(byPkg[p]) && len(cpus) < g {
				cpus, took = append(cpus, byPkg[p][i]), true
			}
		}
		if !took {
			return nil, fmt.Errorf("%w %d goroutines across packages: %d allowed cores", errCannotPlace, g, len(cpus))
		}
	}
	return cpus, nil
}
