package instr

import (
	"bytes"
	"context"
	"fmt"
	"os/exec"
	"regexp"
	"strconv"
	"strings"

	"golang.org/x/sync/errgroup"
)

// Runner counts a path's instructions under valgrind's cachegrind.
//
// Cachegrind, not callgrind or lackey: it counts every instruction a
// process executes (I refs) with the cache simulation off, the cheapest
// of the three (lackey calls a helper per instruction; callgrind builds a
// call graph); the gate needs the total only, since the difference of two
// counts removes start-up. The target runs with GOMAXPROCS 1 and GOGC off:
// one P, so no other goroutine's work lands in the count, and no
// collector, whose work would depend on the heap's history.
type Runner struct {
	Valgrind string   // the valgrind program (PATH is searched)
	Target   string   // the instrpath binary, or a lab/runner program
	Args     []string // more arguments for the target (a planted runner's -plant-calls)
	Workers  int      // paths counted at once (1 when 0)
	// Tries is how many times each count is taken, the least kept (1 when
	// 0). With one P and no collector, what varies between two runs of
	// one build is only added work: the runtime's sysmon thread, which
	// valgrind serialises with the program's, wakes by the wall clock, so
	// a run slowed by a busy machine counts more. Beside loadgen hog one
	// build counted 30.7 and 31.2 instructions per call of a one-line
	// generator (+1.7%, over the 1.5% tolerance); the least of three
	// counts is the quietest run's.
	Tries int
}

// env is the target's environment on top of the inherited one.
var env = []string{"GOMAXPROCS=1", "GOGC=off"}

var irefs = regexp.MustCompile(`I\s+refs:\s+([0-9,]+)`)

// count is the instructions one run of path with n calls executes, whole
// program, start-up included: the least of r.Tries runs.
func (r Runner) count(ctx context.Context, path string, n, steps int) (uint64, error) {
	args := []string{"--tool=cachegrind", "--cache-sim=no", "--cachegrind-out-file=/dev/null", r.Target,
		"-path", path, "-n", strconv.Itoa(n)}
	if steps > 0 {
		args = append(args, "-inject-steps", strconv.Itoa(steps))
	}
	var low uint64
	for i := range max(1, r.Tries) {
		cmd := exec.CommandContext(ctx, r.Valgrind, append(args, r.Args...)...)
		cmd.Env = append(cmd.Environ(), env...)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		if err := cmd.Run(); err != nil {
			return 0, fmt.Errorf("%w: %s -n %d: %v: %s", ErrValgrind, path, n, err, LastLine(stderr.String()))
		}
		m := irefs.FindStringSubmatch(stderr.String())
		if m == nil {
			return 0, fmt.Errorf("%w: %s: no \"I refs\" line in cachegrind's output", ErrValgrind, path)
		}
		v, err := strconv.ParseUint(strings.ReplaceAll(m[1], ",", ""), 10, 64)
		if err != nil {
			return 0, fmt.Errorf("%w: %s: I refs %q: %v", ErrValgrind, path, m[1], err)
		}
		if i == 0 || v < low {
			low = v
		}
	}
	return low, nil
}

// LastLine is s's last line, spaces trimmed: a failed command's reason on
// its stderr.
func LastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return lines[len(lines)-1]
}

// PerCall is path's instructions per call: (I(N2) - I(N1)) / (N2 - N1)
// with N1 = calls/8 and N2 = N1 + calls, so that start-up, set-up and
// exit, the same in both runs, cancel.
func (r Runner) PerCall(ctx context.Context, path string, calls, steps int) (float64, error) {
	n1 := calls / 8
	n2 := n1 + calls
	i1, err := r.count(ctx, path, n1, steps)
	if err != nil {
		return 0, err
	}
	i2, err := r.count(ctx, path, n2, steps)
	if err != nil {
		return 0, err
	}
	if i2 <= i1 {
		return 0, fmt.Errorf("%w: %s: %d calls counted %d instructions, %d calls %d", ErrValgrind, path, n2, i2, n1, i1)
	}
	return float64(i2-i1) / float64(n2-n1), nil
}

// Job is one path to count, with its planted steps (0: none).
type Job struct {
	Path  Path
	Steps int
}

// Measure counts every job, r.Workers at a time, and returns the counts in
// the jobs' order.
func (r Runner) Measure(ctx context.Context, jobs []Job) ([]PathCount, error) {
	out := make([]PathCount, len(jobs))
	var g errgroup.Group
	g.SetLimit(max(1, r.Workers))
	for i, j := range jobs {
		g.Go(func() error {
			pc, err := r.PerCall(ctx, j.Path.Name, j.Path.Calls, j.Steps)
			out[i] = PathCount{Name: j.Path.Name, Calls: j.Path.Calls, PerCall: pc, InjectSteps: j.Steps}
			return err
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	return out, nil
}
