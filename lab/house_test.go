package lab_test

// The house figures of issue 39: how large the lab is beside the rest of
// the repository and how much of its inside is open. TestHouse counts them
// from the source tree with go/parser (nothing is typed in by hand) and
// fails when one passes its limit. Run it alone to read the table:
//
//	cd lab && go test -run '^TestHouse$' -v .
//
// and with HOUSE_ROOT set to count another checkout (the figures of an
// older commit): HOUSE_ROOT=/path/to/checkout go test -run '^TestHouse$' -v .
//
// What is counted, precisely:
//   - lines: newline-terminated lines of the .go files that are not
//     _test.go and not below a testdata folder, as
//     `find . -name '*.go' ! -name '*_test.go' ! -path '*/testdata/*' | xargs wc -l`
//     counts them; the lab is what lies below lab/.
//   - internal packages: the folders below lab/internal holding such a file.
//   - exported names inside lab/internal: in those files, every exported
//     top-level name (each name of a const, var or type spec, each func)
//     and every exported method of an exported type, as issue 39 counted
//     them (549 at bd7dd94), except that a name declared for two
//     platforms in two files counts once (536 at bd7dd94); methods of
//     unexported types, struct fields and interface methods are not
//     counted.
//   - public declarations naming internal types: the exported types, funcs
//     and methods of the lab's packages outside internal/ (main packages
//     excluded) whose declaration names a package below an internal/
//     folder. A user cannot name such a type.
//   - long files: non-test .go files of the whole repository over 600 lines.
//   - test/code of each experiment (lab/internal/experiment/*): lines of
//     its _test.go files over its other lines; shown, not held.

