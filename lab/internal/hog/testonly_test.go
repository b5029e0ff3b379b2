package hog

// What only this package's tests call, kept out of the build.

// exited is closed when the child has ended and been waited for.
func (h *Hog) exited() <-chan struct{} { return h.done }

// pid is the child's process id.
func (h *Hog) pid() int { return h.cmd.Process.Pid }
