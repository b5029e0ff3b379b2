package perfevent

import (
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"
	"syscall"
	"unsafe"

	"github.com/aclements/go-perfevent/events"
	"golang.org/x/sys/unix"

	"github.com/snowlab/snowlab/lab/internal/host"
	"github.com/snowlab/snowlab/lab/result"
)

// Whole-process counting.
//
// go-perfevent's perf.Open only targets the calling goroutine
// (perf.TargetThisGoroutine: pid=0, cpu=-1, with the goroutine locked to its
// thread), and its Target interface is sealed, so it cannot name another
// thread. The lab's workloads run on every thread of the process, so
// counting only the caller would miss almost everything. perf_event_open has
// no "whole process" target either: pid names one task (thread), and a
// thread-group id names only the main thread. Per-CPU counting (pid=-1)
// sees every process on the CPU and needs more privilege.
//
// So Counter takes the event definitions from go-perfevent's events
// package (their SetAttrs fills the perf_event_attr) and opens them itself
// with unix.PerfEventOpen once per thread listed in /proc/self/task, each
// with inherit=1 and not as a group (the kernel does not support reading
// inherited counters as a group on every version). With inherit, a thread
// that an attached thread creates later (the Go runtime starts new Ms
// from whichever M needs one) gets a child counter whose counts the
// kernel adds into its parent's when it is read, also after the child
// exits. So the counters cover every thread that existed when Open
// listed them plus every thread created after that. Threads listed again
// later are not attached a second time: they descend from attached threads,
// and attaching them directly would count them twice. The one gap is a
// thread created, in the microseconds between the listing and the attach,
// by a thread not yet attached; Open lists the threads again after
// attaching and reports how many appeared in that window, and every thread
// that could not be attached, in Coverage and in the Source of Stop's result.
//
// Each counter's value is scaled by its time enabled over its time running,
// as perf does when hardware counters are multiplexed.

// counterEvent is one event Counter counts.
type counterEvent struct {
	name string // key in result.Events.PerID
	ev   events.Event
}

var hardwareEvents = []counterEvent{
	{"cycles", events.EventCPUCycles},
	{"instructions", events.EventInstructions},
	{"cache-misses", events.EventCacheMisses},
	{"branch-misses", events.EventBranchesMisses},
}

var softwareEvents = []counterEvent{
	{"task-clock-ns", events.EventTaskClock},
	{"context-switches", events.EventContextSwitches},
	{"cpu-migrations", events.EventCPUMigrations},
	{"page-faults", events.EventPageFaults},
}

// Counter counts hardware events, or software events where the
// hardware ones cannot be opened, over every thread of the process. Open it
// with Open, bracket what to measure with Start and Stop (as often
// as wanted), and Close it when done. Its methods are safe for concurrent
// use.
type Counter struct {
	mu sync.Mutex

	source   string         // "hardware", "software" or "unavailable: <reason>"
	userOnly bool           // kernel-mode counts excluded (not permitted)
	events   []counterEvent // those of the set that opened

	// fds[i][j] is event j on the i'th attached thread.
	fds      [][]int
	tids     []int
	failed   []string // threads that could not be attached, with why
	appeared int      // threads that appeared while attaching

	base    [][]perfValue // readings at Start
	running bool
	closed  bool
}

// perfValue is one read of a counter opened with read_format
// TOTAL_TIME_ENABLED|TOTAL_TIME_RUNNING.
type perfValue struct {
	value, enabled, running uint64
	ok                      bool // false if the read failed
}

// Open opens event counters on every thread of the process. It
// never fails: it tries the hardware events cycles, instructions,
// cache-misses and branch-misses; if cycles cannot be opened it falls back
// to the software events task-clock, context-switches, cpu-migrations and
// page-faults; if those cannot be opened either, the counters' Source says
// why. Counting may need privileges (perf_event_paranoid); where the kernel
// refuses kernel-mode counting, user-space only is counted and noted.
func Open() *Counter {
	c := &Counter{}
	hwErr := c.attach(hardwareEvents)
	if hwErr == nil {
		c.source = "hardware"
		return c
	}
	swErr := c.attach(softwareEvents)
	if swErr == nil {
		c.source = "software"
		return c
	}
	c.source = fmt.Sprintf("unavailable: hardware: %v; software: %v", hwErr, swErr)
	return c
}

// attach opens set on every thread. It fails if the set's first event
// cannot be opened on the calling thread, or no thread could be attached.
func (c *Counter) attach(set []counterEvent) error {
	usable, userOnly, err := probe(set)
	if err != nil {
		return err
	}
	tids, err := host.Threads()
	if err != nil {
		return err
	}
	fds, attached, failed := openThreads(tids, usable, userOnly)
	if len(fds) == 0 {
		if len(failed) > 0 {
			return fmt.Errorf("no thread could be attached: %s", failed[0])
		}
		return errors.New("no thread could be attached")
	}
	c.events, c.userOnly = usable, userOnly
	c.fds, c.tids, c.failed, c.appeared = fds, attached, failed, appearedSince(tids)
	return nil
}

