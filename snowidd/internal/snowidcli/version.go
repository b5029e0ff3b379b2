package snowidcli

import (
	"fmt"
	"io"

	"github.com/snowlab/snowlab/snowidd/internal/cliflag"
)

// buildInfo is the binary's build information; tests replace it.
var buildInfo = cliflag.BuildInfo

// runVersion prints the module version and VCS revision snowid was built
// from (cliflag.Version), as snowidd -version does.
func runVersion(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("version", stderr)
	pos, code, ok := parse(fs, args)
	if !ok {
		return code
	}
	if len(pos) > 0 {
		return usageError(fs, "unexpected argument %q", pos[0])
	}
	if _, err := fmt.Fprintln(stdout, cliflag.Version("snowid", buildInfo())); err != nil {
		return writeFailed(stderr, err)
	}
	return exitOK
}
