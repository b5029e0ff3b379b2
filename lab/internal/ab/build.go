package ab

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strings"
	"time"

	"github.com/snowlab/snowlab/lab/runner"
)

// The build tags of the planted runners (lab/runner's doc).
const (
	tagCalls  = "snowlab_plant_calls"
	tagShared = "snowlab_plant_shared"
)

// errBuild is a revision that could not be checked out or built.
var errBuild = errors.New("ab: build")

// ownPkg is where loadgen writes snowlab's own runner in a worktree of
// the library module: a folder no revision has.
const ownPkg = "internal/loadgenab"

// libModule is the library's module path: a repository whose root go.mod
// declares it gets snowlab's own runner.
const libModule = "github.com/snowlab/snowlab"

// Source says where the runners come from.
type Source struct {
	// Dir is a folder in the git repository (the current one where "").
	Dir string
	// Pkg is the runner's main package, relative to Dir, as go build
	// takes it; "" builds snowlab's own runner (lab/runner/own) into each
	// revision of the library.
	Pkg string
}

// Build says what one run compares: the revisions (or binaries) as
// named, their commits, and the runners built from them.
type Build struct {
	BaseRev    string `json:"base"`
	HeadRev    string `json:"head"`
	BaseCommit string `json:"base_commit,omitempty"`
	HeadCommit string `json:"head_commit,omitempty"`
	// Identical: base's and head's binaries are byte for byte the same.
	Identical bool    `json:"identical"`
	Seconds   float64 `json:"build_seconds,omitempty"`
	// Base and Head are the runners; Calls and Shared base's planted
	// runners, "" when not built.
	Base, Head    string `json:"-"`
	Calls, Shared string `json:"-"`
	cleanup       []func()
}

// Close removes the worktrees and binaries.
func (b *Build) Close() {
	for i := len(b.cleanup) - 1; i >= 0; i-- {
		b.cleanup[i]()
	}
	b.cleanup = nil
}

// BuildRevisions checks base and head out into git worktrees (one when
// they are the same commit) and builds a runner in each with -trimpath, so
// that what the two revisions share is compiled once (the build cache
// keys a package by its content, not its folder); with planted, also
// base's two planted runners. The binaries are left in dir.
func BuildRevisions(ctx context.Context, src Source, base, head, dir string, planted bool, progress func(string)) (*Build, error) {
	start := time.Now()
	b := &Build{BaseRev: base, HeadRev: head}
	root, rel, err := locate(ctx, src)
	if err != nil {
		return nil, err
	}
	if b.BaseCommit, err = commit(ctx, root, base); err != nil {
		return nil, err
	}
	if b.HeadCommit, err = commit(ctx, root, head); err != nil {
		return nil, err
	}
	trees, err := b.checkout(ctx, root, dir, progress)
	if err != nil {
		b.Close()
		return nil, err
	}
	type job struct {
		out, tags, commit string
	}
	jobs := []job{{filepath.Join(dir, "base"), "", b.BaseCommit}, {filepath.Join(dir, "head"), "", b.HeadCommit}}
	if b.BaseCommit == b.HeadCommit {
		jobs = jobs[:1] // one build serves both
	}
	if planted {
		jobs = append(jobs, job{filepath.Join(dir, "base-calls"), tagCalls, b.BaseCommit}, job{filepath.Join(dir, "base-shared"), tagShared, b.BaseCommit})
	}
	written := map[string]bool{}
	for _, j := range jobs {
		if progress != nil {
			progress(fmt.Sprintf("ab: building %s (%s)", filepath.Base(j.out), j.commit[:12]))
		}
		pkg, wdir := src.Pkg, filepath.Join(trees[j.commit], rel)
		if pkg == "" {
			pkg = "./" + ownPkg
			if !written[j.commit] {
				if err := writeOwn(trees[j.commit]); err != nil {
					b.Close()
					return nil, err
				}
				written[j.commit] = true
			}
		}
		if err := goBuild(ctx, wdir, pkg, j.tags, j.out); err != nil {
			b.Close()
			return nil, fmt.Errorf("%w: %s at %s: %v", errBuild, pkg, j.commit[:12], err)
		}
	}
	b.Base, b.Head = jobs[0].out, filepath.Join(dir, "head")
	if b.BaseCommit == b.HeadCommit {
		if err := os.Link(b.Base, b.Head); err != nil {
			b.Close()
			return nil, err
		}
	}
	if planted {
		b.Calls, b.Shared = jobs[len(jobs)-2].out, jobs[len(jobs)-1].out
	}
	if b.Identical, err = sameFile(b.Base, b.Head); err != nil {
		b.Close()
		return nil, err
	}
	b.Seconds = time.Since(start).Seconds()
	return b, nil
}

