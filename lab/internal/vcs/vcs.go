// Package vcs says which source revision loadgen runs, for the result
// files: what the build recorded, else the git checkout it runs in.
package vcs

import (
	"os/exec"
	"runtime/debug"
	"strings"

	"golang.org/x/mod/module"
)

// Commit is the short revision of the source loadgen runs, and whether
// it had uncommitted changes to tracked files: what the binary's build
// recorded where it recorded a revision (go build in a checkout, go
// install of a version), else the git checkout loadgen runs in (go run,
// which records none), else "". Dirtiness is recorded in the result, not
// in its name, so that a file named for a commit can be found by that
// commit.
func Commit() (sha string, dirty bool) {
	if bi, ok := debug.ReadBuildInfo(); ok {
		if sha, dirty := builtFrom(bi); sha != "" {
			return sha, dirty
		}
	}
	out, err := exec.Command("git", "rev-parse", "--short", "HEAD").Output()
	if err != nil {
		return "", false
	}
	sha = strings.TrimSpace(string(out))
	st, err := exec.Command("git", "status", "--porcelain", "--untracked-files=no").Output()
	return sha, err == nil && len(strings.TrimSpace(string(st))) > 0
}

// builtFrom is the short revision and dirtiness the build recorded in bi,
// or "" when it recorded none. go build in a checkout records
// vcs.revision and vcs.modified; go install of a module version records
// no vcs setting but the version, whose commit a pseudo-version carries
// (v0.0.0-20261130101500-abcdef123456: abcdef1, read by x/mod's
// module.PseudoVersionRev, which knows every pseudo-version form) and
// which a release tag
// names by itself (v1.2.0); "(devel)" names nothing. Since Go 1.24 a
// version built from a modified tree ends in "+dirty".
func builtFrom(bi *debug.BuildInfo) (sha string, dirty bool) {
	for _, kv := range bi.Settings {
		switch kv.Key {
		case "vcs.revision":
			sha = kv.Value[:min(len(kv.Value), 7)]
		case "vcs.modified":
			dirty = kv.Value == "true"
		}
	}
	if sha != "" {
		return sha, dirty
	}
	v := bi.Main.Version
	if v == "" || v == "(devel)" {
		return "", false
	}
	v, meta, _ := strings.Cut(v, "+")
	dirty = strings.Contains("+"+meta+"+", "+dirty+")
	if rev, err := module.PseudoVersionRev(v); err == nil {
		return rev[:min(len(rev), 7)], dirty
	}
	return v, dirty
}
