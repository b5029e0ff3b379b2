package host

import (
	"fmt"
	"io/fs"
	"testing"
	"testing/fstest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/snowlab/snowlab/lab/result"
)

// procStat is a /proc/stat of two CPUs whose "cpu" line holds times.
func procStat(times string) string {
	return "cpu  " + times + " 0 0\ncpu0 1 2 3 4 5 6 7 8 0 0\ncpu1 1 2 3 4 5 6 7 8 0 0\nintr 12345\nctxt 999\n"
}

// pidStat is a /proc/PID/stat line with the CPU times given, in ticks.
func pidStat(pid, ppid int, name string, utime, stime, cutime, cstime int64) string {
	return fmt.Sprintf("%d (%s) S %d %d %d 0 -1 4194560 100 0 0 0 %d %d %d %d 20 0 5 0 100 0", pid, name, ppid, pid, pid,
		utime, stime, cutime, cstime)
}

// procFS is a scripted /proc: loadavg, stat, self and the processes given
// (pid -> stat line); self is pid 100.
func procFS(loadavg, stat, self string, procs map[int]string) fstest.MapFS {
	m := fstest.MapFS{
		"loadavg":   {Data: []byte(loadavg)},
		"stat":      {Data: []byte(stat)},
		"self/stat": {Data: []byte(self)},
		"100/stat":  {Data: []byte(self)},
		"sys/x":     {Data: []byte("not a process")},
	}
	for pid, s := range procs {
		m[fmt.Sprintf("%d/stat", pid)] = &fstest.MapFile{Data: []byte(s)}
	}
	return m
}

// avg is a /proc/loadavg reading.
func avg(one, five, fifteen float64, runnable, tasks int) result.LoadAvg {
	return result.LoadAvg{One: one, Five: five, Fifteen: fifteen, Runnable: runnable, Tasks: tasks}
}

// phases is a /proc that reads as start until it is switched to end.
type phases struct{ cur fs.FS }

func (p *phases) Open(name string) (fs.File, error) { return p.cur.Open(name) }

func TestLoadMeter(t *testing.T) {
	// 2 CPUs for 10 s: 2000 ticks between the readings.
	start := procFS("0.30 0.40 0.50 1/200 4000\n", procStat("1000 0 500 10000 0 0 0 0"),
		pidStat(100, 1, "loadgen", 100, 50, 0, 0),
		map[int]string{
			201: pidStat(201, 100, "snowidd", 10, 0, 0, 0),
			202: pidStat(202, 201, "a (b) c", 0, 0, 0, 0),
			300: pidStat(300, 1, "other", 5000, 0, 0, 0),
		})
	for _, tc := range []struct {
		name string
		end  fstest.MapFS
		want *result.Load
	}{
		{"a server and its child are the run's", procFS("2.10 0.90 0.60 3/210 4100\n",
			procStat("2200 0 800 10400 0 20 30 50"),
			pidStat(100, 1, "loadgen", 1000, 150, 0, 0),
			map[int]string{
				201: pidStat(201, 100, "snowidd", 160, 0, 0, 0),
				202: pidStat(202, 201, "a (b) c", 40, 10, 0, 0),
				300: pidStat(300, 1, "other", 5300, 0, 0, 0),
			}),
			&result.Load{CPUs: 2, Seconds: 10, Own: 0.6, Other: 0.15, Steal: 0.025,
				Start: avg(0.3, 0.4, 0.5, 1, 200), End: avg(2.1, 0.9, 0.6, 3, 210)}},
		{"a child that exited and was waited for is the run's still", procFS("2.10 0.90 0.60 3/210 4100\n",
			procStat("2200 0 800 10400 0 20 30 50"),
			pidStat(100, 1, "loadgen", 1000, 150, 210, 0),
			map[int]string{300: pidStat(300, 1, "other", 5300, 0, 0, 0)}),
			&result.Load{CPUs: 2, Seconds: 10, Own: 0.6, Other: 0.15, Steal: 0.025,
				Start: avg(0.3, 0.4, 0.5, 1, 200), End: avg(2.1, 0.9, 0.6, 3, 210)}},
		{"idle but for the run", procFS("1.00 0.50 0.50 2/200 4001\n",
			procStat("1900 0 600 11000 0 0 0 0"),
			pidStat(100, 1, "loadgen", 1000, 150, 0, 0),
			map[int]string{201: pidStat(201, 100, "snowidd", 10, 0, 0, 0)}),
			&result.Load{CPUs: 2, Seconds: 10, Own: 0.5, Other: 0, Steal: 0,
				Start: avg(0.3, 0.4, 0.5, 1, 200), End: avg(1, 0.5, 0.5, 2, 200)}},
		{"clock ticks rounded past the kernel's count: no share below zero", procFS("1.00 0.50 0.50 2/200 4001\n",
			procStat("1900 0 590 11010 0 0 0 0"),
			pidStat(100, 1, "loadgen", 1000, 150, 0, 0),
			map[int]string{201: pidStat(201, 100, "snowidd", 10, 0, 0, 0)}),
			&result.Load{CPUs: 2, Seconds: 10, Own: 0.5, Other: 0, Steal: 0,
				Start: avg(0.3, 0.4, 0.5, 1, 200), End: avg(1, 0.5, 0.5, 2, 200)}},
		{"no time passed", start, &result.Load{Unknown: "unknown: /proc/stat counted no CPU time between the readings"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := &phases{cur: start}
			m := startLoad(p)
			p.cur = tc.end
			got := m.Stop()
			require.NotNil(t, got)
			assert.Equal(t, tc.want.Unknown, got.Unknown)
			assert.Equal(t, tc.want.CPUs, got.CPUs)
			assert.Equal(t, tc.want.Start, got.Start)
			assert.Equal(t, tc.want.End, got.End)
			assert.InDelta(t, tc.want.Seconds, got.Seconds, 1e-9)
			assert.InDelta(t, tc.want.Own, got.Own, 1e-9, "own")
			assert.InDelta(t, tc.want.Other, got.Other, 1e-9, "other")
			assert.InDelta(t, tc.want.Steal, got.Steal, 1e-9, "steal")
		})
	}
}

