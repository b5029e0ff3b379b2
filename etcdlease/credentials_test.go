package etcdlease

import (
	"context"
	"crypto/tls"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/snowlab/snowlab"
	"github.com/snowlab/snowlab/atomicgen"
	"github.com/snowlab/snowlab/etcdlease/etcdtest"
	"github.com/snowlab/snowlab/etcdlease/tlstest"
	"github.com/snowlab/snowlab/nodeid"
	"github.com/snowlab/snowlab/nodeid/storetest"
)

// testPassword is the password of the user the secured etcd's tests
// authenticate as: every error and output of theirs is searched for it.
const testPassword = "pw-9f2c1d-never-printed"

// Credentials print without their password, whatever the verb, alone or
// inside an error.
func TestCredentialsFormatHidesPassword(t *testing.T) {
	c := Credentials{TLS: &tls.Config{}, Username: "alice", Password: testPassword}
	for _, s := range []string{
		c.String(), fmt.Sprint(c), fmt.Sprintf("%v %+v %#v %s %q", c, c, c, c, c),
		fmt.Sprintf("%v", &c), fmt.Errorf("dial with %v", c).Error(),
		fmt.Sprintf("%+v", struct{ C Credentials }{c}),
	} {
		assert.NotContains(t, s, testPassword)
		assert.Contains(t, s, `user "alice"`)
	}
	assert.Equal(t, `TLS, user "alice", a password`, c.String())
	assert.Equal(t, "no TLS", Credentials{}.String())
}

// Credentials that cannot work are refused by DialWith before it makes a
// client, with snowlab.ErrInvalidConfig and without the password.
func TestDialWithRefusesCredentials(t *testing.T) {
	tlsCfg := &tls.Config{MinVersion: tls.VersionTLS12}
	for _, tt := range []struct {
		name string
		eps  []string
		cred Credentials
		want string
	}{
		{"user without password", []string{"127.0.0.1:2379"}, Credentials{Username: "alice"}, `user "alice" without a password`},
		{"password without user", []string{"127.0.0.1:2379"}, Credentials{Password: testPassword}, "a password without a user name"},
		{"TLS on http://", []string{"https://a:1", "http://b:2"}, Credentials{TLS: tlsCfg},
			"endpoint http://b:2 is plaintext (http://) but TLS is configured: write it https://b:2"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := DialWith(tt.eps, "/p", DefaultTTL, tt.cred)
			require.ErrorIs(t, err, snowlab.ErrInvalidConfig)
			assert.Contains(t, err.Error(), tt.want)
			assert.NotContains(t, err.Error(), testPassword)
		})
	}
}

// writeFile writes content to a file of the test's and returns its path.
func writeFile(t *testing.T, name, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	require.NoError(t, os.WriteFile(p, []byte(content), 0o600))
	return p
}

