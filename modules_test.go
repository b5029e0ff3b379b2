package snowlab_test

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// workModules is the folder and module path of every module go.work
// uses ("." for the library), read from work (go.work's text) and, for
// each folder, its go.mod through modulePath.
func workModules(t *testing.T, work string, modulePath func(dir string) string) map[string]string {
	t.Helper()
	mods := map[string]string{}
	inUse := false
	sc := bufio.NewScanner(strings.NewReader(work))
	for sc.Scan() {
		line := strings.TrimSpace(strings.SplitN(sc.Text(), "//", 2)[0])
		switch {
		case line == "use (":
			inUse = true
		case inUse && line == ")":
			inUse = false
		case inUse && line != "", strings.HasPrefix(line, "use ") && !strings.HasSuffix(line, "("):
			dir := filepath.ToSlash(filepath.Clean(strings.TrimSpace(strings.TrimPrefix(line, "use "))))
			mods[dir] = modulePath(dir)
		}
	}
	if len(mods) == 0 {
		t.Fatal("go.work uses no module")
	}
	return mods
}

// goModPath is the module path the go.mod in dir declares.
func goModPath(t *testing.T) func(dir string) string {
	return func(dir string) string {
		b, err := os.ReadFile(filepath.Join(dir, "go.mod"))
		if err != nil {
			t.Fatal(err)
		}
		m := regexp.MustCompile(`(?m)^module\s+(\S+)`).FindSubmatch(b)
		if m == nil {
			t.Fatalf("%s/go.mod declares no module", dir)
		}
		return string(m[1])
	}
}

// section is the text of doc under the heading "## title", up to the
// next heading of that level.
func section(doc, title string) string {
	_, rest, ok := strings.Cut(doc, "\n## "+title+"\n")
	if !ok {
		return ""
	}
	body, _, _ := strings.Cut(rest, "\n## ")
	return body
}

// moduleTextDisagreements says where README.md's Install block and
// CONTRIBUTING.md's module table and release steps disagree with the
// modules mods (folder -> module path): a module one of them leaves out,
// one they name that go.work does not use, or a command README installs
// from no folder of its module (isDir says whether a folder exists).
func moduleTextDisagreements(mods map[string]string, readme, contributing string, isDir func(string) bool) []string {
	var bad []string
	// README's Install: each module is got, or a command of it installed.
	install := section(readme, "Install")
	got := map[string]bool{}
	for _, m := range regexp.MustCompile(`(?m)^go (get|install) (github\.com/snowlab/snowlab\S*)@latest\b`).FindAllStringSubmatch(install, -1) {
		dir, rest := moduleOf(mods, m[2])
		switch {
		case dir == "" || m[1] == "get" && rest != "":
			bad = append(bad, fmt.Sprintf("README.md's Install block gets %s, which is no module in go.work", m[2]))
		case m[1] == "install" && !isDir(filepath.Join(dir, rest)):
			bad = append(bad, fmt.Sprintf("README.md's Install block installs %s, which is no folder of module %s/", m[2], dir))
		default:
			got[dir] = true
		}
	}
	// CONTRIBUTING's module table: one row a module, its folder second.
	table := map[string]bool{}
	for _, m := range regexp.MustCompile("(?m)^\\| `[^`]+` \\| `([^`]+)` \\|").FindAllStringSubmatch(section(contributing, "Modules"), -1) {
		table[folder(m[1])] = true
	}
	// CONTRIBUTING's release steps: a tag of each module's folder.
	tags := map[string]bool{}
	for _, m := range regexp.MustCompile("`git tag ((?:[a-z0-9/]+/)?)v0\\.x\\.y`").FindAllStringSubmatch(section(contributing, "Releases"), -1) {
		tags[folder(m[1])] = true
	}
	for what, named := range map[string]map[string]bool{"module table has a row for": table, "release steps tag": tags} {
		for dir := range named {
			if _, ok := mods[dir]; !ok {
				bad = append(bad, fmt.Sprintf("CONTRIBUTING.md's %s %s/, which go.work does not use", what, dir))
			}
		}
	}
	for dir, path := range mods {
		if !got[dir] {
			bad = append(bad, fmt.Sprintf("README.md's Install block neither gets %s nor installs a command of it (module %s/)", path, dir))
		}
		if !table[dir] {
			bad = append(bad, fmt.Sprintf("CONTRIBUTING.md's module table has no row for %s/", dir))
		}
		if !tags[dir] {
			bad = append(bad, fmt.Sprintf("CONTRIBUTING.md's release steps never tag %s/", dir))
		}
	}
	slices.Sort(bad)
	return bad
}

// folder is a module's folder as a document writes it ("/" or "lab/"),
// as go.work's use block names it ("." or "lab").
func folder(s string) string {
	if s = strings.Trim(s, "/"); s == "" {
		return "."
	}
	return s
}

// moduleOf is the folder of the module of mods that holds the package
// path, the one with the longest module path (lab's, not the library's,
// for .../lab/cmd/loadgen), and the package's folder within it; "" for
// none.
func moduleOf(mods map[string]string, path string) (dir, rest string) {
	best := ""
	for d, p := range mods {
		if (path == p || strings.HasPrefix(path, p+"/")) && len(p) > len(best) {
			dir, best = d, p
		}
	}
	return dir, strings.TrimPrefix(strings.TrimPrefix(path, best), "/")
}

// TestModuleTexts: the modules go.work ties are the ones README.md's
// Install block gets or installs from, CONTRIBUTING.md's module table
// lists and its release steps tag, no more and no fewer; a module planted
// in go.work that none of them names is named three times.
func TestModuleTexts(t *testing.T) {
	read := func(name string) string {
		b, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	work, readme, contributing := read("go.work"), read("README.md"), read("CONTRIBUTING.md")
	mods := workModules(t, work, goModPath(t))
	for _, want := range []string{".", "lab", "snowidd"} {
		if _, ok := mods[want]; !ok {
			t.Fatalf("go.work as read uses %v, not %s", mods, want)
		}
	}
	isDir := func(dir string) bool { fi, err := os.Stat(dir); return err == nil && fi.IsDir() }
	for _, d := range moduleTextDisagreements(mods, readme, contributing, isDir) {
		t.Error(d)
	}

	planted := strings.Replace(work, "use (", "use (\n\t./planted", 1)
	plantedMods := workModules(t, planted, func(dir string) string {
		if dir == "planted" {
			return "github.com/snowlab/snowlab/planted"
		}
		return mods[dir]
	})
	got := moduleTextDisagreements(plantedMods, readme, contributing, isDir)
	want := []string{
		"CONTRIBUTING.md's module table has no row for planted/",
		"CONTRIBUTING.md's release steps never tag planted/",
		"README.md's Install block neither gets github.com/snowlab/snowlab/planted nor installs a command of it (module planted/)",
	}
	if !slices.Equal(got, want) {
		t.Errorf("with a module planted in go.work: got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