// probe opens set's events on the calling thread (any thread of ours
// would do) to learn which of them this kernel and PMU can count, and
// whether kernel-mode counting is allowed. It returns the usable events
// (Stop reports no value for the others) and whether only user space is
// counted; it fails if the first event cannot be opened at all.
func probe(set []counterEvent) (usable []counterEvent, userOnly bool, _ error) {
	self := unix.Gettid()
	for i, e := range set {
		fd, err := openEvent(e.ev, self, userOnly)
		if err != nil && i == 0 && (errors.Is(err, unix.EACCES) || errors.Is(err, unix.EPERM)) {
			// Kernel-mode counting may be what is not permitted.
			fd2, err2 := openEvent(e.ev, self, true)
			if err2 == nil {
				fd, err, userOnly = fd2, nil, true
			} else if !errors.Is(err2, err) {
				return nil, false, fmt.Errorf("%s: %w; user-space only: %w", e.name, explain(err), explain(err2))
			}
		}
		if err != nil {
			if i == 0 {
				return nil, false, fmt.Errorf("%s: %w", e.name, explain(err))
			}
			continue
		}
		unix.Close(fd)
		usable = append(usable, e)
	}
	return usable, userOnly, nil
}

// openThreads opens every usable event on each of tids. A thread is
// attached with all of the events or none: one that exited meanwhile is
// skipped, one that refused is listed in failed.
func openThreads(tids []int, usable []counterEvent, userOnly bool) (fds [][]int, attached []int, failed []string) {
	for _, tid := range tids {
		row, err := openRow(tid, usable, userOnly)
		if err != nil {
			if errors.Is(err, unix.ESRCH) {
				continue // the thread exited: nothing to count
			}
			failed = append(failed, fmt.Sprintf("tid %d: %v", tid, err))
			continue
		}
		fds = append(fds, row)
		attached = append(attached, tid)
	}
	return fds, attached, failed
}

// openRow opens each of usable on thread tid, closing those it opened if
// one fails.
func openRow(tid int, usable []counterEvent, userOnly bool) ([]int, error) {
	row := make([]int, 0, len(usable))
	for _, e := range usable {
		fd, err := openEvent(e.ev, tid, userOnly)
		if err != nil {
			for _, fd := range row {
				unix.Close(fd)
			}
			return nil, fmt.Errorf("%s: %w", e.name, explain(err))
		}
		row = append(row, fd)
	}
	return row, nil
}

// appearedSince counts the threads that are not among tids (sorted, as
// host.Threads gives them): they appeared while attach ran, and are counted
// only if an already attached thread created them. It is 0 if the threads
// cannot be listed again.
func appearedSince(tids []int) int {
	again, err := host.Threads()
	if err != nil {
		return 0
	}
	appeared := 0
	for _, t := range again {
		if _, found := slices.BinarySearch(tids, t); !found {
			appeared++
		}
	}
	return appeared
}

// openEvent opens ev on thread tid, disabled, inherited by the threads tid
// creates, reading value, time enabled and time running.
func openEvent(ev events.Event, tid int, userOnly bool) (int, error) {
	attr := unix.PerfEventAttr{}
	attr.Size = uint32(unsafe.Sizeof(attr))
	if err := ev.SetAttrs(&attr); err != nil {
		return -1, err
	}
	attr.Read_format = unix.PERF_FORMAT_TOTAL_TIME_ENABLED | unix.PERF_FORMAT_TOTAL_TIME_RUNNING
	attr.Bits |= unix.PerfBitDisabled | unix.PerfBitInherit
	if userOnly {
		attr.Bits |= unix.PerfBitExcludeKernel | unix.PerfBitExcludeHv
	}
	return unix.PerfEventOpen(&attr, tid, -1, -1, unix.PERF_FLAG_FD_CLOEXEC)
}

// explain adds what usually causes a perf_event_open error.
func explain(err error) error {
	switch {
	case errors.Is(err, unix.ENOENT), errors.Is(err, unix.EOPNOTSUPP):
		return fmt.Errorf("%w (no such event on this machine: no PMU, e.g. a VM without PMU passthrough)", err)
	case errors.Is(err, unix.ENOSYS):
		return fmt.Errorf("%w (kernel without perf events)", err)
	case errors.Is(err, unix.EACCES), errors.Is(err, unix.EPERM):
		p, rerr := os.ReadFile("/proc/sys/kernel/perf_event_paranoid")
		if rerr != nil {
			return fmt.Errorf("%w (not permitted; perf_event_paranoid unreadable: %v)", err, rerr)
		}
		return fmt.Errorf("%w (not permitted: perf_event_paranoid=%s; run as root or with CAP_PERFMON, or lower it)",
			err, strings.TrimSpace(string(p)))
	}
	return err
}

