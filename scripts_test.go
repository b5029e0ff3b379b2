package snowlab_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"
)

// The server scripts keep their state in a folder of this user's and this
// checkout's unless told otherwise: a fixed /tmp/snowlab-etcd let one
// user's `scripts/etcd.sh stop` stop another's server (two users, or two
// checkouts of one user). Each script's `dir` prints the folder.
func TestServerScriptsStateFolders(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the scripts are bash")
	}
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip(err)
	}
	tmp := t.TempDir()
	// Another checkout: the scripts copied to another folder.
	other := filepath.Join(t.TempDir(), "checkout")
	for _, tc := range []struct{ script, envVar, name string }{
		{"etcd.sh", "ETCD_STATE_DIR", "snowlab-etcd"},
		{"zk.sh", "ZK_STATE_DIR", "snowlab-zk"},
	} {
		t.Run(tc.script, func(t *testing.T) {
			dir := func(script string, env ...string) string {
				t.Helper()
				cmd := exec.Command("bash", script, "dir")
				cmd.Env = append(os.Environ(), append([]string{"TMPDIR=" + tmp, tc.envVar + "="}, env...)...)
				out, err := cmd.Output()
				if err != nil {
					t.Fatalf("%s dir: %v", script, err)
				}
				return strings.TrimSpace(string(out))
			}
			here := dir(filepath.Join("scripts", tc.script))
			want := regexp.MustCompile("^" + regexp.QuoteMeta(filepath.Join(tmp, tc.name)) + fmt.Sprintf("-%d-[0-9]+$", os.Getuid()))
			if !want.MatchString(here) {
				t.Errorf("default state folder %q, want %s: under $TMPDIR, this user's", here, want)
			}
			src, err := os.ReadFile(filepath.Join("scripts", tc.script))
			if err != nil {
				t.Fatal(err)
			}
			copied := filepath.Join(other, "scripts", tc.script)
			if err := os.MkdirAll(filepath.Dir(copied), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(copied, src, 0o755); err != nil {
				t.Fatal(err)
			}
			if there := dir(copied); there == here || !want.MatchString(there) {
				t.Errorf("another checkout's state folder %q, this one's %q: want two folders of this user's", there, here)
			}
			set := filepath.Join(tmp, "chosen")
			if got := dir(filepath.Join("scripts", tc.script), tc.envVar+"="+set); got != set {
				t.Errorf("with $%s=%s the state folder is %q", tc.envVar, set, got)
			}
		})
	}
}
