package cliflag

import (
	"fmt"
	"runtime/debug"
	"strings"
)

// Version is the line "snowid version" and "snowidd -version" print: the
// command, the version of the module it was built from and that module's
// path, the VCS settings the go command stamped (vcs.revision, vcs.time,
// vcs.modified: a build inside a checkout has them, a go install of a
// module version has none) and the Go version, all as `go version -m`
// shows them, from bi (debug.ReadBuildInfo's; nil when the binary holds
// none):
//
//	snowid v0.0.0-20261202005647-523b29433033 (github.com/snowlab/snowlab/snowidd; vcs.revision=523b2943…; go1.26.8)
func Version(name string, bi *debug.BuildInfo) string {
	if bi == nil {
		return name + " (no build information in the binary)"
	}
	parts := []string{bi.Main.Path}
	var vcs []string
	for _, s := range bi.Settings {
		if strings.HasPrefix(s.Key, "vcs.") && s.Key != "vcs" {
			vcs = append(vcs, s.Key+"="+s.Value)
		}
	}
	if len(vcs) > 0 {
		parts = append(parts, strings.Join(vcs, " "))
	}
	parts = append(parts, bi.GoVersion)
	version := bi.Main.Version
	if version == "" {
		version = "(unknown)"
	}
	return fmt.Sprintf("%s %s (%s)", name, version, strings.Join(parts, "; "))
}

// BuildInfo is debug.ReadBuildInfo's answer, nil when it has none.
func BuildInfo() *debug.BuildInfo {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return nil
	}
	return bi
}
