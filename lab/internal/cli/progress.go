package cli

import (
	"fmt"
	"io"
	"os"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"
)

// progressBar is loadgen's progress bar: a bar on stderr when stderr is
// a terminal, and nothing otherwise (CI logs, pipes, -q).
type progressBar struct{ bar *progressbar.ProgressBar }

// newProgress is a bar of steps steps on w (0: taken from the first Step), or
// nothing when quiet or w is no terminal.
func newProgress(w io.Writer, quiet bool, steps int) *progressBar {
	f, ok := w.(*os.File)
	if quiet || !ok || !term.IsTerminal(int(f.Fd())) {
		return &progressBar{}
	}
	return &progressBar{bar: progressbar.NewOptions(steps,
		progressbar.OptionSetWriter(w),
		progressbar.OptionSetWidth(30),
		progressbar.OptionShowCount(),
		progressbar.OptionSetPredictTime(true),
		progressbar.OptionClearOnFinish(),
	)}
}

// step shows step i of n; a bar made before its count was known takes
// n from the first step.
func (p *progressBar) step(i, n int, what string) {
	if p.bar == nil {
		return
	}
	if n > 0 && n != p.bar.GetMax() {
		p.bar.ChangeMax(n)
	}
	p.bar.Describe(fmt.Sprintf("%-48s", what))
	_ = p.bar.Set(i)
}

// finish clears the bar.
func (p *progressBar) finish() {
	if p.bar != nil {
		_ = p.bar.Finish()
	}
}