// TestLoadMeterUnreadable: a /proc that cannot be read gives a load that
// says why, never a guess.
func TestLoadMeterUnreadable(t *testing.T) {
	good := procFS("0.30 0.40 0.50 1/200 4000\n", procStat("1000 0 500 10000 0 0 0 0"), pidStat(100, 1, "x", 1, 1, 0, 0), nil)
	without := func(name string) fstest.MapFS {
		m := fstest.MapFS{}
		for k, v := range good {
			if k != name {
				m[k] = v
			}
		}
		return m
	}
	with := func(name, data string) fstest.MapFS {
		m := without(name)
		m[name] = &fstest.MapFile{Data: []byte(data)}
		return m
	}
	for _, tc := range []struct {
		name string
		fsys fs.FS
		want string // in Unknown
	}{
		{"no loadavg", without("loadavg"), "loadavg"},
		{"loadavg short", with("loadavg", "0.1 0.2\n"), `/proc/loadavg: "0.1 0.2\n" is not a load average line`},
		{"loadavg not numbers", with("loadavg", "a b c 1/2 3\n"), "/proc/loadavg"},
		{"loadavg without tasks", with("loadavg", "0.1 0.2 0.3 4 5\n"), "/proc/loadavg"},
		{"no stat", without("stat"), "stat"},
		{"stat without cpu line", with("stat", "cpu0 1 2 3 4 5 6 7 8\nintr 1\n"), "/proc/stat: no cpu line"},
		{"stat without cpuN lines", with("stat", "cpu  1 2 3 4 5 6 7 8\n"), "/proc/stat: no cpuN line"},
		{"stat short", with("stat", "cpu  1 2 3\ncpu0 1 2 3\n"), "want at least 7 CPU times"},
		{"stat negative", with("stat", procStat("1 2 -3 4 5 6 7 8")), `"-3" is not a count of clock ticks`},
		{"no self", without("self/stat"), "self/stat"},
		{"self not a stat line", with("self/stat", "100 loadgen S 1"), "/proc/self/stat: \"100 loadgen S 1\" is not a process's stat line"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := startLoad(tc.fsys).Stop()
			assert.Contains(t, got.Unknown, tc.want)
			assert.True(t, len(got.Unknown) > 0 && got.Unknown[:8] == "unknown:", "%q", got.Unknown)
			assert.False(t, got.Recorded())
			assert.Zero(t, got.Taken())
			assert.Equal(t, "load "+got.Unknown, got.String())
		})
	}
	// A reading that fails only at the end.
	p := &phases{cur: good}
	m := startLoad(p)
	p.cur = without("stat")
	assert.Contains(t, m.Stop().Unknown, "stat")
}

