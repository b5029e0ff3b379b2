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

// TestREADMECodeIsExamples holds README.md's Go code blocks to the runnable
// examples: each block must be the body of an Example function (without its
// Output comment) in one of the module's example_test.go files, so what the
// README shows is compiled and, where it has an Output, run.
func TestREADMECodeIsExamples(t *testing.T) {
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	blocks := regexp.MustCompile("(?s)```go\n(.*?)```").FindAllStringSubmatch(string(readme), -1)
	if len(blocks) == 0 {
		t.Fatal("README.md has no Go code blocks")
	}
	bodies := map[string]string{} // body -> example
	err = filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
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
	for i, b := range blocks {
		code := strings.TrimSpace(b[1])
		if _, ok := bodies[code]; !ok {
			t.Errorf("README.md Go block %d is no example's body; copy it from an example_test.go:\n%s", i+1, code)
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

// TestREADMEClientsAreFiles holds README.md's TypeScript and Python blocks
// to the clients snowidd's tests run (TestTypeScript, TestPython): each
// block must be the whole text of a file under snowidd/clients, so what a
// team copies is what CI called a replica with.
func TestREADMEClientsAreFiles(t *testing.T) {
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	blocks := regexp.MustCompile("(?s)```(ts|python)\n(.*?)```").FindAllStringSubmatch(string(readme), -1)
	files := map[string]string{} // text -> path
	err = filepath.WalkDir(filepath.Join("snowidd", "clients"), func(path string, d fs.DirEntry, err error) error {
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
	langs := map[string]int{}
	for _, b := range blocks {
		langs[b[1]]++
		if _, ok := files[b[2]]; !ok {
			t.Errorf("README.md %s block %d is no file under snowidd/clients; copy it from the file the client's test runs:\n%s", b[1], langs[b[1]], b[2])
		}
	}
	for _, lang := range []string{"ts", "python"} {
		if langs[lang] == 0 {
			t.Errorf("README.md has no %s block: the snowidd client in that language is not shown", lang)
		}
	}
}