// The flags read into Credentials: files loaded, the password from its
// file or its variable; each mistake is one line naming the flag, and no
// line holds the password.
func TestFlagsCredentials(t *testing.T) {
	ca, err := tlstest.NewCA("flags CA")
	require.NoError(t, err)
	dir := t.TempDir()
	caFile, err := ca.WriteCert(dir, "ca.crt")
	require.NoError(t, err)
	pair, err := ca.Client("alice")
	require.NoError(t, err)
	cert, key, err := pair.Write(dir, "alice")
	require.NoError(t, err)
	other, err := ca.Client("bob")
	require.NoError(t, err)
	_, otherKey, err := other.Write(dir, "bob")
	require.NoError(t, err)
	pwFile := writeFile(t, "pw", testPassword+"\n")
	const pwVar = "TEST_ETCD_PASSWORD"

	parse := func(t *testing.T, env map[string]string, args ...string) (Credentials, error) {
		f := NewFlags(pwVar, func(k string) (string, bool) { v, ok := env[k]; return v, ok })
		fs := flag.NewFlagSet("t", flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		f.Register(fs)
		require.NoError(t, fs.Parse(args))
		assert.Equal(t, len(args) > 0, f.Given(), "Given")
		return f.Credentials()
	}

	t.Run("all", func(t *testing.T) {
		c, err := parse(t, nil, "-etcd-cacert", caFile, "-etcd-cert", cert, "-etcd-key", key,
			"-etcd-user", "alice", "-etcd-password-file", pwFile)
		require.NoError(t, err)
		require.NotNil(t, c.TLS)
		assert.Len(t, c.TLS.Certificates, 1)
		assert.NotNil(t, c.TLS.RootCAs)
		assert.Equal(t, "alice", c.Username)
		assert.Equal(t, testPassword, c.Password, "one trailing newline dropped")
	})
	t.Run("password from the variable", func(t *testing.T) {
		c, err := parse(t, map[string]string{pwVar: testPassword}, "-etcd-user", "alice")
		require.NoError(t, err)
		assert.Nil(t, c.TLS, "no TLS flag: plaintext, or the system's roots for https://")
		assert.Equal(t, testPassword, c.Password)
	})
	t.Run("none", func(t *testing.T) {
		c, err := parse(t, nil)
		require.NoError(t, err)
		assert.Equal(t, Credentials{}, c)
	})

	for _, tt := range []struct {
		name string
		env  map[string]string
		args []string
		want string
	}{
		{"cert without key", nil, []string{"-etcd-cert", cert}, "-etcd-cert without -etcd-key"},
		{"key without cert", nil, []string{"-etcd-key", key}, "-etcd-key without -etcd-cert"},
		{"key of another cert", nil, []string{"-etcd-cert", cert, "-etcd-key", otherKey}, "-etcd-cert " + cert + " -etcd-key " + otherKey + ": tls: private key does not match public key"},
		{"no cacert file", nil, []string{"-etcd-cacert", filepath.Join(dir, "nope.crt")}, "-etcd-cacert: open " + filepath.Join(dir, "nope.crt") + ": no such file or directory"},
		{"cacert not PEM", nil, []string{"-etcd-cacert", pwFile}, "-etcd-cacert " + pwFile + ": no PEM certificate in it"},
		{"user without password", nil, []string{"-etcd-user", "alice"}, `-etcd-user "alice" without a password: give -etcd-password-file or $` + pwVar},
		{"password without user", nil, []string{"-etcd-password-file", pwFile}, "a password without -etcd-user"},
		{"variable without user", map[string]string{pwVar: testPassword}, []string{"-etcd-cacert", caFile}, "a password without -etcd-user"},
		{"file and variable", map[string]string{pwVar: testPassword}, []string{"-etcd-user", "alice", "-etcd-password-file", pwFile}, "-etcd-password-file and $" + pwVar + " are both set"},
		{"empty file", nil, []string{"-etcd-user", "alice", "-etcd-password-file", writeFile(t, "empty", "\n")}, "is empty"},
		{"empty variable", map[string]string{pwVar: ""}, []string{"-etcd-user", "alice"}, "$" + pwVar + " is set but empty"},
		{"no password file", nil, []string{"-etcd-user", "alice", "-etcd-password-file", filepath.Join(dir, "nope")}, "-etcd-password-file: open"},
		{"user:password", nil, []string{"-etcd-user", "alice:" + testPassword}, "-etcd-user holds a ':' (NAME:PASSWORD?)"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := parse(t, tt.env, tt.args...)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.want)
			assert.NotContains(t, err.Error(), "\n")
			assert.NotContains(t, err.Error(), testPassword)
		})
	}
}

// secured is an etcd of this test's that demands client certificates,
// with auth enabled and a user who may write under userPrefix.
type secured struct {
	*etcdtest.Server
	*etcdtest.Secure
	client *tls.Config // trusts the CA, presents the client certificate
}

const (
	testUser   = "snowlab"
	userPrefix = "/snowlab-secure"
)

func startSecured(t *testing.T) *secured {
	t.Helper()
	if _, err := etcdtest.Binary(); err != nil {
		needEtcd(t, "this test starts its own etcd with TLS and auth, and "+err.Error())
	}
	srv, sec, err := etcdtest.StartSecured(t.TempDir(), testUser, testPassword, userPrefix)
	require.NoError(t, err)
	t.Cleanup(srv.Stop)
	pair, err := tls.LoadX509KeyPair(sec.ClientCert, sec.ClientKey)
	require.NoError(t, err)
	return &secured{Server: srv, Secure: sec,
		client: &tls.Config{RootCAs: sec.CA.Pool(), Certificates: []tls.Certificate{pair}, MinVersion: tls.VersionTLS12}}
}

