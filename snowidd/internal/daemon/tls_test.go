package daemon

import (
	"context"
	"crypto/tls"
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/snowlab/snowlab/clocksrc"
	"github.com/snowlab/snowlab/etcdlease/etcdtest"
	"github.com/snowlab/snowlab/etcdlease/tlstest"
	"github.com/snowlab/snowlab/snowidd/client"
	"github.com/snowlab/snowlab/snowidd/internal/testend"
)

// env is an environment of the variables kv (name, value, ...).
func env(kv ...string) func(string) (string, bool) {
	return func(k string) (string, bool) {
		for i := 0; i+1 < len(kv); i += 2 {
			if kv[i] == k {
				return kv[i+1], true
			}
		}
		return "", false
	}
}

// The TLS, limit and etcd flags, and their variables, and what they refuse.
func TestTLSAndLimitOptions(t *testing.T) {
	for _, tc := range []struct {
		args []string
		env  func(string) (string, bool)
		want string // error text, "" for none
	}{
		{[]string{"-lease", "static:1", "-tls-cert", "c", "-tls-key", "k"}, env(), ""},
		{[]string{"-lease", "static:1"}, env("SNOWIDD_TLS_CERT", "c", "SNOWIDD_TLS_KEY", "k", "SNOWIDD_TLS_CLIENT_CA", "ca"), ""},
		{[]string{"-lease", "static:1", "-tls-cert", "c"}, env(), "-tls-cert and -tls-key go together"},
		{[]string{"-lease", "static:1"}, env("SNOWIDD_TLS_KEY", "k"), "-tls-cert and -tls-key go together"},
		{[]string{"-lease", "static:1", "-tls-client-ca", "ca"}, env(), "-tls-client-ca ca: mutual TLS needs -tls-cert and -tls-key"},
		{[]string{"-lease", "static:1", "-read-header-timeout", "0s"}, env(), "-read-header-timeout 0s: want more than 0"},
		{[]string{"-lease", "static:1"}, env("SNOWIDD_READ_TIMEOUT", "-1s"), "-read-timeout -1s: want more than 0"},
		{[]string{"-lease", "static:1", "-idle-timeout", "0s"}, env(), "-idle-timeout 0s"},
		{[]string{"-lease", "static:1", "-max-header-bytes", "0"}, env(), "-max-header-bytes 0"},
		{[]string{"-lease", "static:1", "-max-concurrent-streams", "-3"}, env(), "-max-concurrent-streams -3"},
		{[]string{"-lease", "static:1"}, env("SNOWIDD_MAX_CONNS", "0"), "-max-conns 0"},
		{[]string{"-lease", "static:1", "-etcd-cacert", "ca"}, env(), `-lease "static:1": the -etcd-* flags are for an etcd: lease`},
		{[]string{"-lease", "dir:/tmp/x"}, env("SNOWIDD_ETCD_USER", "u"), "the -etcd-* flags are for an etcd: lease"},
		{[]string{"-lease", "static:1"}, env(EtcdPasswordVar, "pw"), ""}, // a password variable alone is not a flag
	} {
		_, err := parseOptions(tc.args, tc.env, io.Discard)
		if tc.want == "" {
			assert.NoError(t, err, "%v", tc.args)
			continue
		}
		if assert.Error(t, err, "%v", tc.args) {
			assert.Contains(t, err.Error(), tc.want)
		}
	}
	o, err := parseOptions([]string{"-lease", "static:1", "-max-conns", "7"},
		env("SNOWIDD_TLS_CERT", "c", "SNOWIDD_TLS_KEY", "k", "SNOWIDD_MAX_CONCURRENT_STREAMS", "9"), io.Discard)
	require.NoError(t, err)
	assert.True(t, o.limits.TLS)
	assert.Equal(t, 7, o.limits.MaxConns)
	assert.Equal(t, 9, o.limits.MaxConcurrentStreams)
	assert.Equal(t, 64<<10, o.limits.MaxHeaderBytes, "the default")
}

// certs are a CA and the files of a replica serving mutual TLS.
type certs struct {
	ca                       *tlstest.CA
	dir                      string
	cert, key, clientCA      string
	clientCert, clientKeyPEM []byte
}

func newCerts(t *testing.T) *certs {
	t.Helper()
	ca, err := tlstest.NewCA("snowidd daemon test CA")
	require.NoError(t, err)
	c := &certs{ca: ca, dir: t.TempDir()}
	c.clientCA, err = ca.WriteCert(c.dir, "client-ca.crt")
	require.NoError(t, err)
	c.rotate(t)
	return c
}

// rotate writes a new server certificate over the files.
func (c *certs) rotate(t *testing.T) *tlstest.Pair {
	t.Helper()
	pair, err := c.ca.Server("127.0.0.1")
	require.NoError(t, err)
	c.cert, c.key, err = pair.Write(c.dir, "server")
	require.NoError(t, err)
	return pair
}