import (
	"bufio"
	"bytes"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// The limits of issue 39 ("What it must show") where the tree meets them,
// and otherwise the figure reached, held as a ceiling so that it cannot
// grow again until the work that brings it under the limit is
// done. Lower a ceiling when a change lowers its figure.
const (
	// Issue 39: the lab at most half of the non-test Go lines.
	maxLabSharePermille = 500
	// Issue 39: at most 30 packages below lab/internal.
	maxInternalPackages = 30
	// Issue 39: at most 330 exported names inside lab/internal (294 once
	// the names ab, gates, instr and resultdir used inside their own
	// package alone were unexported).
	maxInternalExported = 330
	// Issue 39: no public lab declaration names an internal type.
	maxPublicNamingInternal = 0
	// No limit in the issue: held where it is.
	maxLongFiles = 3
)

type houseFigures struct {
	allLines, labLines int
	packages           []string
	exported           map[string][]string // package folder → exported names
	namingInternal     []string            // "file: Decl"
	longFiles          []string            // "file (lines)"
	experiments        map[string][2]int   // folder → {code, test} lines
}

func (f *houseFigures) exportedCount() int {
	n := 0
	for _, names := range f.exported {
		n += len(names)
	}
	return n
}

func TestHouse(t *testing.T) {
	root := os.Getenv("HOUSE_ROOT")
	if root == "" {
		// The lab module's folder in this repository: go.work beside it.
		// A copy in a module cache has none, and nothing around it to count.
		if _, err := os.Stat(filepath.Join("..", "go.work")); err != nil {
			t.Skipf("not in the repository (no ../go.work): %v", err)
		}
		root = ".."
	}
	f, err := countHouse(root)
	if err != nil {
		t.Fatal(err)
	}
	t.Log("\n" + f.table())
	if testing.Verbose() {
		t.Log("\n" + f.exportedList())
	}
	// The share in permille rounded up, so that a lab one line over
	// half (50.01%) fails rather than reading as 500.
	share := f.allLines
	if share > 0 {
		share = (f.labLines*1000 + f.allLines - 1) / f.allLines
	}
	check := func(what string, got, max int) {
		t.Helper()
		if got > max {
			t.Errorf("%s: %d, over the limit of %d", what, got, max)
		}
	}
	check("lab share of non-test Go lines (‰)", share, maxLabSharePermille)
	check("packages below lab/internal", len(f.packages), maxInternalPackages)
	check("exported names inside lab/internal", f.exportedCount(), maxInternalExported)
	check("public lab declarations naming internal types", len(f.namingInternal), maxPublicNamingInternal)
	for _, d := range f.namingInternal {
		t.Logf("names an internal type: %s", d)
	}
	check("non-test Go files over 600 lines", len(f.longFiles), maxLongFiles)
}

// TestHouseCounts checks the counter on a tree made for it.
func TestHouseCounts(t *testing.T) {
	root := t.TempDir()
	write := func(name, text string) {
		t.Helper()
		p := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("lib.go", "package lib\n\nfunc A() {}\n")                                                                                                                                  // 3 lines
	write("lib_test.go", "package lib\n\nfunc TestA() {}\n")                                                                                                                         // not counted
	write("lab/testdata/x.go", "package x\n\nfunc X() {}\n")                                                                                                                         // not counted
	write("lab/internal/a/a.go", "package a\n\ntype T int\n\nfunc (T) M() {}\nfunc (T) m() {}\nfunc (u) U() {}\n\nconst C, d = 1, 2\n\nvar (\n\tV = 1\n\tw = 2\n)\n\nfunc F() {}\n") // T M C V F
	write("lab/internal/a/a_test.go", "package a\n\nfunc Exported() {}\n\nfunc TestX() {}\n")
	write("lab/internal/b/c/c.go", "package c\n\ntype S struct{ Field int }\n") // S
	write("lab/internal/b/c/c_linux.go", "package c\n\nfunc P() {}\n")          // P
	write("lab/internal/b/c/c_other.go", "package c\n\nfunc P() {}\n")          // P again
	write("lab/internal/e/doc.go", "// only a test below\npackage e\n")
	write("lab/internal/experiment/x/x.go", "package x\n\nfunc f() {}\n")
	write("lab/internal/experiment/x/x_test.go", "package x\n\nfunc g() {}\n\nfunc h() {}\n")
	write("lab/pub/pub.go", "package pub\n\nimport (\n\t\"m/lab/internal/a\"\n\tin \"m/lab/internal/b/c\"\n)\n\ntype Good struct{ n a.T }\n\ntype Bad struct{ X a.T }\n\nfunc Worse() in.S { return in.S{} }\n\nfunc fine() a.T { return 0 }\n")
	write("lab/cmd/m/main.go", "package main\n\nimport \"m/lab/internal/a\"\n\nfunc Main() a.T { return 0 }\n\nfunc main() {}\n")
	write("big.go", "package big\n"+strings.Repeat("\n", 600)) // 601 lines
	f, err := countHouse(root)
	if err != nil {
		t.Fatal(err)
	}
	labLines := 16 + 3 + 3 + 3 + 2 + 3 + 14 + 7
	if want := 3 + 601 + labLines; f.allLines != want || f.labLines != labLines {
		t.Errorf("lines: all %d lab %d, want %d and %d", f.allLines, f.labLines, want, labLines)
	}
	if got, want := strings.Join(f.packages, " "), "lab/internal/a lab/internal/b/c lab/internal/e lab/internal/experiment/x"; got != want {
		t.Errorf("packages: %q, want %q", got, want)
	}
	if got, want := fmt.Sprint(f.exported), "map[lab/internal/a:[C F T T.M V] lab/internal/b/c:[P S]]"; got != want {
		t.Errorf("exported: %s, want %s", got, want)
	}
	if got, want := strings.Join(f.namingInternal, "; "), "lab/pub/pub.go: Bad; lab/pub/pub.go: Worse"; got != want {
		t.Errorf("naming internal: %q, want %q", got, want)
	}
	if got, want := strings.Join(f.longFiles, " "), "big.go(601)"; got != want {
		t.Errorf("long files: %q, want %q", got, want)
	}
	if got, want := f.experiments["lab/internal/experiment/x"], [2]int{3, 5}; got != want {
		t.Errorf("experiment lines: %v, want %v", got, want)
	}
}

func countHouse(root string) (*houseFigures, error) {
	f := &houseFigures{exported: map[string][]string{}, experiments: map[string][2]int{}}
	packages := map[string]bool{}
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(root, path)
		if err != nil {
			return err
		}
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			if d.Name() == ".git" || d.Name() == "testdata" {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(rel, ".go") {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		lines := bytes.Count(src, []byte("\n"))
		dir := filepath.ToSlash(filepath.Dir(rel))
		test := strings.HasSuffix(rel, "_test.go")
		if strings.HasPrefix(dir, "lab/internal/experiment/") {
			e := f.experiments[dir]
			if test {
				e[1] += lines
			} else {
				e[0] += lines
			}
			f.experiments[dir] = e
		}
		if test {
			return nil
		}
		f.allLines += lines
		if lines > 600 {
			f.longFiles = append(f.longFiles, fmt.Sprintf("%s(%d)", rel, lines))
		}
		if !strings.HasPrefix(rel, "lab/") {
			return nil
		}
		f.labLines += lines
		file, err := parser.ParseFile(fset, path, src, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		switch {
		case strings.HasPrefix(dir, "lab/internal/"):
			packages[dir] = true
			// A name declared in two files for two platforms is one name.
			for _, name := range exportedNames(file) {
				if !slices.Contains(f.exported[dir], name) {
					f.exported[dir] = append(f.exported[dir], name)
				}
			}
		case !strings.Contains(rel, "/internal/") && file.Name.Name != "main":
			for _, name := range namingInternal(file) {
				f.namingInternal = append(f.namingInternal, rel+": "+name)
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	for p := range packages {
		f.packages = append(f.packages, p)
	}
	sort.Strings(f.packages)
	for _, names := range f.exported {
		sort.Strings(names)
	}
	sort.Strings(f.namingInternal)
	sort.Strings(f.longFiles)
	return f, nil
}

// exportedNames lists a file's exported top-level names and the exported
// methods of its exported types (as Type.Method).
func exportedNames(file *ast.File) []string {
	var names []string
	for _, decl := range file.Decls {
		switch d := decl.(type) {
		case *ast.FuncDecl:
			if !d.Name.IsExported() {
				continue
			}
			if d.Recv == nil {
				names = append(names, d.Name.Name)
			} else if recv := receiverName(d.Recv.List[0].Type); ast.IsExported(recv) {
				names = append(names, recv+"."+d.Name.Name)
			}
		case *ast.GenDecl:
			for _, spec := range d.Specs {
				switch s := spec.(type) {
				case *ast.TypeSpec:
					if s.Name.IsExported() {
						names = append(names, s.Name.Name)
					}
				case *ast.ValueSpec:
					for _, n := range s.Names {
						if n.IsExported() {
							names = append(names, n.Name)
						}
					}
				}
			}
		}
	}
	return names
}

func receiverName(x ast.Expr) string {
	for {
		switch e := x.(type) {
		case *ast.StarExpr:
			x = e.X
		case *ast.IndexExpr:
			x = e.X
		case *ast.IndexListExpr:
			x = e.X
		case *ast.Ident:
			return e.Name
		default:
			return "?"
		}
	}
}

// namingInternal lists a public file's exported types, funcs and methods
// whose declaration names a package below an internal/ folder: in a type,
// its exported fields and embeddings (or the whole type when it is not a
// struct); in a func, its parameters and results.
func namingInternal(file *ast.File) []string {
	internal := map[string]bool{}
	for _, imp := range file.Imports {
		path, err := strconv.Unquote(imp.Path.Value)
		if err != nil || !(strings.Contains(path, "/internal/") || strings.HasSuffix(path, "/internal")) {
			continue
		}
		name := path[strings.LastIndex(path, "/")+1:]
		if imp.Name != nil {
			name = imp.Name.Name
		}
		internal[name] = true
	}
	if len(internal) == 0 {
		return nil
	}
	names := func(n ast.Node) bool {
		found := false
		ast.Inspect(n, func(n ast.Node) bool {
			if sel, ok := n.(*ast.SelectorExpr); ok {
				if id, ok := sel.X.(*ast.Ident); ok && internal[id.Name] {
					found = true
				}
			}
			return !found
		})
		return found
	}
	var out []string
	for _, decl := range file.Decls {
		switch d := decl.(type) {
		case *ast.FuncDecl:
			if d.Name.IsExported() && names(d.Type) {
				out = append(out, d.Name.Name)
			}
		case *ast.GenDecl:
			for _, spec := range d.Specs {
				s, ok := spec.(*ast.TypeSpec)
				if !ok || !s.Name.IsExported() {
					continue
				}
				st, ok := s.Type.(*ast.StructType)
				if !ok {
					if names(s.Type) {
						out = append(out, s.Name.Name)
					}
					continue
				}
				for _, field := range st.Fields.List {
					open := len(field.Names) == 0 // embedded
					for _, n := range field.Names {
						open = open || n.IsExported()
					}
					if open && names(field.Type) {
						out = append(out, s.Name.Name)
						break
					}
				}
			}
		}
	}
	return out
}

func (f *houseFigures) table() string {
	var b strings.Builder
	w := bufio.NewWriter(&b)
	share := 0.0
	if f.allLines > 0 {
		share = 100 * float64(f.labLines) / float64(f.allLines)
	}
	fmt.Fprintf(w, "| figure | value | limit |\n| --- | --- | --- |\n")
	fmt.Fprintf(w, "| lab share of non-test Go lines | %.2f%% (%d of %d; the rest %d) | ≤ %.1f%% |\n",
		share, f.labLines, f.allLines, f.allLines-f.labLines, float64(maxLabSharePermille)/10)
	fmt.Fprintf(w, "| packages below lab/internal | %d | ≤ 30 |\n", len(f.packages))
	fmt.Fprintf(w, "| exported names inside lab/internal (methods counted) | %d | ≤ %d |\n",
		f.exportedCount(), maxInternalExported)
	fmt.Fprintf(w, "| public lab declarations naming internal types | %d | 0 |\n", len(f.namingInternal))
	fmt.Fprintf(w, "| non-test Go files over 600 lines | %d | ceiling %d |\n", len(f.longFiles), maxLongFiles)
	var exps []string
	for dir := range f.experiments {
		exps = append(exps, dir)
	}
	sort.Strings(exps)
	for _, dir := range exps {
		e := f.experiments[dir]
		ratio := 0.0
		if e[0] > 0 {
			ratio = float64(e[1]) / float64(e[0])
		}
		fmt.Fprintf(w, "| test/code of %s | %.2f (%d/%d) | |\n", strings.TrimPrefix(dir, "lab/internal/"), ratio, e[1], e[0])
	}
	w.Flush()
	if len(f.longFiles) > 0 {
		b.WriteString("files over 600 lines: " + strings.Join(f.longFiles, " ") + "\n")
	}
	return b.String()
}

func (f *houseFigures) exportedList() string {
	var b strings.Builder
	for _, p := range f.packages {
		fmt.Fprintf(&b, "%s (%d): %s\n", p, len(f.exported[p]), strings.Join(f.exported[p], " "))
	}
	return b.String()
}
