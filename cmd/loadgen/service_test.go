package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/snowlab/snowlab/lab/remote"
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
		{[]string{"-snowidd", bin, "-protocols", "grpc,grpc-web"}, `-protocols: remote: unknown protocol "grpc-web"`},
		{[]string{"-snowidd", bin, "-server-gomaxprocs", "0"}, "-server-gomaxprocs 0: want 1 to"},
		{[]string{"-snowidd", bin, "-sweep", "1,0"}, `-sweep: "0"`},
		{[]string{"-snowidd", bin, "-duration", "0s"}, "-duration 0s"},
		{[]string{"-snowidd", bin, "-steady-duration", "-1s"}, "-steady-duration -1s"},
		{[]string{"-snowidd", bin, "-sat-repeats", "0"}, "-sat-repeats 0"},
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

// TestServiceDefaults: the defaults are what the issue asks for, and the
// steady run's length follows -duration unless set.
func TestServiceDefaults(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "snowidd")
	require.NoError(t, os.WriteFile(bin, nil, 0o755))
	o, code := parseServiceFlags([]string{"-snowidd", bin, "-duration", "250ms"}, os.Stderr)
	require.Equal(t, -1, code)
	assert.Equal(t, remote.Protocols, o.protocols)
	assert.Equal(t, []int{1, 10, 100, 1000, 10000}, o.batches)
	assert.Equal(t, []int{1, 64}, o.sweep)
	assert.Equal(t, 1, o.serverProcs)
	assert.Equal(t, o.duration, o.steadyDur)

	unbatched, all, err := serviceSubjects("http://127.0.0.1:1", o)
	require.NoError(t, err)
	var names []string
	for _, s := range all {
		names = append(names, s.Name)
	}
	assert.Equal(t, []string{"snowidd/grpc/NextID", "snowidd/connect+proto/NextID", "snowidd/connect+json/NextID",
		"snowidd/grpc/NextIDs(1)", "snowidd/grpc/NextIDs(10)", "snowidd/grpc/NextIDs(100)", "snowidd/grpc/NextIDs(1000)",
		"snowidd/grpc/NextIDs(10000)", "atomicgen/strict"}, names)
	assert.Len(t, unbatched, 3)
	assert.Contains(t, all[0].Note, "GOMAXPROCS=1")
}
