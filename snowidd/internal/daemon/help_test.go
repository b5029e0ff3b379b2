package daemon

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/snowlab/snowlab/snowidd/internal/cliflag"
	"github.com/snowlab/snowlab/snowidd/leasespec"
)

// -lease takes a spec, not a path: its metavar says SPEC and its text
// lists every scheme snowidd opens, so "-lease PATH" does not send a new
// user to give a folder where etcd:, pg: or static: was meant.
func TestHelpLeaseIsASpec(t *testing.T) {
	var help strings.Builder
	_, err := parseOptions([]string{"-h"}, env(), &help)
	require.True(t, errors.Is(err, errHelp), "%v", err)
	assert.Contains(t, help.String(), "\n  -lease SPEC\n")
}

// TestTextsNameEveryStore: each text of snowidd that lists the lease
// stores names every one it opens (leasespec's, which openStore opens):
// -h's -lease and -ttl (the stores whose holds expire), the error for a
// missing -lease and -prefer-ordinal's with static:N. ZooKeeper was
// missing from all four.
func TestTextsNameEveryStore(t *testing.T) {
	var help strings.Builder
	_, err := parseOptions([]string{"-h"}, env(), &help)
	require.True(t, errors.Is(err, errHelp), "%v", err)
	flagHelp := func(name string) string {
		_, rest, ok := strings.Cut(help.String(), "\n  -"+name+" ")
		require.True(t, ok, "no -%s in %s", name, help.String())
		text, _, _ := strings.Cut(rest, "\n  -")
		return text
	}
	_, required := parseOptions(nil, env(), &help)
	require.Error(t, required)
	_, ordinal := parseOptions([]string{"-lease", "static:1", "-prefer-ordinal"}, env(), &help)
	require.Error(t, ordinal)

	for _, s := range append(leasespec.Stores(), staticScheme) {
		assert.Contains(t, flagHelp("lease"), s.Form, "-lease's help")
		assert.Contains(t, required.Error(), s.Form, "the error for no -lease")
		if s.Name == "static" {
			continue
		}
		assert.Contains(t, ordinal.Error(), s.Name+":", "-prefer-ordinal's error")
		if s.Expires {
			assert.Contains(t, flagHelp("ttl"), s.Name+":", "-ttl's help")
		} else {
			assert.NotContains(t, flagHelp("ttl"), s.Name+":", "-ttl's help: a %s hold does not expire", s.Name)
		}
	}
	assert.Equal(t, "-lease is required: dir:PATH, etcd:HOST:PORT/PREFIX, pg:DSN, k8s:NAMESPACE/PREFIX, zk:HOST:PORT[,...]/PATH or static:N", required.Error())
}

// snowidd -version prints the line snowid version prints, for snowidd's
// build, on stdout, and starts nothing.
func TestVersionFlag(t *testing.T) {
	var out, log bytes.Buffer
	code := run(context.Background(), []string{"-version"}, env(), &log, hooks{stdout: &out})
	assert.Equal(t, exitOK, code, log.String())
	assert.Equal(t, cliflag.Version("snowidd", cliflag.BuildInfo())+"\n", out.String())
	assert.True(t, strings.HasPrefix(out.String(), "snowidd "), out.String())
	assert.Empty(t, log.String())
}
