package snowlab_test

import (
	"encoding/json"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// TestLibraryImportsStayLean keeps the lab's heavy dependencies (plotting,
// histograms, peer libraries, database drivers) out of the import graph of
// the packages a service links: those may use only the standard library,
// this module's own library packages and golang.org/x/sys.
func TestLibraryImportsStayLean(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go tool on PATH to list imports with")
	}
	library := []string{".", "./clocksrc", "./mutexgen", "./atomicgen", "./shardedgen", "./mask/..."}
	args := append([]string{"list", "-deps", "-f", "{{if not .Standard}}{{.ImportPath}}{{end}}"}, library...)
	out, err := exec.Command("go", args...).CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	allowed := []string{
		"github.com/snowlab/snowlab",
		"golang.org/x/sys/",
	}
	for _, pkg := range strings.Fields(string(out)) {
		ok := false
		for _, a := range allowed {
			if pkg == a || strings.HasPrefix(pkg, a+"/") || strings.HasPrefix(pkg, a) && strings.HasSuffix(a, "/") {
				ok = true
			}
		}
		if strings.HasPrefix(pkg, "github.com/snowlab/snowlab/lab") || strings.HasPrefix(pkg, "github.com/snowlab/snowlab/cmd") {
			ok = false
		}
		if !ok {
			t.Errorf("library import graph contains %s", pkg)
		}
	}
}

// TestGoModStaysLean: the library's go.mod requires golang.org/x/sys and,
// for the tests, testify, and otherwise only what testify itself needs, so
// that a consumer's module graph takes no minimum version from the lab, the
// service or etcd (those live in modules of their own).
func TestGoModStaysLean(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go tool on PATH to read go.mod with")
	}
	out, err := exec.Command("go", "mod", "edit", "-json").Output()
	if err != nil {
		t.Fatalf("go mod edit -json: %v", err)
	}
	var mod struct {
		Require []struct {
			Path     string
			Indirect bool
		}
	}
	if err := json.Unmarshal(out, &mod); err != nil {
		t.Fatal(err)
	}
	// What testify's packages build on, module by module: outside the
	// workspace, as a consumer resolves it.
	list := exec.Command("go", "list", "-deps", "-f", "{{with .Module}}{{.Path}}{{end}}",
		"github.com/stretchr/testify/assert", "github.com/stretchr/testify/require")
	list.Env = append(os.Environ(), "GOWORK=off")
	deps, err := list.CombinedOutput()
	if err != nil {
		t.Fatalf("go list testify: %v\n%s", err, deps)
	}
	testify := strings.Fields(string(deps))
	var direct []string
	for _, r := range mod.Require {
		if !r.Indirect {
			direct = append(direct, r.Path)
			continue
		}
		if !slices.Contains(testify, r.Path) {
			t.Errorf("go.mod requires %s (indirect), which testify does not need", r.Path)
		}
	}
	slices.Sort(direct)
	if want := []string{"github.com/stretchr/testify", "golang.org/x/sys"}; !slices.Equal(direct, want) {
		t.Errorf("go.mod requires %v directly, want %v", direct, want)
	}
}
