package daemon

import (
	"context"
	"net"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/snowlab/snowlab/clocksrc"
	"github.com/snowlab/snowlab/snowidd/internal/testend"
)

// marker is the password the tests hide: no host, user or flag holds it.
const marker = "Zq9Mark"

// closedAddr is a loopback HOST:PORT nothing listens on.
func closedAddr(t *testing.T) string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := l.Addr().String()
	require.NoError(t, l.Close())
	return addr
}

// TestStartupHidesPasswords: a pg: lease whose DSN holds a marker password
// (in a form pgx takes) on a server that is not there: snowidd serves,
// retrying the store, and neither its "serving … lease=" line nor its
// retries hold the marker; the user and host are there.
func TestStartupHidesPasswords(t *testing.T) {
	addr := closedAddr(t)
	host, port, _ := strings.Cut(addr, ":")
	for _, dsn := range []string{
		"postgres://snow:ab?" + marker + "@" + addr + "/db?sslmode=disable",
		"postgres://snow@" + addr + "/db?sslmode=disable&pass%77ord=" + marker,
		"host=" + host + " port=" + port + " user=snow password='a " + marker + "' sslmode=disable",
		`host=` + host + ` port=` + port + ` user=snow password=a\ ` + marker + ` sslmode=disable`,
	} {
		t.Run(dsn, func(t *testing.T) {
			d := startDaemon(t, "-lease", "pg:"+dsn, "-ttl", "1s")
			waitFor(t, "a retry of the store logged", func() (bool, string) {
				return strings.Contains(d.log.String(), "retry_in="), d.log.String()
			})
			d.stop(t)
			log := d.log.String()
			assert.NotContains(t, log, marker)
			serving := regexp.MustCompile(`serving gRPC.* lease=.*`).FindString(log)
			assert.Contains(t, serving, "pg:")
			assert.Contains(t, serving, "snow")
			assert.Contains(t, serving, host)
		})
	}
}

// TestRefusalsHidePasswords: a lease spec that does not parse, and -peers
// with user information or a query, are refused (exit 2) on one line that
// does not hold the marker, from a flag or a SNOWIDD_* variable.
func TestRefusalsHidePasswords(t *testing.T) {
	addr := closedAddr(t)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"-lease", "pg:host=h user=snow password='" + marker}, `"pg:<a key=value string that does not parse, 34 bytes>"`},
		{[]string{"-lease", "pg:postgres://snow:a b" + marker + "@" + addr + "/db"}, "pg:postgres://snow:xxxxx@" + addr + "/db"},
		{[]string{"-lease", "pg:host=h password=" + marker, "-etcd-user", "u"}, "pg:host=h password=xxxxx"},
		{[]string{"-lease", "static:1", "-peers", "http://ops:" + marker + "@h:1"}, `"http://ops:xxxxx@h:1"`},
		{[]string{"-lease", "static:1", "-peers", "http://h:1,http://h:2?token=" + marker}, `"http://h:2?token=xxxxx"`},
		{[]string{"-lease", "static:1", "-peers", "http://h:1#" + marker}, `"http://h:1#xxxxx"`},
		{[]string{"-lease", "static:1", "password=" + marker}, `unexpected argument "password=xxxxx"`},
		{[]string{"-lease", "static:" + marker}, `"static:xxxxx"`},
	} {
		var log strings.Builder
		code := run(testend.Context(t), append([]string{"-listen", "127.0.0.1:0"}, tc.args...), noEnv, &log, hooks{readKernel: clocksrc.ReadKernel})
		assert.Equal(t, exitUsage, code, "%v: %s", tc.args, log.String())
		assert.NotContains(t, log.String(), marker, "%v", tc.args)
		assert.Contains(t, log.String(), tc.want, "%v", tc.args)
		assert.Equal(t, 1, strings.Count(log.String(), "\n"), "one line: %s", log.String())
	}
	// The same from a SNOWIDD_* variable.
	env := func(k string) (string, bool) {
		if k == "SNOWIDD_PEERS" {
			return "http://ops:" + marker + "@h:1", true
		}
		return "", false
	}
	var log strings.Builder
	code := run(context.Background(), []string{"-listen", "127.0.0.1:0", "-lease", "static:1"}, env, &log, hooks{readKernel: clocksrc.ReadKernel})
	assert.Equal(t, exitUsage, code, log.String())
	assert.NotContains(t, log.String(), marker)
}
