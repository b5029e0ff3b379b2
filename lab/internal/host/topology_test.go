package host

import (
	"slices"
	"strings"
	"testing"
)

func TestReadTopology(t *testing.T) {
	top, err := ReadTopology("testdata/sys-2pkg-smt2")
	if err != nil {
		t.Fatal(err)
	}
	// cpu7 is offline: its sibling is listed, it is not.
	if len(top.CPUs) != 7 || top.Cores != 4 || top.Packages != 2 || top.NUMANodes != 2 || top.SMT != 2 {
		t.Fatalf("got %s (%d CPUs, smt %d), want 7 CPUs, 4 cores, SMT 2, 2 packages, 2 NUMA nodes", top, len(top.CPUs), top.SMT)
	}
	c6 := top.CPUs[6]
	if c6.CPU != 6 || c6.Core != 0 || c6.Package != 1 || c6.Node != 1 || !slices.Equal(c6.Siblings, []int{2, 6}) {
		t.Errorf("cpu6 = %+v, want core 0, package 1, node 1, siblings [2 6]", c6)
	}
	if got, want := top.String(), "7 CPUs, 4 cores (SMT 2), 2 package(s), 2 NUMA node(s)"; got != want {
		t.Errorf("String() = %q, want %q", got, want)
	}

	kvm, err := ReadTopology("testdata/sys-kvm-2")
	if err != nil {
		t.Fatal(err)
	}
	// No node folder: one NUMA node.
	if got, want := kvm.String(), "2 CPUs, 2 cores (no SMT), 1 package(s), 1 NUMA node(s)"; got != want {
		t.Errorf("String() = %q, want %q", got, want)
	}
}

func TestReadTopologyNamesTheBadFile(t *testing.T) {
	for _, root := range []string{"testdata/sys-broken", "testdata/absent"} {
		_, err := ReadTopology(root)
		if err == nil {
			t.Fatalf("%s: no error", root)
		}
		if !strings.Contains(err.Error(), root) {
			t.Errorf("%s: error %q does not name the file", root, err)
		}
	}
}

func TestCPUShortfall(t *testing.T) {
	if s := CPUShortfall("GOMAXPROCS", 2, 2); s != "" {
		t.Errorf("enough CPUs: %q", s)
	}
	if s := CPUShortfall("GOMAXPROCS", 4, 0); s != "" {
		t.Errorf("CPUs unknown: %q", s)
	}
	if s := CPUShortfall("GOMAXPROCS", 16, 2); !strings.Contains(s, "16 CPUs") || !strings.Contains(s, "run on 2") {
		t.Errorf("16 on 2: %q", s)
	}
}
