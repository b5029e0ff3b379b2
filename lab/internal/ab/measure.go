package ab

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os/exec"
	"slices"
	"strings"

	"github.com/snowlab/snowlab/lab/internal/instr"
	"github.com/snowlab/snowlab/lab/runner"
)

// arm is one build measured: a runner binary and its arguments.
type arm struct {
	Name string   `json:"name"`
	Bin  string   `json:"-"`
	Args []string `json:"args,omitempty"`
	// Plant is the plant the runner must report ("none", "spin",
	// "shared"): a binary built otherwise is refused.
	Plant string `json:"plant"`
}

// Workload is one subject minting on G goroutines.
type Workload struct {
	Subject string `json:"subject"`
	G       int    `json:"g"`
}

func (w Workload) String() string { return fmt.Sprintf("%s G=%d", w.Subject, w.G) }

// cell is a workload and the arms measured on it, by index into
// Schedule.Arms: every arm of a cell is measured once a round, one right
// after another, in a random order.
type cell struct {
	Workload Workload
	Arms     []int
}

// sample is one measured slice.
type sample struct {
	Round int
	Arm   int
	Cell  int
	runner.Answer
}

// perID is the slice's cost per ID: its median batch's where the runner
// timed batches (up to GOMAXPROCS goroutines), else CPU nanoseconds where
// the runner read them (cpu true), else wall nanoseconds.
func (s sample) perID(cpu bool) float64 {
	v := s.WallNS
	switch {
	case s.BatchNS > 0:
		v = s.BatchNS
	case cpu:
		v = s.CPUNS
	}
	if s.IDs <= 0 || v <= 0 {
		return 0
	}
	return float64(v) / float64(s.IDs)
}

// measurement is the Config's rounds of its slices, each round a fresh
// process of every arm measuring every cell once, in a random order
// (from the Seed), and what they measured.
type measurement struct {
	Config
	Arms    []arm
	Cells   []cell
	Samples []sample
	// CPU is whether every runner read CPU times.
	CPU bool
	// GOMAXPROCS is the runners' (all equal).
	GOMAXPROCS int
	// Failures are correctness failures: errors, order violations,
	// duplicates, each naming its arm and workload.
	Failures []string
}

// hello starts arm's runner once and returns its greeting: loadgen sizes
// the workloads from its GOMAXPROCS before measuring.
func hello(ctx context.Context, arm arm) (runner.Hello, error) {
	p, err := start(ctx, arm)
	if err != nil {
		return runner.Hello{}, err
	}
	return p.hello, p.stop()
}

// measure runs the rounds.
func (m *measurement) measure(ctx context.Context) error {
	rng := rand.New(rand.NewPCG(m.Seed, m.Seed^0x9e3779b97f4a7c15))
	for r := range m.Rounds {
		m.Progress(fmt.Sprintf("ab: round %d of %d", r+1, m.Rounds))
		if err := m.round(ctx, r, rng); err != nil {
			return err
		}
	}
	return nil
}

// round is one round: a fresh process per arm, every cell once.
func (m *measurement) round(ctx context.Context, r int, rng *rand.Rand) error {
	procs := make([]*proc, len(m.Arms))
	defer func() {
		for _, p := range procs {
			if p != nil {
				p.kill()
			}
		}
	}()
	// Started in a random order too, so that no build is always the
	// first process of a round.
	for _, i := range rng.Perm(len(m.Arms)) {
		arm := m.Arms[i]
		p, err := start(ctx, arm)
		if err != nil {
			return err
		}
		procs[i] = p
		m.CPU = m.CPU && p.hello.CPU
		if m.GOMAXPROCS == 0 {
			m.GOMAXPROCS = p.hello.GOMAXPROCS
		} else if m.GOMAXPROCS != p.hello.GOMAXPROCS {
			return fmt.Errorf("runner %s has GOMAXPROCS %d, another %d", arm.Name, p.hello.GOMAXPROCS, m.GOMAXPROCS)
		}
	}
	if r == 0 {
		if err := m.check(procs); err != nil {
			return err
		}
	}
	for _, c := range rng.Perm(len(m.Cells)) {
		cell := m.Cells[c]
		if m.idle(c, r) {
			continue
		}
		order := slices.Clone(cell.Arms)
		rng.Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })
		for _, a := range order {
			if err := ctx.Err(); err != nil {
				return err
			}
			ans, err := procs[a].ask(fmt.Sprintf("slice %s %d %d %d", cell.Workload.Subject, cell.Workload.G, m.Warmup.Nanoseconds(), m.Slice.Nanoseconds()))
			if err != nil {
				return fmt.Errorf("%s, %s: %w", m.Arms[a].Name, cell.Workload, err)
			}
			m.failed(m.Arms[a].Name, cell.Workload.String(), ans)
			m.Samples = append(m.Samples, sample{Round: r, Arm: a, Cell: c, Answer: ans})
		}
	}
	for i, p := range procs {
		procs[i] = nil
		if err := p.stop(); err != nil {
			return fmt.Errorf("runner %s: %w", m.Arms[i].Name, err)
		}
	}
	return nil
}

