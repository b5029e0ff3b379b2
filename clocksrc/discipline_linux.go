package clocksrc

import (
	"fmt"

	"golang.org/x/sys/unix"
)

// systemKernel reads Linux's adjtimex.
type systemKernel struct{}

func (systemKernel) readTimex() (timex, error) {
	// Modes 0: read only. A mode bit would ask the kernel to change its
	// clock, which needs CAP_SYS_TIME; none is ever set here.
	var tx unix.Timex
	state, err := unix.Adjtimex(&tx)
	if err != nil {
		return timex{}, fmt.Errorf("adjtimex: %w", err)
	}
	return timex{
		state:    state,
		status:   tx.Status,
		offset:   int64(tx.Offset),
		freq:     int64(tx.Freq),
		maxerror: int64(tx.Maxerror),
		esterror: int64(tx.Esterror),
		tai:      tx.Tai,
	}, nil
}