// resultSource is the Source for a result: the plain source, with a note
// in parentheses when the counts are incomplete. c.mu is held.
func (c *Counter) resultSource(unreadable int) string {
	var notes []string
	if unreadable > 0 {
		notes = append(notes, fmt.Sprintf("%d thread counters unreadable", unreadable))
	}
	if len(c.failed) > 0 {
		notes = append(notes, fmt.Sprintf("%d of %d threads not attached: %s",
			len(c.failed), len(c.failed)+len(c.tids), c.failed[0]))
	}
	if c.appeared > 0 {
		notes = append(notes, fmt.Sprintf("%d threads appeared while attaching and may be uncounted", c.appeared))
	}
	if c.userOnly {
		notes = append(notes, "user-space only")
	}
	if len(notes) == 0 {
		return c.source
	}
	return c.source + " (partial: " + strings.Join(notes, "; ") + ")"
}

// Start starts counting. Calling it while counting restarts the count from
// now (so a Start whose Stop was skipped, say by an error return, does not
// leak into the next measurement).
func (c *Counter) Start() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed || c.fds == nil {
		return
	}
	// Normally the counters are disabled here, so these readings are exact.
	c.base = c.readAll()
	if c.running {
		return
	}
	// ENABLE on a counter also enables its inherited children.
	c.each(func(fd int) { unix.IoctlSetInt(fd, unix.PERF_EVENT_IOC_ENABLE, 0) })
	c.running = true
}

// Stop stops counting and returns what was counted since Start, divided by
// ids (ids <= 0 gives the totals). PerID is keyed by event name: "cycles",
// "instructions", "cache-misses", "branch-misses" for hardware;
// "task-clock-ns", "context-switches", "cpu-migrations", "page-faults" for
// software. Source is "hardware" or "software", followed by a parenthesised
// "partial: ..." note if some thread could not be attached or only
// user-space could be counted, or "unavailable: <reason>" with no values.
func (c *Counter) Stop(ids int) result.Events {
	c.mu.Lock()
	defer c.mu.Unlock()
	switch {
	case c.fds == nil:
		return result.Events{Source: c.source}
	case c.closed:
		return result.Events{Source: "unavailable: counters closed"}
	case !c.running:
		return result.Events{Source: "unavailable: Stop without Start"}
	}
	c.each(func(fd int) { unix.IoctlSetInt(fd, unix.PERF_EVENT_IOC_DISABLE, 0) })
	c.running = false
	now := c.readAll()

	div := float64(ids)
	if ids <= 0 {
		div = 1
	}
	per := make(map[string]float64, len(c.events))
	unreadable := 0
	for j, e := range c.events {
		var total float64
		for i := range c.fds {
			if !c.base[i][j].ok || !now[i][j].ok {
				unreadable++
			}
			total += scaledDelta(c.base[i][j], now[i][j])
		}
		per[e.name] = total / div
	}
	return result.Events{Source: c.resultSource(unreadable), PerID: per}
}

// scaledDelta is the count between two readings, scaled up by the time the
// counter was enabled over the time it was running on the hardware.
func scaledDelta(a, b perfValue) float64 {
	if !a.ok || !b.ok || b.value < a.value {
		return 0
	}
	v := float64(b.value - a.value)
	en, run := b.enabled-a.enabled, b.running-a.running
	if run == 0 || en == run {
		return v
	}
	return v * float64(en) / float64(run)
}

// readAll reads every counter; an unreadable one is marked not ok.
// c.mu is held.
func (c *Counter) readAll() [][]perfValue {
	out := make([][]perfValue, len(c.fds))
	var buf [24]byte
	for i, row := range c.fds {
		out[i] = make([]perfValue, len(row))
		for j, fd := range row {
			n, err := unix.Read(fd, buf[:])
			for errors.Is(err, syscall.EINTR) {
				n, err = unix.Read(fd, buf[:])
			}
			if err != nil || n != len(buf) {
				continue
			}
			out[i][j] = perfValue{
				value:   binary.NativeEndian.Uint64(buf[0:]),
				enabled: binary.NativeEndian.Uint64(buf[8:]),
				running: binary.NativeEndian.Uint64(buf[16:]),
				ok:      true,
			}
		}
	}
	return out
}

// Close releases the counters. Stop after Close reports them unavailable.
func (c *Counter) Close() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return
	}
	c.closed = true
	c.running = false
	c.each(func(fd int) { unix.Close(fd) })
}

// each calls f with every counter's file descriptor. c.mu is held.
func (c *Counter) each(f func(fd int)) {
	for _, row := range c.fds {
		for _, fd := range row {
			f(fd)
		}
	}
}

// Probe says whether a hardware cycles counter opens on this thread:
// "hardware", "software only: <why hardware failed>", or
// "unavailable: <why>"; "(user-space)" follows "hardware" or "software
// only" where only user-space counting is permitted.
func Probe() string {
	_, hwUser, hw := probe(hardwareEvents[:1])
	if hw == nil {
		if hwUser {
			return "hardware (user-space)"
		}
		return "hardware"
	}
	_, swUser, sw := probe(softwareEvents[:1])
	switch {
	case sw != nil:
		return fmt.Sprintf("unavailable: %v; %v", hw, sw)
	case swUser:
		return "software only (user-space): " + hw.Error()
	}
	return "software only: " + hw.Error()
}