// idleRounds is how many rounds a cell may answer nothing on every arm
// before it is left out of the rounds that follow: a runner answers no
// IDs at 1 < G <= GOMAXPROCS when its goroutines never ran side by side
// (lab/runner's lockstep), which on a host busy with other work is every
// slice, each twice the slice long.
const idleRounds = 4

// idle is whether cell c answered no IDs on any arm in each of the first
// idleRounds rounds, from round idleRounds on.
func (m *measurement) idle(c, r int) bool {
	if r < idleRounds {
		return false
	}
	for _, x := range m.Samples {
		if x.Cell == c && x.Round < idleRounds && x.IDs > 0 {
			return false
		}
	}
	return true
}

// check mints checkIDs IDs of every subject measured, on its largest G,
// in every arm, and keeps what failed.
func (m *measurement) check(procs []*proc) error {
	g := map[string]int{}
	for _, c := range m.Cells {
		g[c.Workload.Subject] = max(g[c.Workload.Subject], c.Workload.G)
	}
	for i, p := range procs {
		for _, sub := range m.Subjects {
			ans, err := p.ask(fmt.Sprintf("check %s %d %d", sub, g[sub], checkIDs))
			if err != nil {
				return fmt.Errorf("%s, check %s: %w", m.Arms[i].Name, sub, err)
			}
			m.failed(m.Arms[i].Name, fmt.Sprintf("check %s G=%d", sub, g[sub]), ans)
		}
	}
	return nil
}

func (m *measurement) failed(arm, what string, a runner.Answer) {
	var why []string
	if a.Err != "" {
		why = append(why, "error: "+a.Err)
	}
	if a.Violations > 0 {
		why = append(why, fmt.Sprintf("%d IDs not above the same goroutine's previous one", a.Violations))
	}
	if a.Duplicates > 0 {
		why = append(why, fmt.Sprintf("%d duplicate IDs", a.Duplicates))
	}
	if len(why) > 0 {
		m.Failures = append(m.Failures, fmt.Sprintf("%s, %s: %s", arm, what, strings.Join(why, "; ")))
	}
}

// proc is one runner process under -serve.
type proc struct {
	cmd   *exec.Cmd
	in    io.WriteCloser
	out   *bufio.Scanner
	hello runner.Hello
	arm   arm
}

// errRunner is a runner that did not answer as the protocol says.
var errRunner = errors.New("runner")

func start(ctx context.Context, arm arm) (*proc, error) {
	cmd := exec.CommandContext(ctx, arm.Bin, append([]string{"-serve"}, arm.Args...)...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("%w %s: %v", errRunner, arm.Name, err)
	}
	p := &proc{cmd: cmd, in: in, out: bufio.NewScanner(out), arm: arm}
	if !p.out.Scan() {
		p.kill()
		return nil, fmt.Errorf("%w %s: no greeting: %s", errRunner, arm.Name, instr.LastLine(stderr.String()))
	}
	if err := json.Unmarshal(p.out.Bytes(), &p.hello); err != nil || p.hello.Protocol != runner.Protocol {
		p.kill()
		return nil, fmt.Errorf("%w %s: greeting %q: want protocol %s (a runner built with another version of lab/runner?)", errRunner, arm.Name, p.out.Text(), runner.Protocol)
	}
	if arm.Plant != "" && p.hello.Plant != arm.Plant {
		p.kill()
		return nil, fmt.Errorf("%w %s: it plants %q, want %q", errRunner, arm.Name, p.hello.Plant, arm.Plant)
	}
	return p, nil
}

func (p *proc) ask(req string) (runner.Answer, error) {
	var a runner.Answer
	if _, err := io.WriteString(p.in, req+"\n"); err != nil {
		return a, fmt.Errorf("%w %s: %v", errRunner, p.arm.Name, err)
	}
	if !p.out.Scan() {
		return a, fmt.Errorf("%w %s: no answer to %q", errRunner, p.arm.Name, req)
	}
	if err := json.Unmarshal(p.out.Bytes(), &a); err != nil {
		return a, fmt.Errorf("%w %s: answer %q: %v", errRunner, p.arm.Name, p.out.Text(), err)
	}
	return a, nil
}

// stop closes the runner's stdin, on which it exits, and waits for it.
func (p *proc) stop() error {
	p.in.Close()
	return p.cmd.Wait()
}

// kill stops a started runner at once.
func (p *proc) kill() {
	p.in.Close()
	p.cmd.Process.Kill()
	p.cmd.Wait()
}