func TestParseProcStatOldKernel(t *testing.T) {
	// Before Linux 2.6.11 the cpu line has seven times, no steal.
	c, cpus, err := parseProcStat("cpu  10 20 30 40 50 60 70\ncpu0 10 20 30 40 50 60 70\n")
	require.NoError(t, err)
	assert.Equal(t, 1, cpus)
	assert.Equal(t, cpuTimes{10, 20, 30, 40, 50, 60, 70, 0}, c)
}

func TestParseProcTimes(t *testing.T) {
	for _, tc := range []struct {
		name, stat string
		want       procTimes
		ok         bool
	}{
		{"plain", pidStat(42, 7, "snowidd", 250, 37, 3, 4), procTimes{42, 7, 287, 7}, true},
		{"name with spaces and parens", pidStat(9, 1, "a) (b", 1, 2, 3, 4), procTimes{9, 1, 3, 7}, true},
		{"short", "7 (x) R 1 7 7 0 -1 0 0 0 0 0 3 4", procTimes{}, false},
		{"no name", "7 x R 1 7 7 0 -1 0 0 0 0 0 3 4 0 0", procTimes{}, false},
		{"pid not a number", "x (y) R 1 7 7 0 -1 0 0 0 0 0 3 4 0 0", procTimes{}, false},
		{"negative", "7 (x) R 1 7 7 0 -1 0 0 0 0 0 3 4 -1 0", procTimes{}, false},
	} {
		got, ok := parseProcTimes(tc.stat)
		assert.Equal(t, tc.ok, ok, tc.name)
		assert.Equal(t, tc.want, got, tc.name)
	}
}

func TestLoadDifference(t *testing.T) {
	quiet := &result.Load{CPUs: 2, Own: 0.95, Other: 0.03}
	for _, tc := range []struct {
		name string
		a, b *result.Load
		want string
	}{
		{"both quiet", quiet, &result.Load{CPUs: 2, Own: 0.9, Other: 0.08}, ""},
		{"exactly the limit apart", quiet, &result.Load{CPUs: 2, Other: 0.13}, ""},
		{"other processes took 38 points more", quiet, &result.Load{CPUs: 2, Own: 0.55, Other: 0.41},
			"other processes and steal took 3% vs 41% of the CPU time"},
		{"steal", &result.Load{CPUs: 2, Other: 0.02, Steal: 0.20}, quiet,
			"other processes and steal took 22% vs 3% of the CPU time; steal 20% vs 0%"},
		{"busy both alike", &result.Load{CPUs: 2, Other: 0.45}, &result.Load{CPUs: 2, Other: 0.40}, ""},
		{"one not recorded (an older lab)", nil, &result.Load{CPUs: 2, Other: 0.9}, ""},
		{"one unknown", &result.Load{Unknown: "unknown: no /proc to read on darwin"}, &result.Load{CPUs: 2, Other: 0.9}, ""},
	} {
		assert.Equal(t, tc.want, LoadDifference(tc.a, tc.b), tc.name)
		assert.Equal(t, tc.want == "", LoadDifference(tc.b, tc.a) == "", tc.name+": the rule is symmetric")
	}
}

func TestStartLoad(t *testing.T) {
	// The host's real load is not asserted on (it is whatever the machine
	// does); only that the meter gives an answer.
	l := StartLoad().Stop()
	require.NotNil(t, l)
	t.Logf("this test's load: %s", l)
}

func TestBusy(t *testing.T) {
	for _, tc := range []struct {
		l    *result.Load
		busy bool
	}{
		{nil, false},
		{&result.Load{Unknown: "unknown: no /proc to read on darwin"}, false},
		{&result.Load{CPUs: 2, Seconds: 72, Own: 0.96, Other: 0.003}, false},
		{&result.Load{CPUs: 2, Other: 0.10}, false},
		{&result.Load{CPUs: 1, Other: 0.08, Steal: 0.03}, true},
	} {
		assert.Equal(t, tc.busy, Busy(tc.l), "%+v", tc.l)
	}
}
