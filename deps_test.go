package snowlab_test

import (
	"os/exec"
	"strings"
	"testing"
)

// TestLibraryImportsStayLean keeps the lab's heavy dependencies (plotting,
// histograms, peer libraries, database drivers) out of the import graph of
// the packages a service links: those may use only the standard library,
// this module's own library packages, golang.org/x/sys and cpuid.
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
		"github.com/klauspost/cpuid/v2",
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
