package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// A ZooKeeper path that can never work (ZooKeeper refuses its name) is
// a bad spec: one line naming the path, escaped, and exit 2, not exit 1
// as if the store were down. This needs no server.
func TestGenRefusesZooKeeperPaths(t *testing.T) {
	for spec, want := range map[string]string{
		"zk:127.0.0.1:2181/ids\x01x":  "U+0001 at byte 4",
		"zk:127.0.0.1:2181/ids\nx":    "U+000A at byte 4",
		"zk:127.0.0.1:2181/a/../b":    `component 2 is ".."`,
		"zk:127.0.0.1:2181/ids\ue000": "U+E000 at byte 4",
		"zk:127.0.0.1:2181/ids\xff":   "byte 4 is not UTF-8",
	} {
		var out, errs bytes.Buffer
		code := run([]string{"gen", "-lease", spec, "-n", "1"}, &out, &errs, noEnv)
		assert.Equal(t, 2, code, "%q: %s", spec, errs.String())
		assert.Empty(t, out.String())
		assert.Equal(t, 1, strings.Count(errs.String(), "\n"), "one line: %q", errs.String())
		assert.Contains(t, errs.String(), want, "%q", spec)
		assert.NotContains(t, errs.String(), "\x01")
	}
}
