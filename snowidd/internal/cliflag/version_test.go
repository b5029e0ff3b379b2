package cliflag

import (
	"runtime/debug"
	"testing"

	"github.com/stretchr/testify/assert"
)

// Version says what go version -m says of a binary: the main module's
// version and path, its vcs.* build settings and the Go version.
func TestVersion(t *testing.T) {
	checkout := &debug.BuildInfo{
		GoVersion: "go1.26.8",
		Main:      debug.Module{Path: "github.com/snowlab/snowlab/snowidd", Version: "v0.0.0-20261202005647-523b29433033+dirty"},
		Settings: []debug.BuildSetting{
			{Key: "-compiler", Value: "gc"},
			{Key: "vcs", Value: "git"},
			{Key: "vcs.revision", Value: "523b29433033a1b2c3d4e5f60718293a4b5c6d7e"},
			{Key: "vcs.time", Value: "2026-12-02T00:56:47Z"},
			{Key: "vcs.modified", Value: "true"},
		},
	}
	assert.Equal(t, "snowid v0.0.0-20261202005647-523b29433033+dirty (github.com/snowlab/snowlab/snowidd; "+
		"vcs.revision=523b29433033a1b2c3d4e5f60718293a4b5c6d7e vcs.time=2026-12-02T00:56:47Z vcs.modified=true; go1.26.8)",
		Version("snowid", checkout))

	// go install …@v1.2.0: a module download, no VCS settings.
	installed := &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Path: "github.com/snowlab/snowlab/snowidd", Version: "v1.2.0"}}
	assert.Equal(t, "snowidd v1.2.0 (github.com/snowlab/snowlab/snowidd; go1.26.8)", Version("snowidd", installed))

	assert.Equal(t, "snowid (no build information in the binary)", Version("snowid", nil))
}
