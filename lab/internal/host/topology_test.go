package host

import (
	"errors"
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

func TestPlace(t *testing.T) {
	top, err := ReadTopology("testdata/sys-2pkg-smt2")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		placement string
		g         int
		allowed   []int
		want      []int
		refusal   string // "" when it places
	}{
		{"same-cpu", 3, nil, []int{0, 0, 0}, ""},
		{"smt-siblings", 2, nil, []int{0, 4}, ""},
		{"smt-siblings", 4, nil, []int{0, 4, 1, 5}, ""},
		{"smt-siblings", 7, nil, nil, "only 6 sibling CPUs"}, // cpu 3 has none: its sibling 7 is offline
		{"smt-siblings", 1, nil, nil, "no sibling"},
		{"separate-cores", 2, nil, []int{0, 1}, ""},
		{"separate-cores", 3, nil, nil, "it has 2 allowed cores"},
		{"across-packages", 4, nil, []int{0, 2, 1, 3}, ""},
		{"across-packages", 2, []int{0, 1, 4, 5}, nil, "one package"},
		{"smt-siblings", 2, []int{0, 1}, nil, "no SMT"},
		{"sideways", 2, nil, nil, `unknown placement "sideways"`},
		{"same-cpu", 2, []int{9}, nil, "none of CPUs [9]"},
	} {
		got, err := Place(top, tc.placement, tc.g, tc.allowed)
		if tc.refusal == "" {
			if err != nil || !slices.Equal(got, tc.want) {
				t.Errorf("Place(%s, %d, %v) = %v, %v; want %v", tc.placement, tc.g, tc.allowed, got, err, tc.want)
			}
			continue
		}
		if !errors.Is(err, ErrCannotPlace) || !strings.Contains(err.Error(), tc.refusal) {
			t.Errorf("Place(%s, %d, %v) = %v, %v; want ErrCannotPlace saying %q", tc.placement, tc.g, tc.allowed, got, err, tc.refusal)
		}
	}
}

// TestPlaceOnThisKVMKind is the 2-vCPU VM the lab's CI runs on: no SMT
// siblings, one package, so only same-cpu and separate-cores place.
func TestPlaceOnThisKVMKind(t *testing.T) {
	kvm, err := ReadTopology("testdata/sys-kvm-2")
	if err != nil {
		t.Fatal(err)
	}
	var placed []string
	for _, p := range Placements {
		if _, err := Place(kvm, p, 2, nil); err == nil {
			placed = append(placed, p)
		} else if !errors.Is(err, ErrCannotPlace) {
			t.Errorf("%s: %v does not wrap ErrCannotPlace", p, err)
		}
	}
	if want := []string{"same-cpu", "separate-cores"}; !slices.Equal(placed, want) {
		t.Errorf("placed %v, want %v", placed, want)
	}
	if _, err := Place(nil, "same-cpu", 1, nil); !errors.Is(err, ErrCannotPlace) {
		t.Errorf("nil topology: %v", err)
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
