package resultdir

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/snowlab/snowlab/lab/internal/fixture"
	"github.com/snowlab/snowlab/lab/result"
)

func TestStem(t *testing.T) {
	at := time.Date(2026, 3, 14, 9, 26, 53, 0, time.UTC)
	h := result.Host{Hostname: "Lab-VM-3.example.org"}
	for _, tc := range []struct{ commit, want string }{
		{"6bc4800", "20260314T092653Z-lab-vm-3-6bc4800"},
		{"6bc4800+dirty", "20260314T092653Z-lab-vm-3-6bc4800-dirty"},
		{"", "20260314T092653Z-lab-vm-3-nosha"},
	} {
		assert.Equal(t, tc.want, Stem(&result.Run{Started: at, Host: h, Commit: tc.commit}))
		assert.Equal(t, tc.want+"-btree", ExperimentStem(&result.Header{Experiment: "btree", Started: at, Host: h, Commit: tc.commit}))
	}
}

func TestSlug(t *testing.T) {
	for _, tc := range []struct{ host, want string }{
		{"", "host"},
		{"   ", "host"},
		{"bench01", "bench01"},
		{"Bench-01", "bench-01"},
		{"ip-10-0-0-5.ec2.internal", "ip-10-0-0-5"},
		{"My_Host Name", "my-host-name"},
		{"a..b", "a"},
		{"--weird__host--", "weird-host"},
		{"10.0.0.5", "10-0-0-5"},
		{"::1", "1"},
		{"../../etc/passwd", "etc-passwd"},
		{"héllo/wörld", "h-llo-w-rld"},
		{"___", "host"},
		{"abcdefghijklmnopqrstuvwxyz0123456789", "abcdefghijklmnopqrstuvwxyz012345"},
		{"abcdefghijklmnopqrstuvwxyz01234_6789", "abcdefghijklmnopqrstuvwxyz01234"},
	} {
		got := Slug(result.Host{Hostname: tc.host})
		assert.Equal(t, tc.want, got, "Slug(%q)", tc.host)
		assert.LessOrEqual(t, len(got), 32)
		assert.Empty(t, strings.Trim(got, "abcdefghijklmnopqrstuvwxyz0123456789-"), "Slug(%q) = %q is not [a-z0-9-]{1,32}", tc.host, got)
	}
}

// A run written reads back as it was, leaving no temporary file; a
// folder that is not there fails the write.
func TestWriteJSON(t *testing.T) {
	dir := t.TempDir()
	run := fixture.Run()
	path := filepath.Join(dir, Stem(run)+".json")
	require.NoError(t, WriteJSON(path, run))
	back, err := result.Read(path)
	require.NoError(t, err)
	assert.Equal(t, run, back)
	names, err := os.ReadDir(dir)
	require.NoError(t, err)
	assert.Len(t, names, 1, "only the file: %v", names)
	assert.Error(t, WriteFile(filepath.Join(dir, "missing", "x.md"), []byte("x")))
}

func TestRedactArgs(t *testing.T) {
	assert.Nil(t, RedactArgs(nil))
	in := []string{"loadgen", "run", "-lease", "postgres://u:Zq9Mark@h/d", "-lease=host=h password='a Zq9Mark'", "PG_DSN=postgres://u:Zq9Mark@h/d", "-n", "5"}
	out := RedactArgs(in)
	assert.Equal(t, []string{"loadgen", "run", "-lease", "postgres://u:xxxxx@h/d", "-lease=host=h password=xxxxx", "PG_DSN=xxxxx", "-n", "5"}, out)
	assert.Equal(t, "postgres://u:Zq9Mark@h/d", in[3], "the caller's slice is not changed")
}
