package vcs

import (
	"runtime/debug"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestBuiltFrom: the revision comes from the build's VCS settings, else
// from the version go install recorded (a pseudo-version's commit, a
// release's tag), so an installed loadgen names its runs by commit instead
// of "nosha".
func TestBuiltFrom(t *testing.T) {
	vcs := func(rev, modified string) []debug.BuildSetting {
		return []debug.BuildSetting{{Key: "vcs", Value: "git"}, {Key: "vcs.revision", Value: rev}, {Key: "vcs.modified", Value: modified}}
	}
	for _, tc := range []struct {
		name     string
		version  string
		settings []debug.BuildSetting
		sha      string
		dirty    bool
	}{
		{"go build in a checkout", "(devel)", vcs("0123456789abcdef0123456789abcdef01234567", "false"), "0123456", false},
		{"go build in a dirty checkout", "v0.0.0-20261130101500-0123456789ab+dirty", vcs("0123456789abcdef0123456789abcdef01234567", "true"), "0123456", true},
		{"go install @commit", "v0.0.0-20261130101500-abcdef123456", nil, "abcdef1", false},
		{"go install after a tag", "v1.2.4-0.20261130101500-abcdef123456", nil, "abcdef1", false},
		{"go install after a pre-release", "v1.3.0-rc.1.0.20261130101500-abcdef123456", nil, "abcdef1", false},
		{"a dirty pseudo-version", "v0.0.0-20261130101500-abcdef123456+dirty", nil, "abcdef1", true},
		{"go install @v1.2.0", "v1.2.0", nil, "v1.2.0", false},
		{"a pre-release tag", "v1.3.0-rc-1", nil, "v1.3.0-rc-1", false},
		// 12 hex digits after a dash, but no timestamp: a tag, not a
		// pseudo-version (a split on dashes took it for a commit).
		{"a pre-release tag like a commit", "v1.0.0-beta-deadbeefcafe", nil, "v1.0.0-beta-deadbeefcafe", false},
		{"go run", "(devel)", nil, "", false},
		{"no version", "", nil, "", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			bi := &debug.BuildInfo{Main: debug.Module{Path: "github.com/snowlab/snowlab", Version: tc.version}, Settings: tc.settings}
			sha, dirty := builtFrom(bi)
			assert.Equal(t, tc.sha, sha)
			assert.Equal(t, tc.dirty, dirty)
		})
	}
}
