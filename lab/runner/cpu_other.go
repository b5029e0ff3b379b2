//go:build !linux

package runner

// threadCPU is -1 off Linux: no CPU time is read, and loadgen ab decides
// on wall time.
func threadCPU() int64 { return -1 }

// processCPU is -1 off Linux.
func processCPU() int64 { return -1 }

// pin does nothing off Linux.
func pin(int) (restore func()) { return func() {} }
