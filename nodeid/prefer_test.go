package nodeid_test

import (
	"context"
	"errors"
	"testing"

	"github.com/snowlab/snowlab"
	"github.com/snowlab/snowlab/nodeid"
)

// TestPreferredOrdinal: two holders given one preferred node id (two pods
// with one StatefulSet ordinal, as after a force-delete) get different
// ones: the first the preferred id, the second the lowest free one.
// Each holder has a Dir value of its own on one folder, as two processes.
func TestPreferredOrdinal(t *testing.T) {
	dir := t.TempDir()
	opts := nodeid.Options{Preferred: true, Prefer: 5}
	ctx := context.Background()
	a, err := nodeid.Acquire(ctx, nodeid.Dir(dir), opts)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Release(ctx)
	b, err := nodeid.Acquire(ctx, nodeid.Dir(dir), opts)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Release(ctx)
	if a.Node() != 5 {
		t.Errorf("the first holder preferring node id 5 got %d", a.Node())
	}
	if b.Node() == a.Node() || b.Node() != 0 {
		t.Errorf("the second holder preferring node id 5 got %d (the first holds %d); want 0, the lowest free", b.Node(), a.Node())
	}
}

// TestPreferredOutOfRange: a preference the layout cannot hold is refused.
func TestPreferredOutOfRange(t *testing.T) {
	layout := snowlab.DefaultLayout
	layout.NodeBits, layout.SeqBits = 2, 20
	for _, p := range []int{-1, 4} {
		_, err := nodeid.Acquire(context.Background(), nodeid.Dir(t.TempDir()), nodeid.Options{Layout: layout, Preferred: true, Prefer: p})
		if !errors.Is(err, snowlab.ErrInvalidConfig) && !errors.Is(err, snowlab.ErrInvalidNode) {
			t.Errorf("Prefer %d with node ids 0..3: %v, want ErrInvalidConfig or ErrInvalidNode", p, err)
		}
	}
}
