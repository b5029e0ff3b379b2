package contention

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/snowlab/snowlab/lab/internal/host"
)

func TestPlace(t *testing.T) {
	top, err := host.ReadTopology("../../host/testdata/sys-2pkg-smt2")
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
		got, err := place(top, tc.placement, tc.g, tc.allowed)
		if tc.refusal == "" {
			if err != nil || !slices.Equal(got, tc.want) {
				t.Errorf("place(%s, %d, %v) = %v, %v; want %v", tc.placement, tc.g, tc.allowed, got, err, tc.want)
			}
			continue
		}
		if !errors.Is(err, errCannotPlace) || !strings.Contains(err.Error(), tc.refusal) {
			t.Errorf("place(%s, %d, %v) = %v, %v; want errCannotPlace saying %q", tc.placement, tc.g, tc.allowed, got, err, tc.refusal)
		}
	}
}

// TestPlaceOnThisKVMKind is the 2-vCPU VM the lab's CI runs on: no SMT
// siblings, one package, so only same-cpu and separate-cores place.
func TestPlaceOnThisKVMKind(t *testing.T) {
	kvm, err := host.ReadTopology("../../host/testdata/sys-kvm-2")
	if err != nil {
		t.Fatal(err)
	}
	var placed []string
	for _, p := range placements {
		if _, err := place(kvm, p, 2, nil); err == nil {
			placed = append(placed, p)
		} else if !errors.Is(err, errCannotPlace) {
			t.Errorf("%s: %v does not wrap errCannotPlace", p, err)
		}
	}
	if want := []string{"same-cpu", "separate-cores"}; !slices.Equal(placed, want) {
		t.Errorf("placed %v, want %v", placed, want)
	}
	if _, err := place(nil, "same-cpu", 1, nil); !errors.Is(err, errCannotPlace) {
		t.Errorf("nil topology: %v", err)
	}
}
