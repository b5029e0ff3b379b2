package mutexgen_test

import (
	"testing"

	"github.com/snowlab/snowlab"
	"github.com/snowlab/snowlab/internal/conformance"
	"github.com/snowlab/snowlab/mutexgen"
)

func TestConformance(t *testing.T) {
	conformance.Run(t, conformance.Suite{New: func(c snowlab.Config) (snowlab.Generator, error) {
		return mutexgen.New(c)
	}})
}
