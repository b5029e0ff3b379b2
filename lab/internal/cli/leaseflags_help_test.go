package cli

import (
	"flag"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/snowlab/snowlab/snowidd/leasespec"
)

// -lease takes a spec, not a path: its metavar says SPEC and its text
// lists every scheme loadgen opens (leasespec's, ZooKeeper's included,
// which it left out), so "-lease PATH" does not send a new user to give a
// folder where etcd: or pg: was meant.
func TestHelpLeaseIsASpec(t *testing.T) {
	fs := flag.NewFlagSet("loadgen run", flag.ContinueOnError)
	var help strings.Builder
	fs.SetOutput(&help)
	new(leaseFlags).register(fs)
	fs.PrintDefaults()
	assert.Contains(t, help.String(), "\n  -lease SPEC\n")
	for _, s := range leasespec.Stores() {
		assert.Contains(t, help.String(), s.Form)
	}
}
