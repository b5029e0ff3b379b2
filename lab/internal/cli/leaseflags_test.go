package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/snowlab/snowlab"
	"github.com/snowlab/snowlab/lab/internal/suiteflags"
	"github.com/snowlab/snowlab/lab/subject"
	"github.com/snowlab/snowlab/nodeid"
)

// parseLeaseFlags is the flags as loadgen run reads args.
func parseLeaseFlags(t *testing.T, args ...string) *leaseFlags {
	t.Helper()
	fs := flag.NewFlagSet("loadgen run", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	var f leaseFlags
	f.register(fs)
	require.NoError(t, fs.Parse(args))
	return &f
}

func subjectNames(all []subject.Subject) []string {
	var ns []string
	for _, s := range all {
		ns = append(ns, s.Name)
	}
	return ns
}

// TestSubjectsWithoutLease: no -lease is every subject on a fixed node
// id, with a release that does nothing; the password variable alone is
// no -etcd-* flag, as it may be set for every run.
func TestSubjectsWithoutLease(t *testing.T) {
	t.Setenv(etcdPasswordVar, "Sup3r-s3cret")
	all, release, err := parseLeaseFlags(t).subjects()
	require.NoError(t, err)
	require.NotNil(t, release)
	release()
	assert.Equal(t, subjectNames(suiteflags.All()), subjectNames(all))
}

// TestSubjectsUnderLease: -lease dir: holds GOMAXPROCS node ids from 0
// (for the node-per-shard subjects) until release gives them back.
func TestSubjectsUnderLease(t *testing.T) {
	dir := t.TempDir()
	all, release, err := parseLeaseFlags(t, "-lease", "dir:"+dir).subjects()
	require.NoError(t, err)
	assert.Equal(t, subjectNames(suiteflags.All()), subjectNames(all))

	n := runtime.GOMAXPROCS(0)
	max := snowlab.Layout{}.OrDefault().MaxNode()
	store := nodeid.Dir(dir)
	claim, err := store.Acquire(context.Background(), snowlab.Layout{}, n, max)
	require.NoError(t, err)
	assert.Equal(t, n, claim.First(), "node ids 0..%d are held", n-1)
	require.NoError(t, claim.Release(context.Background(), claim.Floor()))

	release()
	claim, err = store.Acquire(context.Background(), snowlab.Layout{}, n, max)
	require.NoError(t, err)
	assert.Equal(t, 0, claim.First(), "released")
	require.NoError(t, claim.Release(context.Background(), claim.Floor()))
}

// TestSubjectsUsage: a spec or an -etcd-* flag that can never work is
// one line naming it, not a *StoreError (a usage error, exit 2, rather
// than a failure), and nothing to release. A password in the spec
// reaches no error.
func TestSubjectsUsage(t *testing.T) {
	file := filepath.Join(t.TempDir(), "plain-file")
	require.NoError(t, os.WriteFile(file, nil, 0o644))
	missing := filepath.Join(t.TempDir(), "missing.pem")
	for _, tt := range []struct {
		name string
		args []string
		want []string
	}{
		{"etcd flag without -lease", []string{"-etcd-user", "bob"},
			[]string{`the -etcd-* flags are for -lease etcd:…, not -lease ""`}},
		{"etcd flag with a dir lease", []string{"-lease", "dir:" + file, "-etcd-cacert", missing},
			[]string{`not -lease "dir:` + file + `"`}},
		{"empty", []string{"-lease", ""}, []string{"-lease: ", `""`, "want scheme:location"}},
		{"no scheme", []string{"-lease", "bogus"}, []string{"-lease: ", `"bogus"`, "want scheme:location"}},
		{"unknown scheme", []string{"-lease", "bogus:x"}, []string{"-lease: ", `unknown scheme "bogus"`, "dir, etcd, k8s, pg"}},
		{"dir under a regular file", []string{"-lease", "dir:" + filepath.Join(file, "ids")}, []string{"-lease: ", "not a directory"}},
		{"etcd without a port", []string{"-lease", "etcd:127.0.0.1/x"}, []string{"-lease: ", `"etcd:127.0.0.1/x"`, "is not HOST:PORT"}},
		{"etcd CA file missing", []string{"-lease", "etcd:127.0.0.1:2379/x", "-etcd-cacert", missing}, []string{"-lease: ", "-etcd-cacert: ", missing}},
		{"etcd cert without key", []string{"-lease", "etcd:127.0.0.1:2379/x", "-etcd-cert", missing}, []string{"-lease: ", "-etcd-cert without -etcd-key"}},
		{"pg with an empty DSN", []string{"-lease", "pg:"}, []string{"-lease: ", "want scheme:location"}},
		{"pg with a bad port", []string{"-lease", "pg:postgres://app:Sup3r-s3cret@127.0.0.1:70000/app"}, []string{"-lease: ", `"pg:postgres://app:`, "@127.0.0.1:70000/app\"", "invalid port"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			all, release, err := parseLeaseFlags(t, tt.args...).subjects()
			require.Error(t, err)
			assert.Nil(t, all)
			assert.Nil(t, release)
			assert.False(t, errors.As(err, new(*storeError)), "%v", err)
			if strings.HasPrefix(err.Error(), "-lease: ") {
				assert.ErrorIs(t, err, nodeid.ErrInvalidSpec, "a spec that can never work")
			}
			msg := err.Error()
			assert.NotContains(t, msg, "\n")
			assert.NotContains(t, msg, "Sup3r-s3cret")
			for _, want := range tt.want {
				assert.Contains(t, msg, want)
			}
		})
	}
}

// TestSubjectsEtcdPassword: the password comes from loadgen's own
// variable, never etcdctl's, so that a shell set up for etcdctl as
// another user does not lend loadgen that user; given two ways it is
// refused, naming the variable.
func TestSubjectsEtcdPassword(t *testing.T) {
	pw := filepath.Join(t.TempDir(), "password")
	require.NoError(t, os.WriteFile(pw, []byte("Sup3r-s3cret\n"), 0o600))
	spec := "etcd:127.0.0.1:2379/x"

	t.Run("etcdctl's variable", func(t *testing.T) {
		t.Setenv("ETCDCTL_PASSWORD", "Sup3r-s3cret")
		_, _, err := parseLeaseFlags(t, "-lease", spec, "-etcd-user", "bob").subjects()
		require.Error(t, err)
		assert.Contains(t, err.Error(), `-etcd-user "bob" without a password`)
		assert.Contains(t, err.Error(), "$"+etcdPasswordVar)
		assert.False(t, errors.As(err, new(*storeError)))
	})
	t.Run("file and variable", func(t *testing.T) {
		t.Setenv(etcdPasswordVar, "Sup3r-s3cret")
		_, _, err := parseLeaseFlags(t, "-lease", spec, "-etcd-user", "bob", "-etcd-password-file", pw).subjects()
		require.Error(t, err)
		assert.Contains(t, err.Error(), "-etcd-password-file and $"+etcdPasswordVar+" are both set")
		assert.NotContains(t, err.Error(), "Sup3r-s3cret")
		assert.False(t, errors.As(err, new(*storeError)))
	})
}

// TestSubjectsStoreError: a spec that is right on a store that fails is
// a *StoreError holding the spec and the store's error, nothing to
// release.
func TestSubjectsStoreError(t *testing.T) {
	dir := t.TempDir()
	// A reservation that does not parse fails the store, rather than
	// being read as never held and its time reused.
	require.NoError(t, os.WriteFile(filepath.Join(dir, "slot-0000.reserved"), []byte("garbage"), 0o644))
	spec := "dir:" + dir
	all, release, err := parseLeaseFlags(t, "-lease", spec).subjects()
	var se *storeError
	require.ErrorAs(t, err, &se)
	assert.Nil(t, all)
	assert.Nil(t, release)
	assert.Equal(t, spec, se.Spec)
	assert.Equal(t, fmt.Sprintf("-lease %q: %s", spec, se.Err), se.Error())
	assert.Contains(t, se.Error(), "slot-0000.reserved is corrupt")
	assert.NotContains(t, se.Error(), "\n")
}

// TestStoreError: the error wraps the store's, for errors.Is, and
// redacts a password in the spec and in the store's message alike.
func TestStoreError(t *testing.T) {
	cause := fmt.Errorf("dial postgres://app:Sup3r-s3cret@db:5432/app: %w", nodeid.ErrNoFreeNode)
	for _, tt := range []struct {
		name string
		err  *storeError
		want string
	}{
		{"plain", &storeError{Spec: "dir:/tmp/ids", Err: nodeid.ErrNoFreeNode},
			`-lease "dir:/tmp/ids": ` + nodeid.ErrNoFreeNode.Error()},
		{"password", &storeError{Spec: "pg:postgres://app:Sup3r-s3cret@db:5432/app", Err: cause}, `-lease "pg:postgres://app:`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			wrapped := fmt.Errorf("loadgen run: %w", tt.err)
			assert.ErrorIs(t, wrapped, nodeid.ErrNoFreeNode)
			var se *storeError
			require.ErrorAs(t, wrapped, &se)
			assert.Same(t, tt.err, se)
			assert.Contains(t, se.Error(), tt.want)
			assert.NotContains(t, se.Error(), "Sup3r-s3cret")
		})
	}
}
