package host

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/snowlab/snowlab/lab/result"
)

// clockTick is the unit of /proc's CPU times: USER_HZ, 100 on every Linux
// architecture Go runs on.
const clockTick = 10 * time.Millisecond

// loadMeter measures a run's Load: StartLoad reads the host as the run
// begins, Stop as it ends.
type loadMeter struct {
	fsys  fs.FS // /proc; nil where there is none to read
	start loadSample
	err   error
}

// loadSample is one reading of /proc.
type loadSample struct {
	avg  result.LoadAvg
	cpu  cpuTimes
	cpus int
	own  int64 // clock ticks this process and its descendants have used
}

// cpuTimes are the fields of /proc/stat's "cpu" line that Load reads, in
// clock ticks summed over every CPU.
type cpuTimes struct {
	user, nice, system, idle, iowait, irq, softirq, steal int64
}

func (c cpuTimes) total() int64 {
	return c.user + c.nice + c.system + c.idle + c.iowait + c.irq + c.softirq + c.steal
}

// procBusy is the time processes and kernel threads ran: user and system
// time. (Guest time is inside user time already.)
func (c cpuTimes) procBusy() int64 { return c.user + c.nice + c.system }

// StartLoad begins measuring the host's load over a run. Off Linux the
// Load it gives is Unknown.
func StartLoad() *loadMeter {
	if runtime.GOOS != "linux" {
		return &loadMeter{err: fmt.Errorf("no /proc to read on %s", runtime.GOOS)}
	}
	return startLoad(os.DirFS("/proc"))
}

func startLoad(fsys fs.FS) *loadMeter {
	m := &loadMeter{fsys: fsys}
	m.start, m.err = readLoad(fsys)
	return m
}

// Stop reads the host again and returns the load over the run: shares of
// the CPU time between the two readings, and the load average at each. A
// reading that failed gives a Load whose Unknown says why.
func (m *loadMeter) Stop() *result.Load {
	if m.err != nil {
		return &result.Load{Unknown: "unknown: " + m.err.Error()}
	}
	end, err := readLoad(m.fsys)
	if err != nil {
		return &result.Load{Unknown: "unknown: " + err.Error()}
	}
	return loadBetween(m.start, end)
}

// loadBetween is the load from reading a to reading b.
func loadBetween(a, b loadSample) *result.Load {
	l := &result.Load{CPUs: b.cpus, Start: a.avg, End: b.avg}
	total := b.cpu.total() - a.cpu.total()
	if total <= 0 {
		return &result.Load{Unknown: "unknown: /proc/stat counted no CPU time between the readings"}
	}
	share := func(ticks int64) float64 { return min(max(float64(ticks)/float64(total), 0), 1) }
	own := b.own - a.own
	l.Own = share(own)
	// What the kernel counts as run by processes, less this run's, is
	// everyone else's; clock-tick rounding can make it a tick below zero.
	l.Other = share(b.cpu.procBusy() - a.cpu.procBusy() - own)
	l.Steal = share(b.cpu.steal - a.cpu.steal)
	if b.cpus > 0 {
		l.Seconds = float64(total) * clockTick.Seconds() / float64(b.cpus)
	}
	return l
}

// readLoad reads /proc/loadavg, /proc/stat and the CPU time of this
// process and its descendants from fsys, a /proc.
func readLoad(fsys fs.FS) (loadSample, error) {
	var s loadSample
	b, err := fs.ReadFile(fsys, "loadavg")
	if err != nil {
		return s, err
	}
	if s.avg, err = parseLoadAvg(string(b)); err != nil {
		return s, err
	}
	if b, err = fs.ReadFile(fsys, "stat"); err != nil {
		return s, err
	}
	if s.cpu, s.cpus, err = parseProcStat(string(b)); err != nil {
		return s, err
	}
	s.own, err = ownTicks(fsys)
	return s, err
}

// parseLoadAvg reads /proc/loadavg: "0.52 0.58 0.59 2/312 12345".
func parseLoadAvg(text string) (result.LoadAvg, error) {
	var a result.LoadAvg
	_, err := fmt.Sscanf(text, "%g %g %g %d/%d", &a.One, &a.Five, &a.Fifteen, &a.Runnable, &a.Tasks)
	if err != nil || a.One < 0 || a.Five < 0 || a.Fifteen < 0 || a.Runnable < 0 || a.Tasks < 0 {
		return result.LoadAvg{}, fmt.Errorf("/proc/loadavg: %q is not a load average line", text)
	}
	return a, nil
}

