package instr

import (
	"context"
	"debug/buildinfo"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/snowlab/snowlab/lab/internal/resultdir"
)

// baselinePath is where the gate's baseline lives, slash-separated: a
// folder of its own under results/baseline, whose newest .json is the
// history page's baseline, so that neither reads the other's file.
const baselinePath = "results/baseline/instr/instructions.json"

// File is one measurement of every path: the baseline, or a run compared
// with it. Go, Valgrind and GOARCH say what the counts depend on besides
// the code: another compiler, valgrind or architecture executes other
// instructions, so the gate refuses to compare across them.
type File struct {
	When      time.Time   `json:"when"`
	Commit    string      `json:"commit,omitempty"`
	Go        string      `json:"go"`       // the toolchain that built the target
	Valgrind  string      `json:"valgrind"` // valgrind --version
	GOOS      string      `json:"goos"`
	GOARCH    string      `json:"goarch"`
	Tool      string      `json:"tool"` // how the counts were taken
	Tolerance float64     `json:"tolerance"`
	Paths     []PathCount `json:"paths"`
}

// PathCount is one path's instructions per call.
type PathCount struct {
	Name        string  `json:"name"`
	Calls       int     `json:"calls"` // N2 - N1
	PerCall     float64 `json:"per_call"`
	InjectSteps int     `json:"inject_steps,omitempty"` // a planted regression; never in a baseline
}

// tool is what File.Tool records.
const tool = "valgrind --tool=cachegrind --cache-sim=no; GOMAXPROCS=1 GOGC=off; (I(N2)-I(N1))/(N2-N1), N1 = calls/8, N2 = N1 + calls"

// File counts jobs in r's target (Runner.Measure), stamped with what the
// counts depend on: the Go version and architecture recorded in the
// target binary, and valgrind's version.
func (r Runner) File(ctx context.Context, jobs []Job, tol float64) (*File, error) {
	bi, err := buildinfo.ReadFile(r.Target)
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %v", errUsage, r.Target, err)
	}
	f := &File{When: time.Now().UTC(), Tolerance: tol, Go: bi.GoVersion, Tool: tool}
	for _, s := range bi.Settings {
		switch s.Key {
		case "GOOS":
			f.GOOS = s.Value
		case "GOARCH":
			f.GOARCH = s.Value
		}
	}
	out, err := exec.Command(r.Valgrind, "--version").Output()
	if err != nil {
		return nil, fmt.Errorf("%w: %s --version: %v", ErrValgrind, r.Valgrind, err)
	}
	f.Valgrind = strings.TrimSpace(string(out))
	f.Paths, err = r.Measure(ctx, jobs)
	return f, err
}

// read reads a File.
func read(path string) (*File, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", errBaseline, err)
	}
	var f File
	if err := json.Unmarshal(b, &f); err != nil {
		return nil, fmt.Errorf("%w: %s: %v", errBaseline, path, err)
	}
	return &f, nil
}

// write writes f to path, creating its folder.
func write(path string, f *File) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return resultdir.WriteJSON(path, f)
}