func (c *certs) client(t *testing.T, withCert bool) *tls.Config {
	t.Helper()
	if !withCert {
		return tlstest.ClientConfig(c.ca, nil)
	}
	pair, err := c.ca.Client("snowidd-daemon-test")
	require.NoError(t, err)
	return tlstest.ClientConfig(c.ca, pair)
}

// snowidd -tls-cert -tls-key -tls-client-ca: an https:// URL, a client
// with a certificate is served, one without is refused, and a certificate
// written over the files is served from the next connection on.
func TestMutualTLS(t *testing.T) {
	c := newCerts(t)
	d := startDaemon(t, "-lease", "static:5", "-tls-cert", c.cert, "-tls-key", c.key, "-tls-client-ca", c.clientCA)
	require.True(t, strings.HasPrefix(d.url, "https://127.0.0.1:"), d.url)
	assert.Contains(t, d.log.String(), "mutual_tls=\"on: every client presents a certificate signed by "+c.clientCA)

	cl, err := client.New(client.Config{Targets: []string{d.url}, TLS: c.client(t, true)})
	require.NoError(t, err)
	ids, err := cl.NextIDs(context.Background(), 3)
	require.NoError(t, err)
	assert.Len(t, ids, 3)

	handshakeLogged := d.log.match(regexp.MustCompile(`level=WARN msg="http: TLS handshake error from 127\.0\.0\.1:\d+: tls: client didn't provide a certificate`))
	noCert := &http.Client{Transport: &http.Transport{TLSClientConfig: c.client(t, false)}}
	req, err := http.NewRequestWithContext(testend.Context(t), http.MethodGet, d.url+"/readyz", nil)
	require.NoError(t, err)
	_, err = noCert.Do(req)
	require.Error(t, err, "a client without a certificate")
	assert.Contains(t, err.Error(), "certificate required")
	select {
	case <-handshakeLogged:
	case <-testend.Context(t).Done():
		t.Fatalf("the refusal is not in the log by the test's end:\n%s", d.log)
	}

	next := c.rotate(t)
	withCert := c.client(t, true)
	conn, err := tls.Dial("tcp", strings.TrimPrefix(d.url, "https://"), withCert)
	require.NoError(t, err)
	assert.Equal(t, next.Leaf.SerialNumber, conn.ConnectionState().PeerCertificates[0].SerialNumber, "the new certificate, without a restart")
	require.NoError(t, conn.Close()) // an open connection that sent no request holds Shutdown for 5 s
	assert.Contains(t, d.log.String(), "the TLS files changed: serving the new certificate")
	assert.Equal(t, 0, d.stop(t), d.log.String())
}

// TLS files that do not load are a start-up error: exit 2, one line
// naming the file; so is a certificate that is expired or not valid yet.
func TestTLSFilesRefusedAtStart(t *testing.T) {
	c := newCerts(t)
	missing := filepath.Join(c.dir, "missing.crt")
	expired := c.writeValid(t, "expired", -72*time.Hour, -time.Hour)
	early := c.writeValid(t, "early", time.Hour, 72*time.Hour)
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"missing certificate", []string{"-tls-cert", missing, "-tls-key", c.key}, "snowidd: TLS files: certificate: open " + missing},
		{"key for the certificate", []string{"-tls-cert", c.cert, "-tls-key", c.clientCA}, "certificate " + c.cert + " and key " + c.clientCA},
		{"client CA not PEM", []string{"-tls-cert", c.cert, "-tls-key", c.key, "-tls-client-ca", c.key}, "client CA " + c.key + " holds no PEM certificate"},
		{"expired", []string{"-tls-cert", expired.cert, "-tls-key", expired.key}, "snowidd: TLS files: certificate " + expired.cert + ": the certificate (\"127.0.0.1\", serial " + expired.serial + ") expired at "},
		{"not valid yet", []string{"-tls-cert", early.cert, "-tls-key", early.key}, "snowidd: TLS files: certificate " + early.cert + ": the certificate (\"127.0.0.1\", serial " + early.serial + ") is not valid before "},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var log strings.Builder
			code := Run(context.Background(), append([]string{"-listen", "127.0.0.1:0", "-lease", "static:1"}, tc.args...), noEnv, &log)
			assert.Equal(t, exitUsage, code, log.String())
			assert.Equal(t, 1, strings.Count(log.String(), "\n"), log.String())
			assert.Contains(t, log.String(), tc.want)
		})
	}
}

// validFiles are the files of a pair and its serial, in hex.
type validFiles struct{ cert, key, serial string }

// writeValid writes to name.crt and name.key a server pair valid from
// now+from to now+until.
func (c *certs) writeValid(t *testing.T, name string, from, until time.Duration) validFiles {
	t.Helper()
	now := time.Now()
	pair, err := c.ca.ServerValid(now.Add(from), now.Add(until), "127.0.0.1")
	require.NoError(t, err)
	cert, key, err := pair.Write(c.dir, name)
	require.NoError(t, err)
	return validFiles{cert, key, fmt.Sprintf("%x", pair.Leaf.SerialNumber)}
}