// locate is the git repository's top folder holding src, and src's
// folder relative to it ("." for snowlab's own runner).
func locate(ctx context.Context, src Source) (root, rel string, err error) {
	if root, err = git(ctx, src.Dir, "rev-parse", "--show-toplevel"); err != nil {
		return "", "", err
	}
	rel = "."
	if src.Pkg != "" {
		abs, err := filepath.Abs(src.Dir) // "" is the current folder
		if err != nil {
			return "", "", err
		}
		if rel, err = filepath.Rel(root, abs); err != nil {
			return "", "", err
		}
	}
	return root, rel, nil
}

// commit is rev's commit in root, errBuild where it names none.
func commit(ctx context.Context, root, rev string) (string, error) {
	c, err := git(ctx, root, "rev-parse", "--verify", "--quiet", rev+"^{commit}")
	if err != nil {
		return "", fmt.Errorf("%w: %q is not a commit of %s", errBuild, rev, root)
	}
	return c, nil
}

// checkout adds a git worktree of b's base and head commits (one where
// they are the same) under dir, removed by Close; the folders by commit.
func (b *Build) checkout(ctx context.Context, root, dir string, progress func(string)) (map[string]string, error) {
	trees := map[string]string{}
	for _, c := range []string{b.BaseCommit, b.HeadCommit} {
		if trees[c] != "" {
			continue
		}
		wt := filepath.Join(dir, "wt-"+c[:12])
		if progress != nil {
			progress("ab: checking out " + c[:12])
		}
		if _, err := git(ctx, root, "worktree", "add", "--detach", "--quiet", wt, c); err != nil {
			return nil, err
		}
		b.cleanup = append(b.cleanup, func() {
			git(context.Background(), root, "worktree", "remove", "--force", wt)
			git(context.Background(), root, "worktree", "prune")
		})
		trees[c] = wt
	}
	return trees, nil
}

// writeOwn writes snowlab's own runner (lab/runner and its own/main.go)
// into the worktree wt of the library module, at ownPkg, its import of
// lab/runner pointed at the copy.
func writeOwn(wt string) error {
	mod, err := os.ReadFile(filepath.Join(wt, "go.mod"))
	if err != nil || !bytes.HasPrefix(mod, []byte("module "+libModule+"\n")) {
		return fmt.Errorf("%w: %s is not the snowlab library's module: name your runner's package with -pkg", errBuild, wt)
	}
	dst := filepath.Join(wt, filepath.FromSlash(ownPkg))
	if _, err := os.Stat(dst); err == nil {
		return fmt.Errorf("%w: %s exists in the revision: loadgen ab cannot write its runner there", errBuild, ownPkg)
	}
	src := runner.Source()
	err = fs.WalkDir(src, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || strings.HasSuffix(p, "_test.go") || p == "source.go" {
			return err
		}
		b, err := fs.ReadFile(src, p)
		if err != nil {
			return err
		}
		to := filepath.Join(dst, "runner", p)
		if p == "own/main.go" {
			to = filepath.Join(dst, "main.go")
			b = bytes.ReplaceAll(b, []byte(`"`+libModule+`/lab/runner"`), []byte(`"`+path.Join(libModule, ownPkg, "runner")+`"`))
		}
		if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
			return err
		}
		return os.WriteFile(to, b, 0o644)
	})
	return err
}

// goBuild builds pkg in dir to out, with tags. GOWORK=off: a revision is
// built on its own go.mod and go.sum, as a user's checkout would be.
func goBuild(ctx context.Context, dir, pkg, tags, out string) error {
	args := []string{"build", "-trimpath", "-o", out}
	if tags != "" {
		args = append(args, "-tags", tags)
	}
	cmd := exec.CommandContext(ctx, "go", append(args, pkg)...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOWORK=off")
	var buf bytes.Buffer
	cmd.Stdout, cmd.Stderr = &buf, &buf
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("%v: %s", err, strings.TrimSpace(buf.String()))
	}
	return nil
}

func git(ctx context.Context, dir string, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, "git", args...)
	cmd.Dir = dir
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("%w: git %s: %v: %s", errBuild, strings.Join(args, " "), err, strings.TrimSpace(errb.String()))
	}
	return strings.TrimSpace(out.String()), nil
}

// sameFile is whether the files a and b hold the same bytes.
func sameFile(a, b string) (bool, error) {
	ba, err := os.ReadFile(a)
	if err != nil {
		return false, err
	}
	bb, err := os.ReadFile(b)
	return bytes.Equal(ba, bb), err
}
