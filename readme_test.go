package snowlab_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// markdownDocs reads every Markdown document of the repository written by
// hand: README.md, CONTRIBUTING.md, each module's README and the findings
// beside the results. The lab's own reports (results/*.md other than
// FINDINGS.md, results/local/) are written by loadgen, and installed or
// generated folders are not the project's.
func markdownDocs(t *testing.T) map[string]string {
	t.Helper()
	docs := map[string]string{}
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		switch {
		case err != nil:
			return err
		case d.IsDir() && (d.Name() == ".git" || d.Name() == "node_modules" || d.Name() == "dist" || path == filepath.Join("results", "local")):
			return fs.SkipDir
		case d.IsDir() || !strings.HasSuffix(path, ".md"):
			return nil
		case filepath.Dir(path) == "results" && d.Name() != "FINDINGS.md":
			return nil // a run's report, written by loadgen
		}
		b, err := os.ReadFile(path)
		docs[filepath.ToSlash(path)] = string(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"README.md", "CONTRIBUTING.md", "lab/README.md", "snowidd/README.md", "etcdlease/README.md", "pglease/README.md", "results/FINDINGS.md"} {
		if _, ok := docs[want]; !ok {
			t.Errorf("%s is missing: README.md's map of topics points to it", want)
		}
	}
	return docs
}

// exampleBodies is every Example function's body in the repository's
// example_test.go files (every module's), as a document shows it.
func exampleBodies(t *testing.T) map[string]string {
	t.Helper()
	bodies := map[string]string{} // body -> example
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, "example_test.go") {
			return err
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, path, src, parser.ParseComments)
		if err != nil {
			return err
		}
		for _, decl := range f.Decls {
			fn, ok := decl.(*ast.FuncDecl)
			if !ok || !strings.HasPrefix(fn.Name.Name, "Example") || fn.Body == nil {
				continue
			}
			body := string(src[fset.Position(fn.Body.Lbrace).Offset+1 : fset.Position(fn.Body.Rbrace).Offset])
			bodies[exampleText(body)] = path + ": " + fn.Name.Name
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return bodies
}

// TestREADMECodeIsExamples holds the Go code blocks of every Markdown
// document to the runnable examples: each block must be the body of an
// Example function (without its Output comment) in one of the
// repository's example_test.go files, so what a document shows is compiled
// and, where it has an Output, run.
func TestREADMECodeIsExamples(t *testing.T) {
	bodies := exampleBodies(t)
	goBlock := regexp.MustCompile("(?s)```go\n(.*?)```")
	for path, text := range markdownDocs(t) {
		blocks := goBlock.FindAllStringSubmatch(text, -1)
		if path == "README.md" && len(blocks) == 0 {
			t.Error("README.md has no Go code block: the 60-second example is missing")
		}
		for i, b := range blocks {
			code := strings.TrimSpace(b[1])
			if _, ok := bodies[code]; !ok {
				t.Errorf("%s Go block %d is no example's body; copy it from an example_test.go:\n%s", path, i+1, code)
			}
		}
	}
}

// exampleText is an example's body as the README shows it: one tab less
// indentation, without the Output comment and what follows it.
func exampleText(body string) string {
	var out []string
	for _, line := range strings.Split(body, "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "// Output:") {
			break
		}
		out = append(out, strings.TrimPrefix(line, "\t"))
	}
	return strings.TrimSpace(strings.Join(out, "\n"))
}

// TestREADMEClientsAreFiles holds the TypeScript and Python blocks of
// every Markdown document to the clients snowidd's tests run (TestTypeScript,
// TestPython): each block must be the whole text of a file under
// snowidd/clients, so what a team copies is what CI called a replica with.
// snowidd/README.md, the service's manual, must show both.
func TestREADMEClientsAreFiles(t *testing.T) {
	files := map[string]string{} // text -> path
	err := filepath.WalkDir(filepath.Join("snowidd", "clients"), func(path string, d fs.DirEntry, err error) error {
		switch {
		case err != nil:
			return err
		case d.IsDir() && (d.Name() == "node_modules" || d.Name() == "gen" || d.Name() == "dist"):
			return fs.SkipDir // installed or generated, not the clients' own code
		case d.IsDir() || !(strings.HasSuffix(path, ".ts") || strings.HasSuffix(path, ".py")):
			return nil
		}
		src, err := os.ReadFile(path)
		files[string(src)] = path
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	block := regexp.MustCompile("(?s)```(ts|python)\n(.*?)```")
	for path, text := range markdownDocs(t) {
		langs := map[string]int{}
		for _, b := range block.FindAllStringSubmatch(text, -1) {
			langs[b[1]]++
			if _, ok := files[b[2]]; !ok {
				t.Errorf("%s %s block %d is no file under snowidd/clients; copy it from the file the client's test runs:\n%s", path, b[1], langs[b[1]], b[2])
			}
		}
		for _, lang := range []string{"ts", "python"} {
			if path == "snowidd/README.md" && langs[lang] == 0 {
				t.Errorf("snowidd/README.md has no %s block: the snowidd client in that language is not shown", lang)
			}
		}
	}
}
