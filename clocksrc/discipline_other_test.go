//go:build !linux

package clocksrc

import (
	"runtime"
	"testing"

	"github.com/stretchr/testify/assert"
)

// Where adjtimex is not read, the kernel's discipline is unknown: no
// field is filled in by guesswork.
func TestReadKernelHere(t *testing.T) {
	k := ReadKernel()
	assert.Equal(t, Kernel{Reason: k.Reason}, k)
	assert.Contains(t, k.Reason, runtime.GOOS)
}