// A store on an etcd with TLS, client certificates and auth: with the
// right credentials it leases node ids and mints under them; every wrong
// one is refused with an error that says why and never holds a password.
func TestSecuredEtcd(t *testing.T) {
	e := startSecured(t)
	eps := e.Endpoints()
	require.True(t, strings.HasPrefix(eps[0], "https://127.0.0.1:"), eps[0])
	good := Credentials{TLS: e.client, Username: testUser, Password: testPassword}

	t.Run("mutual TLS and a password", func(t *testing.T) {
		st, closeStore, err := DialWith(eps, userPrefix+"/"+t.Name(), testTTL, good)
		require.NoError(t, err)
		defer closeStore()
		lease, err := nodeid.Acquire(ctxT(t), st, leaseOptions())
		require.NoError(t, err)
		gen, err := atomicgen.New(lease.Config(snowlab.Config{}))
		require.NoError(t, err)
		ids := make([]snowlab.ID, 1000)
		n, err := gen.NextIDs(ids)
		require.NoError(t, err)
		assert.Equal(t, 1000, n)
		require.NoError(t, lease.Release(ctxT(t)))
	})

	// The failures: each Acquire fails as soon as etcd answers, not at the
	// reach timeout. The reach timeout here outlasts the caller's context,
	// which lasts as long as the test (storetest.UntilTestEnds): a store
	// that waited for the reach timeout would meet the caller's context's
	// end first and return its error. So an Acquire that returns ErrAuth or the TLS
	// handshake's ErrUnreachable while the caller's context is not done had
	// its answer from etcd, however loaded the machine (the bound before,
	// half a minute of wall time, assumed an answer came within it).
	refused := func(t *testing.T, cred Credentials, prefix string) error {
		t.Helper()
		st, closeStore, err := DialWith(eps, prefix, testTTL, cred)
		require.NoError(t, err)
		defer closeStore()
		const reachTimeout = 24 * time.Hour
		st.(*Store).reachTimeout = reachTimeout
		ctx := storetest.UntilTestEnds(t)
		_, err = st.Acquire(ctx, snowlab.Layout{}, 1, 1023)
		require.NoError(t, ctx.Err(), "the caller's context ended before etcd's answer: the store waited for its reach timeout (%v)", err)
		require.NotErrorIs(t, err, context.DeadlineExceeded)
		require.NotErrorIs(t, err, context.Canceled)
		require.Error(t, err)
		assert.NotContains(t, err.Error(), "within "+reachTimeout.String(), "the reach timeout's error")
		assert.NotContains(t, err.Error(), testPassword)
		assert.NotContains(t, err.Error(), "wrong-"+testPassword)
		assert.NotContains(t, err.Error(), "\n")
		t.Log(err)
		return err
	}
	noCert := e.client.Clone()
	noCert.Certificates = nil
	for _, tt := range []struct {
		name   string
		cred   Credentials
		prefix string
		is     error
		want   string
	}{
		{"wrong password", Credentials{TLS: e.client, Username: testUser, Password: "wrong-" + testPassword}, userPrefix, ErrAuth, "authentication failed"},
		{"unknown user", Credentials{TLS: e.client, Username: "mallory", Password: testPassword}, userPrefix, ErrAuth, `user "mallory"`},
		{"no user: the certificate's name is none", Credentials{TLS: e.client}, userPrefix, ErrAuth, ""},
		{"outside the user's keys", good, "/elsewhere", ErrAuth, "permission denied"},
		{"no client certificate", Credentials{TLS: noCert, Username: testUser, Password: testPassword}, userPrefix, ErrUnreachable, "certificate"},
		{"the system's roots", Credentials{TLS: &tls.Config{Certificates: e.client.Certificates}, Username: testUser, Password: testPassword}, userPrefix, ErrUnreachable, "certificate"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			err := refused(t, tt.cred, tt.prefix)
			assert.ErrorIs(t, err, tt.is)
			assert.Contains(t, err.Error(), tt.want)
		})
	}

	t.Run("the flags", func(t *testing.T) {
		pwFile := writeFile(t, "pw", testPassword+"\n")
		f := NewFlags("UNUSED", func(string) (string, bool) { return "", false })
		fs := flag.NewFlagSet("t", flag.ContinueOnError)
		f.Register(fs)
		require.NoError(t, fs.Parse([]string{"-etcd-cacert", e.CAFile, "-etcd-cert", e.ClientCert, "-etcd-key", e.ClientKey,
			"-etcd-user", testUser, "-etcd-password-file", pwFile}))
		spec := "etcd:" + eps[0] + userPrefix + "/flags"
		lease, err := nodeid.AcquireSpec(ctxT(t), spec, map[string]nodeid.Opener{"etcd": f.Opener(testTTL)}, leaseOptions())
		require.NoError(t, err)
		require.NoError(t, lease.Release(ctxT(t)))
	})
}
