package host

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/snowlab/snowlab/lab/result"
)

// ReadTopology reads the topology under root, the sysfs mount ("/sys" on
// a real host, a fake tree in tests): the online CPUs from
// devices/system/cpu/online, each one's core_id, physical_package_id and
// thread_siblings_list from its topology folder, and the NUMA nodes'
// cpulists from devices/system/node (absent on kernels without NUMA: one
// node). It fails naming the file it could not read or parse.
func ReadTopology(root string) (*result.Topology, error) {
	cpuDir := filepath.Join(root, "devices/system/cpu")
	online, err := readCPUList(filepath.Join(cpuDir, "online"))
	if err != nil {
		return nil, err
	}
	slices.Sort(online)
	nodes, err := readNodes(filepath.Join(root, "devices/system/node"))
	if err != nil {
		return nil, err
	}
	t := &result.Topology{SMT: 1}
	cores, pkgs, numa := map[[2]int]bool{}, map[int]bool{}, map[int]bool{}
	for _, c := range online {
		tc, err := readTopoCPU(filepath.Join(cpuDir, fmt.Sprintf("cpu%d", c), "topology"), c)
		if err != nil {
			return nil, err
		}
		tc.Node = nodes[c]
		t.CPUs = append(t.CPUs, tc)
		cores[[2]int{tc.Package, tc.Core}] = true
		pkgs[tc.Package], numa[tc.Node] = true, true
		t.SMT = max(t.SMT, len(tc.Siblings))
	}
	t.Cores, t.Packages, t.NUMANodes = len(cores), len(pkgs), len(numa)
	return t, nil
}

// readTopoCPU reads CPU c's topology folder dir.
func readTopoCPU(dir string, c int) (result.TopoCPU, error) {
	tc := result.TopoCPU{CPU: c}
	var err error
	if tc.Core, err = readInt(filepath.Join(dir, "core_id")); err != nil {
		return tc, err
	}
	if tc.Package, err = readInt(filepath.Join(dir, "physical_package_id")); err != nil {
		return tc, err
	}
	if tc.Siblings, err = readCPUList(filepath.Join(dir, "thread_siblings_list")); err != nil {
		return tc, err
	}
	slices.Sort(tc.Siblings)
	return tc, nil
}

// readNodes maps each CPU to its NUMA node from dir's node<N>/cpulist
// files; an absent dir is one node, 0, for every CPU.
func readNodes(dir string) (map[int]int, error) {
	m := map[int]int{}
	ents, err := os.ReadDir(dir)
	if os.IsNotExist(err) {
		return m, nil
	}
	if err != nil {
		return nil, err
	}
	for _, e := range ents {
		n, ok := strings.CutPrefix(e.Name(), "node")
		id, err := strconv.Atoi(n)
		if !ok || err != nil {
			continue
		}
		cpus, err := readCPUList(filepath.Join(dir, e.Name(), "cpulist"))
		if err != nil {
			return nil, err
		}
		for _, c := range cpus {
			m[c] = id
		}
	}
	return m, nil
}

// readValue reads the one value of the sysfs file at path with parse; an
// error parsing it names the file.
func readValue[T any](path string, parse func(string) (T, error)) (T, error) {
	var v T
	b, err := os.ReadFile(path)
	if err == nil {
		if v, err = parse(strings.TrimSpace(string(b))); err != nil {
			err = fmt.Errorf("%s: %w", path, err)
		}
	}
	return v, err
}

func readInt(path string) (int, error) { return readValue(path, strconv.Atoi) }

// readCPUList reads a kernel CPU list file; an empty one (a memory-only
// NUMA node) is no CPU.
func readCPUList(path string) ([]int, error) {
	return readValue(path, func(s string) ([]int, error) {
		if s == "" {
			return nil, nil
		}
		return ParseCPUList(s)
	})
}

// CPUShortfall says, in one line, when the host gives the process fewer
// CPUs than a run asks to run at once (want: GOMAXPROCS, or the
// goroutines a placement pins), and "" when it has enough: on fewer CPUs
// the run's threads take turns, and its figures are of that sharing, not
// of the contention it meant to measure (LMAX Disruptor's perf tests warn
// alike). cpus is what the process may run on (result.Host.Affinity, or
// LogicalCores where that is unknown).
func CPUShortfall(what string, want, cpus int) string {
	if cpus <= 0 || want <= cpus {
		return ""
	}
	return fmt.Sprintf("warning: %s asks for %d CPUs at once, this process may run on %d: its threads take turns", what, want, cpus)
}
