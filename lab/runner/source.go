package runner

import (
	"embed"
	"io/fs"
)

//go:embed *.go own/main.go
var source embed.FS

// Source is this package's Go files and own/main.go, the runner over
// snowlab's own generators: loadgen ab copies them into a worktree of
// each snowlab revision it compares and builds them there, against that
// revision's library, so that it can compare revisions older than this
// package. Test files are among them; loadgen leaves them out.
func Source() fs.FS { return source }
