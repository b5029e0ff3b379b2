package main

import (
	"bytes"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/snowlab/snowlab"
	"github.com/snowlab/snowlab/etcdlease/etcdtest"
)

const (
	user     = "snowid"
	password = "pw-4e1a7b-never-printed"
	prefix   = "/snowid-test"
)

// secured starts an etcd of the test's with TLS, client certificates and
// auth, and a user who may write under prefix.
func secured(t *testing.T) (*etcdtest.Server, *etcdtest.Secure) {
	t.Helper()
	if _, err := etcdtest.Binary(); err != nil {
		if os.Getenv("SNOWLAB_REQUIRE_ETCD") == "1" {
			t.Fatalf("etcd is required when SNOWLAB_REQUIRE_ETCD=1: %v", err)
		}
		t.Skip(err)
	}
	srv, sec, err := etcdtest.StartSecured(t.TempDir(), user, password, prefix)
	require.NoError(t, err)
	t.Cleanup(srv.Stop)
	return srv, sec
}

// snowid gen on an etcd that demands a client certificate and a
// password, given as etcdctl names them: it mints with the password from
// its variable or its file; a wrong one, or one on the command line, is
// one line that does not repeat it; and no output ever holds it.
func TestGenSecuredEtcd(t *testing.T) {
	srv, sec := secured(t)
	spec := "etcd:" + srv.Endpoints()[0] + prefix + "/gen"
	tlsFlags := []string{"-etcd-cacert", sec.CAFile, "-etcd-cert", sec.ClientCert, "-etcd-key", sec.ClientKey}
	pwFile := filepath.Join(t.TempDir(), "pw")
	require.NoError(t, os.WriteFile(pwFile, []byte(password+"\n"), 0o600))

	run := func(env map[string]string, args ...string) (int, string, string) {
		var out, errs bytes.Buffer
		code := run(args, &out, &errs, func(k string) (string, bool) { v, ok := env[k]; return v, ok })
		for _, s := range []string{out.String(), errs.String()} {
			assert.NotContains(t, s, password)
		}
		return code, out.String(), errs.String()
	}
	withPassword := map[string]string{passwordVar: password}

	for _, tt := range []struct {
		name string
		env  map[string]string
		args []string
	}{
		{"password from $SNOWID_ETCD_PASSWORD", withPassword, []string{"-etcd-user", user}},
		{"password from -etcd-password-file", nil, []string{"-etcd-user", user, "-etcd-password-file", pwFile}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			code, out, errs := run(tt.env, append(append([]string{"gen", "-lease", spec, "-n", "3"}, tlsFlags...), tt.args...)...)
			require.Equal(t, 0, code, errs)
			ids := strings.Fields(out)
			require.Len(t, ids, 3)
			for _, s := range ids {
				_, err := snowlab.ParseID(s)
				assert.NoError(t, err)
			}
		})
	}

	for _, tt := range []struct {
		name string
		env  map[string]string
		args []string
		code int
		want string
	}{
		{"wrong password", map[string]string{passwordVar: "wrong-" + password},
			append([]string{"gen", "-lease", spec, "-etcd-user", user}, tlsFlags...), 1, "etcd refused the credentials"},
		{"password on the command line", nil,
			append([]string{"gen", "-lease", spec, "-etcd-user", user + ":" + password}, tlsFlags...), 2, "-etcd-user holds a ':'"},
		{"no client certificate", withPassword,
			[]string{"gen", "-lease", spec, "-etcd-cacert", sec.CAFile, "-etcd-user", user}, 1, "tls: bad certificate"},
		{"etcd flags without an etcd lease", nil,
			[]string{"gen", "-node", "3", "-etcd-cacert", sec.CAFile}, 2, "the -etcd-* flags are for -lease etcd:…"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			code, out, errs := run(tt.env, tt.args...)
			t.Logf("exit %d: %s", code, strings.TrimSpace(errs))
			assert.Equal(t, tt.code, code, errs)
			assert.Empty(t, out)
			assert.Equal(t, 1, strings.Count(errs, "\n"), errs)
			assert.Contains(t, errs, tt.want)
		})
	}
}

// TestGenEtcdLease runs snowid gen twice on one prefix of a plain etcd:
// both runs hold a node id in etcd, and the second, on the same id after
// the first released it, continues past every ID the first minted.
func TestGenEtcdLease(t *testing.T) {
	if _, err := etcdtest.Binary(); err != nil {
		if os.Getenv("SNOWLAB_REQUIRE_ETCD") == "1" {
			t.Fatalf("etcd is required when SNOWLAB_REQUIRE_ETCD=1: %v", err)
		}
		t.Skip(err)
	}
	srv, err := etcdtest.Start(t.TempDir())
	require.NoError(t, err)
	t.Cleanup(srv.Stop)
	spec := "etcd:" + srv.Endpoints()[0] + prefix + "/plain"
	gen := func(n int) []snowlab.ID {
		var out, errs bytes.Buffer
		code := run([]string{"gen", "-lease", spec, "-n", fmt.Sprint(n), "-policy", "monotonic"}, &out, &errs, noEnv)
		require.Equal(t, 0, code, errs.String())
		var ids []snowlab.ID
		for _, f := range strings.Fields(out.String()) {
			id, err := snowlab.ParseID(f)
			require.NoError(t, err)
			ids = append(ids, id)
		}
		require.Len(t, ids, n)
		return ids
	}
	first := gen(5000)
	second := gen(10)
	assert.Greater(t, second[0], first[len(first)-1])
	assert.Equal(t, snowlab.DefaultLayout.Decode(first[0]).Node, snowlab.DefaultLayout.Decode(second[0]).Node,
		"the released id is taken again")
}

// TestGenEtcdUnreachable: gen -lease etcd: on a port nothing listens on
// is exit 1 (the spec is right, etcd is down), one line naming the
// endpoint; this needs no etcd.
func TestGenEtcdUnreachable(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := ln.Addr().String()
	require.NoError(t, ln.Close())
	var out, errs bytes.Buffer
	code := run([]string{"gen", "-lease", "etcd:http://" + addr + "/myapp"}, &out, &errs, noEnv)
	assert.Equal(t, 1, code, errs.String())
	assert.Empty(t, out.String())
	assert.Equal(t, 1, strings.Count(errs.String(), "\n"), errs.String())
	assert.Contains(t, errs.String(), "no etcd at http://"+addr)
}
