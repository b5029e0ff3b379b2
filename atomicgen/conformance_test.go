package atomicgen_test

import (
	"testing"

	"github.com/snowlab/snowlab"
	"github.com/snowlab/snowlab/atomicgen"
	"github.com/snowlab/snowlab/internal/conformance"
)

func TestConformance(t *testing.T) {
	conformance.Run(t, conformance.Suite{New: func(c snowlab.Config) (snowlab.Generator, error) {
		return atomicgen.New(c)
	}})
}

// TestConformanceCASOnly runs the suite on the compare-and-swap fast path
// that layouts without room for fetch-add use.
func TestConformanceCASOnly(t *testing.T) {
	conformance.Run(t, conformance.Suite{New: func(c snowlab.Config) (snowlab.Generator, error) {
		return atomicgen.NewCASOnly(c)
	}})
}
