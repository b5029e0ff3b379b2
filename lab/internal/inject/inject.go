// Package inject is loadgen check's hidden regression: a deliberate
// slowdown of snowlab's atomic generators, measured through the same gate,
// to show that the gate fails a real slowdown. The library is not
// touched; only -inject-regression builds it, and -h does not list it.
package inject

import (
	"flag"
	"fmt"
	"strings"

	"github.com/snowlab/snowlab/clocksrc"
	"github.com/snowlab/snowlab/lab/internal/limit"
	"github.com/snowlab/snowlab/lab/subject"
)

// Flag is the hidden flag's name.
const Flag = "inject-regression"

// Note is what a slowed subject's note says, so that no result of an
// injected run can pass for a real one.
const Note = "REGRESSION INJECTED (loadgen check -inject-regression): an extra clock read and compare-and-swap on a shared word per ID"

// Register defines the hidden flag in fs and sets fs.Usage to list every
// other flag.
func Register(fs *flag.FlagSet) *bool {
	on := fs.Bool(Flag, false, "slow atomicgen down on purpose (an extra clock read and compare-and-swap on a shared word per ID) to show the gate fails")
	fs.Usage = func() {
		shown := flag.NewFlagSet(fs.Name(), flag.ContinueOnError)
		shown.SetOutput(fs.Output())
		fs.VisitAll(func(f *flag.Flag) {
			if f.Name != Flag {
				shown.Var(f.Value, f.Name, f.Usage)
			}
		})
		fmt.Fprintf(fs.Output(), "Usage of %s:\n", fs.Name())
		shown.PrintDefaults()
	}
	return on
}

// Slow returns all with every atomicgen subject slowed; the others are
// left as they are.
func Slow(all []subject.Subject) []subject.Subject {
	out := make([]subject.Subject, len(all))
	for i, s := range all {
		if strings.HasPrefix(s.Name, "atomicgen/") {
			s = slowed(s)
		}
		out[i] = s
	}
	return out
}

// slowed is s with a deliberate regression in front of every call: the
// physical limit's whole loop body once more (a clock read and a
// compare-and-swap on a padded word every instance shares), as if NextID
// did its work twice. Batching is turned off, so that every ID pays it.
func slowed(s subject.Subject) subject.Subject {
	clock := clocksrc.Default()
	word := new(limit.Word)
	inner := s.New
	s.New = func() (subject.Minter, error) {
		m, err := inner()
		return slowMinter{m, word, clock}, err
	}
	s.Batch = false
	s.Note = Note
	return s
}

type slowMinter struct {
	m     subject.Minter
	w     *limit.Word
	clock clocksrc.Clock
}

func (s slowMinter) Next() (subject.ID, error) {
	s.w.Advance(uint64(s.clock.UnixNano()))
	return s.m.Next()
}
