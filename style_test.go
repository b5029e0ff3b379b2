package snowlab_test

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"
)

// maxFuncLines is the most lines a function of the repository's
// non-test code may span. A longer one does more than one thing: split
// it by section (parse, validate, run; one function per report section),
// as the Go standard library's packages are.
const maxFuncLines = 80

// TestFunctionsStayShort holds every module of the repository (run from
// its root, the library module's folder) to maxFuncLines, leaving out
// tests, generated code and the clients' installed packages.
func TestFunctionsStayShort(t *testing.T) {
	fset := token.NewFileSet()
	var long []string
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			switch d.Name() {
			case "gen", "node_modules", "results", "testdata", ".git":
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.ParseComments)
		if err != nil {
			return err
		}
		if ast.IsGenerated(f) {
			return nil
		}
		for _, decl := range f.Decls {
			fn, ok := decl.(*ast.FuncDecl)
			if !ok {
				continue
			}
			start, end := fset.Position(fn.Pos()), fset.Position(fn.End())
			if n := end.Line - start.Line + 1; n > maxFuncLines {
				long = append(long, fmt.Sprintf("%s:%d: %s is %d lines", path, start.Line, fn.Name.Name, n))
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(long) > 0 {
		t.Errorf("functions over %d lines; split them by section:\n%s", maxFuncLines, strings.Join(long, "\n"))
	}
}
