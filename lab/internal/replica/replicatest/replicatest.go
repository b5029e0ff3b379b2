// Package replicatest starts a snowidd replica for a test, as httptest
// starts a server. The binary is $SNOWIDD_BIN, else the module's
// bin/snowidd (make snowidd builds it); with neither the test is skipped,
// unless SNOWLAB_REQUIRE_SNOWIDD=1, which .ci/run sets after building
// bin/snowidd, so that in CI a missing replica fails rather than skips.
package replicatest

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/snowlab/snowlab/lab/internal/replica"
)

// Start starts a replica on every core for t and stops it when t ends
// (a drain that does not end in exit 0 fails t). It returns the replica's
// base URL.
func Start(t testing.TB) string {
	t.Helper()
	bin, why := Binary()
	if bin == "" {
		if os.Getenv("SNOWLAB_REQUIRE_SNOWIDD") == "1" {
			t.Fatalf("SNOWLAB_REQUIRE_SNOWIDD=1 but %s", why)
		}
		t.Skipf("no snowidd replica: %s (make snowidd builds bin/snowidd; SNOWLAB_REQUIRE_SNOWIDD=1 makes this fail)", why)
	}
	r, err := replica.Start(bin, replica.Config{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := r.Stop(); err != nil {
			t.Error(err)
		}
	})
	return r.URL
}

// Binary is the snowidd binary a test should start: $SNOWIDD_BIN when set,
// else bin/snowidd beside the repository's go.work (where make snowidd
// writes it) when it is there. With none it returns "" and why.
func Binary() (path, why string) {
	if bin := os.Getenv("SNOWIDD_BIN"); bin != "" {
		if st, err := os.Stat(bin); err != nil || st.IsDir() {
			return "", "SNOWIDD_BIN=" + bin + " is not a file"
		}
		return bin, ""
	}
	out, err := exec.Command("go", "env", "GOWORK").Output()
	if err != nil {
		return "", "SNOWIDD_BIN is not set and go env GOWORK failed: " + err.Error()
	}
	gowork := strings.TrimSpace(string(out))
	if gowork == "" || gowork == "off" {
		return "", "SNOWIDD_BIN is not set and the test runs outside the repository's workspace (go.work)"
	}
	bin := filepath.Join(filepath.Dir(gowork), "bin", "snowidd")
	if st, err := os.Stat(bin); err != nil || st.IsDir() {
		return "", "SNOWIDD_BIN is not set and there is no " + bin
	}
	return bin, ""
}
