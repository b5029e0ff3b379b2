package cli

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestServiceFlags: every bad flag is a usage error (exit 2) naming the
// value, before any process is started; a missing binary says how to build
// it.
func TestServiceFlags(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "snowidd")
	require.NoError(t, os.WriteFile(bin, []byte("#!/bin/sh\n"), 0o755))
	missing := filepath.Join(t.TempDir(), "nothing-here")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"-snowidd", missing}, "-snowidd " + missing + ": no snowidd binary there (make snowidd builds it"},
		{[]string{"-snowidd", t.TempDir()}, "no snowidd binary there"},
		{[]string{"-snowidd", bin, "-batches", "1,0"}, `-batches: "0" is not a number from 1 to 100000`},
		{[]string{"-snowidd", bin, "-batches", "100001"}, `"100001"`},
		{[]string{"-snowidd", bin, "-batches", "ten"}, `"ten"`},
		{[]string{"-snowidd", bin, "-protocols", "grpc,grpc-web+json"}, `-protocols: snowidd client: unknown protocol "grpc-web+json" (want one of grpc, grpc-web, connect+proto, connect+json)`},
		{[]string{"-snowidd", bin, "-server-gomaxprocs", "0"}, "-server-gomaxprocs 0: want 1 to"},
		{[]string{"-snowidd", bin, "-server-cpus", "0-x"}, `-server-cpus "0-x"`},
		{[]string{"-snowidd", bin, "-server-shards", "0"}, "-server-shards 0: want 1 to 64"},
		{[]string{"-snowidd", bin, "-steady-share", "0"}, "-steady-share 0: want more than 0, at most 1"},
		{[]string{"-snowidd", bin, "-steady-share", "1.5"}, "-steady-share 1.5"},
		{[]string{"-snowidd", bin, "-steady-share", "NaN"}, "-steady-share NaN"},
		{[]string{"-snowidd", bin, "-server-shards", "65"}, "-server-shards 65"},
		{[]string{"-snowidd", bin, "-cpus", "z"}, `-cpus "z"`},
		{[]string{"-snowidd", bin, "-sweep", "1,0"}, `-sweep: "0"`},
		{[]string{"-snowidd", bin, "-duration", "0s"}, "-duration 0s"},
		{[]string{"-snowidd", bin, "-steady-duration", "-1s"}, "-steady-duration -1s"},
		{[]string{"-snowidd", bin, "-sat-repeats", "0"}, "-sat-repeats 0"},
		{[]string{"-snowidd", bin, "-steady-workers", "0"}, "-steady-workers 0"},
		{[]string{"-snowidd", bin, "extra"}, `unexpected argument "extra"`},
	} {
		code, _, errs := runArgs(append([]string{"service"}, tc.args...)...)
		assert.Equal(t, exitUsage, code, tc.args)
		assert.Contains(t, errs, tc.want, tc.args)
	}
	code, _, errs := runArgs("service", "-no-such-flag")
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, errs, "-no-such-flag")
}