// parseProcStat reads the "cpu" line of /proc/stat (its first eight
// fields: user, nice, system, idle, iowait, irq, softirq, steal; kernels
// before 2.6.11 lack steal, which is then 0) and counts the "cpuN" lines.
func parseProcStat(text string) (cpuTimes, int, error) {
	var c cpuTimes
	found, cpus := false, 0
	for _, line := range strings.Split(text, "\n") {
		f := strings.Fields(line)
		if len(f) == 0 || !strings.HasPrefix(f[0], "cpu") {
			continue
		}
		if f[0] != "cpu" {
			if _, err := strconv.Atoi(f[0][3:]); err == nil {
				cpus++
			}
			continue
		}
		if len(f) < 8 {
			return c, 0, fmt.Errorf("/proc/stat: %q: want at least 7 CPU times", line)
		}
		var v [8]int64
		for i := range v {
			if i+1 >= len(f) {
				break
			}
			n, err := strconv.ParseInt(f[i+1], 10, 64)
			if err != nil || n < 0 {
				return c, 0, fmt.Errorf("/proc/stat: %q: %q is not a count of clock ticks", line, f[i+1])
			}
			v[i] = n
		}
		c = cpuTimes{v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7]}
		found = true
	}
	if !found {
		return c, 0, errors.New("/proc/stat: no cpu line")
	}
	if cpus == 0 {
		return c, 0, errors.New("/proc/stat: no cpuN line")
	}
	return c, cpus, nil
}

// procTimes are what a /proc/PID/stat line says of a process's CPU time.
type procTimes struct {
	pid, ppid int
	// self is utime+stime, children cutime+cstime (children that
	// exited and were waited for), in clock ticks.
	self, children int64
}

// statFields splits a /proc/PID/stat line into its pid and the fields
// after the command name, from field 3 (the state): the name, field 2, is
// in parentheses and may hold spaces and parentheses itself.
func statFields(stat string) (pid string, rest []string, ok bool) {
	open := strings.IndexByte(stat, '(')
	end := strings.LastIndexByte(stat, ')')
	if open < 0 || end < open {
		return "", nil, false
	}
	return strings.TrimSpace(stat[:open]), strings.Fields(stat[end+1:]), true
}

// parseProcTimes reads pid, ppid (field 4) and utime, stime, cutime and
// cstime (fields 14 to 17) of a /proc/PID/stat line.
func parseProcTimes(stat string) (procTimes, bool) {
	pidText, f, ok := statFields(stat)
	if !ok || len(f) < 15 {
		return procTimes{}, false
	}
	var p procTimes
	var errs [6]error
	var t [4]int64
	p.pid, errs[0] = strconv.Atoi(pidText)
	p.ppid, errs[1] = strconv.Atoi(f[1])
	for i := range t {
		t[i], errs[2+i] = strconv.ParseInt(f[11+i], 10, 64)
	}
	if errors.Join(errs[:]...) != nil || t[0] < 0 || t[1] < 0 || t[2] < 0 || t[3] < 0 {
		return procTimes{}, false
	}
	p.self, p.children = t[0]+t[1], t[2]+t[3]
	return p, true
}

// ownTicks is the CPU time, in clock ticks, of this process ("self" in
// fsys) and of every process descended from it (a server the lab started
// is the run's, not another process's), with the children each has
// waited for. A process that exits between the directory listing and its
// reading is passed over.
func ownTicks(fsys fs.FS) (int64, error) {
	b, err := fs.ReadFile(fsys, "self/stat")
	if err != nil {
		return 0, err
	}
	self, ok := parseProcTimes(string(b))
	if !ok {
		return 0, fmt.Errorf("/proc/self/stat: %q is not a process's stat line", string(b))
	}
	entries, err := fs.ReadDir(fsys, ".")
	if err != nil {
		return 0, err
	}
	children := map[int][]procTimes{}
	for _, e := range entries {
		if _, err := strconv.Atoi(e.Name()); err != nil {
			continue
		}
		b, err := fs.ReadFile(fsys, e.Name()+"/stat")
		if err != nil {
			continue
		}
		if p, ok := parseProcTimes(string(b)); ok && p.pid != self.pid {
			children[p.ppid] = append(children[p.ppid], p)
		}
	}
	sum := int64(0)
	for queue := []procTimes{self}; len(queue) > 0; queue = queue[1:] {
		p := queue[0]
		sum += p.self + p.children
		queue = append(queue, children[p.pid]...)
		delete(children, p.pid) // a pid is visited once, whatever its parent says
	}
	return sum, nil
}

// ProcessCPU is the CPU time process pid has used, user and system, read
// from /proc in clock ticks of 10 ms; ok is false when it cannot be read
// (also where there is no /proc). It is how the lab reads a server it
// started, which getrusage cannot until the server has exited.
func ProcessCPU(pid int) (cpu time.Duration, ok bool) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, false
	}
	p, ok := parseProcTimes(string(b))
	return time.Duration(p.self) * clockTick, ok
}
