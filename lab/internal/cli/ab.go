package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"time"

	"github.com/snowlab/snowlab/lab/internal/ab"
	"github.com/snowlab/snowlab/lab/internal/experiment"
	"github.com/snowlab/snowlab/lab/internal/suiteflags"
)

// abCmd is `loadgen ab [flags] BASE HEAD`: the interleaved A/B gate
// (lab/internal/ab) on two git revisions, or on two runner binaries.
func abCmd(fs *flag.FlagSet) command {
	var cfg ab.Config
	dir := fs.String("C", "", "the git repository's folder (default: the current one)")
	pkg := fs.String("pkg", "", "your runner's main package, as go build takes it from -C (a main calling lab/runner.Main over your generator); default: snowlab's own runner, built into each revision of the library")
	fs.IntVar(&cfg.Rounds, "rounds", ab.DefaultRounds, "rounds: each starts a fresh process of each build and measures every workload once on each, in a random order")
	fs.DurationVar(&cfg.Slice, "slice", ab.DefaultSlice, "how long each measured slice mints")
	fs.DurationVar(&cfg.Warmup, "warmup", ab.DefaultWarmup, "minted unmeasured before each slice")
	subjects := fs.String("subjects", "", "subjects to measure, comma-separated (default: all the runner lists); the first is the self-check's")
	gs := fs.String("g", "", "goroutine counts, comma-separated (default: 1, GOMAXPROCS and twice that)")
	fs.Float64Var(&cfg.Alpha, "alpha", ab.DefaultAlpha, "the family-wise error rate over the workloads (Holm)")
	fs.Float64Var(&cfg.MinEffect, "min-effect", ab.DefaultMinEffect, "the smallest change in CPU time per ID that can be DIFFERENT at G=1 (0.03 = 3%)")
	fs.Float64Var(&cfg.MinEffectContended, "min-effect-contended", ab.DefaultMinEffectContended, "the same above G=1")
	selfCheck := fs.Bool("self-check", true, "also measure base planted (extra calls at G=1, a shared cache line at G=GOMAXPROCS) and a second process of base, and say what this run could detect")
	requireSelf := fs.Bool("require-self-check", false, "exit 1 when the self-check misses: a same-code comparison DIFFERENT, or the G=1 plant not caught")
	fs.Float64Var(&cfg.PlantPct, "plant", ab.DefaultPlantPct, "the self-check's G=1 plant, percent more calls than IDs (its instructions are counted under valgrind where there is one)")
	fs.StringVar(&cfg.Valgrind, "valgrind", "valgrind", "the valgrind program that counts the plants' instructions (\"\": do not count)")
	keep := fs.String("keep", "", "write the runners built (base, head, base-calls, base-shared) into this folder, for loadgen instr")
	asJSON := fs.Bool("json", false, "write the finding as JSON instead of a table")
	fs.Uint64Var(&cfg.Seed, "seed", 0, "the seed of the slices' order (0: from the clock; the output says it)")
	quiet := fs.Bool("q", false, "no progress output")
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "Usage of loadgen ab: loadgen ab [flags] BASE HEAD\n\n"+
			"BASE and HEAD are git revisions of the repository (-C): each is checked out into a worktree and a runner built\n"+
			"from it; or two runner binaries, compared as they are. Exit 1 on a workload DIFFERENT and worse, or a\n"+
			"correctness failure; 2 on bad input. Flags:")
		fs.PrintDefaults()
	}
	return func(args []string, stdout, stderr io.Writer) error {
		if len(args) != 2 {
			return usageLine("usage: loadgen ab [flags] BASE HEAD (git revisions, or two runner binaries); loadgen ab -h for the flags")
		}
		if *gs != "" {
			var err error
			// ab.Config.Check's bound, here to name the flag.
			if cfg.Gs, err = suiteflags.IntList("g", *gs, 1, 1<<16); err != nil {
				return experiment.Usage(err)
			}
		}
		if *subjects != "" {
			cfg.Subjects = strings.Split(*subjects, ",")
		}
		if cfg.Seed == 0 {
			cfg.Seed = uint64(time.Now().UnixNano())
		}
		if !*quiet {
			cfg.Progress = func(s string) { fmt.Fprintln(stderr, s) }
		}
		if err := cfg.Check(); err != nil {
			return experiment.Usage(err)
		}
		ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
		defer stop()
		builds, done, err := abBinaries(ctx, &cfg, ab.Source{Dir: *dir, Pkg: *pkg}, args[0], args[1], *keep, *selfCheck, stderr)
		defer done()
		if err != nil {
			return err
		}
		res, err := ab.Run(ctx, cfg)
		if errors.Is(err, ab.ErrUsage) || errors.Is(err, ab.ErrOptions) {
			return experiment.Usage(err)
		} else if err != nil {
			return err
		}
		write := res.Write
		if *asJSON {
			write = res.WriteJSON
		}
		if err := write(stdout, builds); err != nil {
			return err
		}
		if *requireSelf && res.SelfCheck != nil && len(res.SelfCheck.Missed) > 0 && res.Err() == nil {
			return fmt.Errorf("-require-self-check: %s", strings.Join(res.SelfCheck.Missed, "; "))
		}
		return res.Err()
	}
}

// abBinaries sets cfg's binaries: base and head as they are where both
// name files, else built from the two revisions (with base's planted
// runners where selfCheck) into keep or a folder removed by done.
func abBinaries(ctx context.Context, cfg *ab.Config, src ab.Source, base, head, keep string, selfCheck bool, stderr io.Writer) (b *ab.Build, done func(), err error) {
	done = func() {}
	if isFile(base) && isFile(head) {
		cfg.Base, cfg.Head = base, head
		if selfCheck {
			fmt.Fprintln(stderr, "loadgen ab: two binaries: no planted builds of base, so no self-check (give two git revisions for one)")
		}
		return &ab.Build{BaseRev: base, HeadRev: head}, done, nil
	}
	out := keep
	if out == "" {
		tmp, err := os.MkdirTemp("", "loadgen-ab-")
		if err != nil {
			return nil, done, err
		}
		done = func() { os.RemoveAll(tmp) }
		out = tmp
	} else if err := os.MkdirAll(out, 0o755); err != nil {
		return nil, done, experiment.Usage(fmt.Errorf("-keep %s: %v", out, err))
	}
	b, err = ab.BuildRevisions(ctx, src, base, head, out, selfCheck, cfg.Progress)
	if err != nil && strings.Contains(err.Error(), "is not a commit") {
		return nil, done, experiment.Usage(err)
	} else if err != nil {
		return nil, done, err
	}
	rm := done
	done = func() { b.Close(); rm() }
	cfg.Base, cfg.Head, cfg.Calls, cfg.Shared = b.Base, b.Head, b.Calls, b.Shared
	return b, done, nil
}

// isFile is whether p names a regular file (a runner binary rather than
// a revision).
func isFile(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.Mode().IsRegular()
}