// An expired pair written over the files is refused: the previous
// certificate is still served (a handshake shows its serial), the log
// says why and snowidd_tls_reloads_total{result="refused"} counts it; a
// valid pair written next is served.
func TestTLSReloadKeepsServingOverAnExpiredPair(t *testing.T) {
	c := newCerts(t)
	d := startDaemon(t, "-lease", "static:6", "-tls-cert", c.cert, "-tls-key", c.key)
	cfg := c.client(t, false)
	serial := func() string {
		t.Helper()
		conn, err := tls.Dial("tcp", strings.TrimPrefix(d.url, "https://"), cfg)
		require.NoError(t, err)
		defer conn.Close() // an open connection that sent no request holds Shutdown for 5 s
		return fmt.Sprintf("%x", conn.ConnectionState().PeerCertificates[0].SerialNumber)
	}
	first := serial()
	refusedLine := d.log.match(regexp.MustCompile(`level=WARN msg="the TLS files changed but do not load: serving the previous certificate" err=".*expired at `))

	expired := c.writeValid(t, "server", -72*time.Hour, -time.Hour) // over the served files
	require.Equal(t, c.cert, expired.cert)
	assert.Equal(t, first, serial(), "the expired pair is not served")
	select {
	case line := <-refusedLine:
		assert.Contains(t, line, "serial "+expired.serial)
	case <-testend.Context(t).Done():
		t.Fatalf("the refusal is not in the log by the test's end:\n%s", d.log)
	}
	hc := &http.Client{Transport: &http.Transport{TLSClientConfig: cfg}}
	req, err := http.NewRequestWithContext(testend.Context(t), http.MethodGet, d.url+"/metrics", nil)
	require.NoError(t, err)
	resp, err := hc.Do(req)
	require.NoError(t, err)
	body, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	require.NoError(t, resp.Body.Close())
	assert.Contains(t, string(body), "\nsnowidd_tls_reloads_total{result=\"refused\"} 1\n")
	hc.CloseIdleConnections()

	next := c.rotate(t)
	assert.Equal(t, fmt.Sprintf("%x", next.Leaf.SerialNumber), serial(), "a valid pair: served")
	assert.Equal(t, 0, d.stop(t), d.log.String())
}

// etcdPassword is the password the secured etcd's user has: no output of
// snowidd's may hold it.
const etcdPassword = "pw-snowidd-7c3e-never-logged"

// snowidd -lease etcd:https://… on an etcd that demands client
// certificates and a password: with etcdctl's flags and the password in
// $SNOWIDD_ETCD_PASSWORD it holds a lease and serves; with a wrong
// password it stops (exit 2) saying etcd refused the credentials, since
// asking again cannot help; the password is in no line of its log.
func TestEtcdWithTLSAndAPassword(t *testing.T) {
	if _, err := etcdtest.Binary(); err != nil {
		needTool(t, requireEtcd, err, "etcd")
	}
	srv, sec, err := etcdtest.StartSecured(t.TempDir(), "snowidd", etcdPassword, "/fleet")
	require.NoError(t, err)
	t.Cleanup(srv.Stop)
	// The lease's TTL is not what this test is about: at 2 s a keep-alive
	// to this TLS-and-password etcd held up past it at load average 30
	// lost the lease, and the replica's stop, failing to release it,
	// exited 1.
	args := []string{"-lease", "etcd:" + srv.Endpoints()[0] + "/fleet/a", "-ttl", "30s",
		"-etcd-user", "snowidd", "-etcd-cert", sec.ClientCert, "-etcd-key", sec.ClientKey}

	d := startDaemonEnv(t, hooks{readKernel: clocksrc.ReadKernel}, env(EtcdPasswordVar, etcdPassword, "SNOWIDD_ETCD_CACERT", sec.CAFile), args...)
	waitFor(t, "the replica is ready", ready(t, d.url))
	cl, err := client.New(client.Config{Targets: []string{d.url}})
	require.NoError(t, err)
	_, err = cl.NextID(context.Background())
	require.NoError(t, err)
	assert.Equal(t, 0, d.stop(t), d.log.String())
	assert.Contains(t, d.log.String(), "lease acquired")
	assert.NotContains(t, d.log.String(), etcdPassword)

	var log strings.Builder
	code := run(testend.Context(t), append([]string{"-listen", "127.0.0.1:0", "-etcd-cacert", sec.CAFile}, args...),
		env(EtcdPasswordVar, "wrong-"+etcdPassword), &log, hooks{readKernel: clocksrc.ReadKernel})
	assert.Equal(t, exitUsage, code, log.String())
	assert.Contains(t, log.String(), "the lease store refused the credentials")
	assert.Contains(t, log.String(), "authentication failed")
	assert.Equal(t, 1, strings.Count(log.String(), "msg=\"the lease store refused the credentials"), "asked once, not retried:\n%s", log.String())
	assert.NotContains(t, log.String(), etcdPassword)
}
