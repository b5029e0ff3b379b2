package idservice_test

import (
	"math"
	"testing"
	"time"

	"github.com/snowlab/snowlab"
	"github.com/snowlab/snowlab/snowidd/idservice"
)

// TestMaxBatch checks the two claims the limit rests on: a count fits
// NextIDsRequest.count, a uint32, and a full batch is about 25 ms of one
// node id's sequence space under the default layout, so that it is
// answered in milliseconds rather than by waiting out the clock.
func TestMaxBatch(t *testing.T) {
	if idservice.MaxBatch > math.MaxUint32 {
		t.Fatalf("MaxBatch %d does not fit NextIDsRequest.count, a uint32", idservice.MaxBatch)
	}
	l := snowlab.DefaultLayout
	span := time.Duration(idservice.MaxBatch/(1<<l.SeqBits)) * l.Unit
	if span < 20*time.Millisecond || span > 30*time.Millisecond {
		t.Fatalf("MaxBatch %d is %v of one node id's sequence space, want about 25ms", idservice.MaxBatch, span)
	}
}
