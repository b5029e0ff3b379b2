// Package progress is loadgen's progress bar: a bar on stderr when
// stderr is a terminal, and nothing otherwise (CI logs, pipes, -q).
package progress

import (
	"fmt"
	"io"
	"os"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"
)

// Bar is a progress bar, or nothing where none is shown.
type Bar struct{ bar *progressbar.ProgressBar }

// New is a bar of steps steps on w (0: taken from the first Step), or
// nothing when quiet or w is no terminal.
func New(w io.Writer, quiet bool, steps int) *Bar {
	f, ok := w.(*os.File)
	if quiet || !ok || !term.IsTerminal(int(f.Fd())) {
		return &Bar{}
	}
	return &Bar{bar: progressbar.NewOptions(steps,
		progressbar.OptionSetWriter(w),
		progressbar.OptionSetWidth(30),
		progressbar.OptionShowCount(),
		progressbar.OptionSetPredictTime(true),
		progressbar.OptionClearOnFinish(),
	)}
}

// Step shows step i of n; a bar made before its count was known takes
// n from the first step.
func (p *Bar) Step(i, n int, what string) {
	if p.bar == nil {
		return
	}
	if n > 0 && n != p.bar.GetMax() {
		p.bar.ChangeMax(n)
	}
	p.bar.Describe(fmt.Sprintf("%-48s", what))
	_ = p.bar.Set(i)
}

// Finish clears the bar.
func (p *Bar) Finish() {
	if p.bar != nil {
		_ = p.bar.Finish()
	}
}
