package daemon

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/snowlab/snowlab"
	"github.com/snowlab/snowlab/nodeid"
	"github.com/snowlab/snowlab/snowidd/client"
	"github.com/snowlab/snowlab/snowidd/internal/testend"
)

func TestOptions(t *testing.T) {
	env := func(kv ...string) func(string) (string, bool) {
		return func(k string) (string, bool) {
			for i := 0; i < len(kv); i += 2 {
				if kv[i] == k {
					return kv[i+1], true
				}
			}
			return "", false
		}
	}
	for _, tc := range []struct {
		args []string
		env  func(string) (string, bool)
		want string // error text, "" for none
	}{
		{[]string{"-lease", "static:3"}, env(), ""},
		{nil, env("SNOWIDD_LEASE", "static:3", "SNOWIDD_SHARDS", "4", "SNOWIDD_REWIND_HOLD", "1s"), ""},
		{nil, env(), "-lease is required"},
		{nil, env("SNOWIDD_LEASE", "static:3", "SNOWIDD_SHARDS", "many"), `$SNOWIDD_SHARDS="many"`},
		{[]string{"-lease", "static:3"}, env("SNOWIDD_POLICY", "lazy"), `-policy "lazy"`},
		{[]string{"-lease", "static:3", "-policy", "monotonic"}, env("SNOWIDD_POLICY", "lazy"), ""},
		{[]string{"-lease", "static:1024"}, env(), "node 1024, want 0..1023"},
		{[]string{"-lease", "static:x"}, env(), `"static:xxxxx": static:N wants a node id`},
		{[]string{"-lease", "static:1020", "-shards", "8"}, env(), "last shard"},
		{[]string{"-lease", "static:0", "-shards", "0"}, env(), "-shards 0: want 1..64"},
		{[]string{"-lease", "static:0", "-layout", "41/10/11"}, env(), "-layout"},
		{[]string{"-lease", "static:0", "-window", "1ms"}, env(), "-window 1ms"},
		{[]string{"-lease", "static:0", "extra"}, env(), `unexpected argument "extra"`},
		{[]string{"-lease", "static:0", "-listen", "nonsense"}, env(), `-listen "nonsense": want HOST:PORT`},
		{[]string{"-lease", "static:0"}, env("SNOWIDD_LISTEN", "127.0.0.1:99999"), `-listen "127.0.0.1:99999": port "99999"`},
		{[]string{"-lease", "static:0", "-listen", ":0"}, env(), ""},
		{[]string{"-lease", "static:0", "-listen", "[::1]:http"}, env(), ""},
		{[]string{"-lease", "static:0", "-clock-max-error", "-1ms"}, env(), "-clock-max-error -1ms: want 0 (off) or more"},
		{[]string{"-lease", "static:0"}, env("SNOWIDD_CLOCK_MAX_ERROR", "soon"), `$SNOWIDD_CLOCK_MAX_ERROR="soon"`},
		{[]string{"-lease", "static:0", "-horizon-warn", "-1h"}, env(), "-horizon-warn -1h0m0s: want 0 or more"},
		{[]string{"-lease", "static:0"}, env("SNOWIDD_HORIZON_WARN", "1h", "SNOWIDD_CLOCK_MAX_ERROR", "250ms"), ""},
	} {
		o, err := parseOptions(tc.args, tc.env, io.Discard)
		if tc.want == "" {
			require.NoError(t, err, "%v", tc.args)
			assert.NotEmpty(t, o.leaseSpec)
			continue
		}
		require.Error(t, err, "%v", tc.args)
		assert.Contains(t, err.Error(), tc.want)
	}
	o, err := parseOptions(nil, env("SNOWIDD_LEASE", "static:3", "SNOWIDD_SHARDS", "4", "SNOWIDD_REWIND_HOLD", "1s"), io.Discard)
	require.NoError(t, err)
	assert.Equal(t, 4, o.shards)
	assert.Equal(t, time.Second, o.rewindHold)
	assert.Equal(t, "SNOWIDD_MAX_WAIT", envName("max-wait"))

	o, err = parseOptions([]string{"-lease", "static:0"}, env("SNOWIDD_HORIZON_WARN", "1h", "SNOWIDD_CLOCK_MAX_ERROR", "250ms"), io.Discard)
	require.NoError(t, err)
	assert.Equal(t, time.Hour, o.horizonWarn)
	assert.Equal(t, 250*time.Millisecond, o.clockMaxError)
	o, err = parseOptions([]string{"-lease", "static:0"}, env(), io.Discard)
	require.NoError(t, err)
	assert.Equal(t, 2*365.2425*24*float64(time.Hour), float64(o.horizonWarn), "two years by default")
	assert.Zero(t, o.clockMaxError, "the clock check is off by default")
}

// TestPreferOrdinal: -prefer-ordinal reads the pod's ordinal ($POD_INDEX
// here) into the lease's preference; one that is not a number, or that
// the layout cannot hold, is refused.
func TestPreferOrdinal(t *testing.T) {
	none := func(string) (string, bool) { return "", false }
	t.Setenv(nodeid.PodIndexEnv, "5")
	o, err := parseOptions([]string{"-lease", "dir:/nonexistent/ids", "-prefer-ordinal"}, none, io.Discard)
	require.NoError(t, err)
	assert.True(t, o.preferOrdinal)
	assert.Equal(t, 5, o.prefer)
	o, err = parseOptions([]string{"-lease", "dir:/nonexistent/ids"}, none, io.Discard)
	require.NoError(t, err)
	assert.False(t, o.preferOrdinal, "no preference unless asked")
	_, err = parseOptions([]string{"-lease", "dir:/nonexistent/ids", "-prefer-ordinal", "-shards", "4", "-layout", "41/3/19"}, none, io.Discard)
	require.ErrorContains(t, err, "passes the layout's last node id 7")
	t.Setenv(nodeid.PodIndexEnv, "x")
	_, err = parseOptions([]string{"-lease", "dir:/nonexistent/ids", "-prefer-ordinal"}, none, io.Discard)
	require.ErrorContains(t, err, "-prefer-ordinal")
}

// TestRunRefusesBadUsage: a command line, lease spec or listen address that
// can never work ends Run before it serves: exit 2, one line naming the
// value. Without that, a mistyped lease is a replica that serves, never
// ready, forever.
func TestRunRefusesBadUsage(t *testing.T) {
	file := filepath.Join(t.TempDir(), "plain-file")
	require.NoError(t, os.WriteFile(file, nil, 0o644))
	underFile := filepath.Join(file, "ids")
	for _, tc := range []struct {
		name string
		args []string
		env  []string
		want []string
	}{
		{"unknown flag", []string{"-lease", "static:1", "-bogus"}, nil, []string{"flag provided but not defined: -bogus", "run 'snowidd -h'"}},
		{"flag value that does not parse", []string{"-lease", "static:1", "-grace", "soon"}, nil, []string{`"soon"`, "-grace"}},
		{"shards with a bad lease", []string{"-lease", "nope:x", "-shards", "99"}, nil, []string{"-shards 99"}},
		{"no scheme", []string{"-lease", "bogus"}, nil, []string{`"bogus"`, "want scheme:location"}},
		{"unknown scheme", []string{"-lease", "bogus:x"}, nil, []string{`"bogus:xxxxx"`, `unknown scheme "bogus"`, "dir, etcd", "also takes static:N"}},
		{"unknown scheme from the environment", nil, []string{"SNOWIDD_LEASE", "dri:/tmp/x"}, []string{`"dri:/tmp/x"`, `unknown scheme "dri"`}},
		{"empty spec", nil, []string{"SNOWIDD_LEASE", ""}, []string{"-lease is required"}},
		{"dir under a regular file", []string{"-lease", "dir:" + underFile}, nil, []string{`"dir:` + underFile + `"`, "not a directory"}},
		{"dir without a path", []string{"-lease", "dir:"}, nil, []string{`"dir:"`}},
		{"etcd without a port", []string{"-lease", "etcd:127.0.0.1/x"}, nil, []string{`"etcd:127.0.0.1/x"`, "not HOST:PORT"}},
		{"zk path with a control character", []string{"-lease", "zk:127.0.0.1:2181/ids\x01x"}, nil, []string{"U+0001 at byte 4, which ZooKeeper refuses"}},
		{"zk path with a newline", []string{"-lease", "zk:127.0.0.1:2181/ids\nx"}, nil, []string{"U+000A at byte 4"}},
		{"k8s with a bad namespace", []string{"-lease", "k8s:Bad_NS/ids"}, nil, []string{`namespace "Bad_NS"`, "want NAMESPACE/PREFIX"}},
		{"an ordinal without a store", []string{"-lease", "static:1", "-prefer-ordinal"}, nil, []string{"-prefer-ordinal needs a lease store", "#54368"}},
		{"etcd with another scheme", []string{"-lease", "etcd:ftp://127.0.0.1:2379/x"}, nil, []string{`scheme "ftp://"`}},
		{"pg DSN that does not parse", []string{"-lease", "pg:postgres://snow:S3cret@127.0.0.1:notaport/db"}, nil,
			[]string{`"pg:postgres://snow:xxxxx@127.0.0.1:xxxxx/db"`, "the DSN does not parse"}},
		{"pg table name", []string{"-lease", "pg:host=127.0.0.1 password=S3cret snowlab_table=Ids"}, nil, []string{`snowlab_table="Ids"`}},
		{"listen without a port", []string{"-lease", "static:1", "-listen", "nonsense"}, nil, []string{`-listen "nonsense"`}},
		{"listen on a port past 65535", []string{"-lease", "dir:" + t.TempDir(), "-listen", "127.0.0.1:70000"}, nil, []string{`-listen "127.0.0.1:70000"`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			getenv := func(k string) (string, bool) {
				for i := 0; i < len(tc.env); i += 2 {
					if tc.env[i] == k {
						return tc.env[i+1], true
					}
				}
				return "", false
			}
			args := append([]string{"-listen", "127.0.0.1:0"}, tc.args...)
			// A replica that serves instead would run until the test's
			// end, and then exit 0.
			var log strings.Builder
			code := Run(testend.Context(t), args, getenv, &log)
			assert.Equal(t, exitUsage, code, log.String())
			assert.Equal(t, 1, strings.Count(log.String(), "\n"), log.String())
			assert.True(t, strings.HasPrefix(log.String(), "snowidd: "), log.String())
			for _, w := range tc.want {
				assert.Contains(t, log.String(), w)
			}
			assert.NotContains(t, log.String(), "S3cret", "a password in the lease spec")
		})
	}
}

// TestListenPortTaken: a well-formed address whose port is taken is a
// failure at run time (exit 1), not a usage error.
func TestListenPortTaken(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer ln.Close()
	var log strings.Builder
	code := Run(context.Background(), []string{"-lease", "static:1", "-listen", ln.Addr().String()}, func(string) (string, bool) { return "", false }, &log)
	assert.Equal(t, exitFail, code, log.String())
	assert.Contains(t, log.String(), fmt.Sprintf("-listen %q", ln.Addr().String()))
	assert.Contains(t, log.String(), "address already in use")
}

// TestEtcdDownIsRetried: an etcd spec that parses, with nothing listening
// on its port, is a store that is down, not a mistake: the replica serves,
// not ready, says which endpoint did not answer, and keeps asking.
func TestEtcdDownIsRetried(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := ln.Addr().String()
	require.NoError(t, ln.Close())
	d := startDaemon(t, "-lease", "etcd:http://"+addr+"/x")
	retried := regexp.MustCompile(`acquiring a lease.*no etcd at http://` + regexp.QuoteMeta(addr))
	for range 2 { // the first attempt, and one after it: a retry
		select {
		case <-d.log.match(retried):
		case <-testend.Context(t).Done():
			t.Fatalf("fewer than 2 attempts at the lease logged by the test's end:\n%s", d.log)
		}
	}
	code, body := readyz(testend.Context(t), d.url)
	assert.Equal(t, http.StatusServiceUnavailable, code)
	assert.Contains(t, body, "no etcd at http://"+addr)
	assert.Equal(t, 0, d.stop(t), d.log.String())
}

// TestPGDownIsRetried: a pg spec that parses, with nothing listening on
// its port, is a store that is down: the replica serves, not ready, and
// keeps asking; the DSN's password is in neither its log nor /readyz.
func TestPGDownIsRetried(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := ln.Addr().String()
	require.NoError(t, ln.Close())
	d := startDaemon(t, "-lease", "pg:postgres://snow:S3cret@"+addr+"/db?sslmode=disable")
	retried := regexp.MustCompile(`acquiring a lease.*connection refused`)
	for range 2 { // the first attempt, and one after it: a retry
		select {
		case <-d.log.match(retried):
		case <-testend.Context(t).Done():
			t.Fatalf("fewer than 2 attempts at the lease logged by the test's end:\n%s", d.log)
		}
	}
	code, body := readyz(testend.Context(t), d.url)
	assert.Equal(t, http.StatusServiceUnavailable, code)
	assert.Contains(t, body, addr)
	assert.NotContains(t, body, "S3cret")
	assert.Equal(t, 0, d.stop(t), d.log.String())
	assert.NotContains(t, d.log.String(), "S3cret")
	assert.Contains(t, d.log.String(), `lease="pg:postgres://snow:xxxxx@`+addr)
}

// A replica on a dir lease serves, and on SIGTERM releases the lease with
// the end of the last tick it used: its successor's floor.
func TestDirLeaseReleaseStoresLastEnd(t *testing.T) {
	dir := t.TempDir()
	d := startDaemon(t, "-lease", "dir:"+dir, "-shards", "2")
	c, err := client.New(client.Config{Targets: []string{d.url}})
	require.NoError(t, err)
	waitFor(t, "the replica is ready", ready(t, d.url))
	ids, err := c.NextIDs(context.Background(), 5000)
	require.NoError(t, err)
	last := ids[0]
	for _, id := range ids {
		last = max(last, id)
	}
	require.Equal(t, 0, d.stop(t), d.log.String())
	assert.Contains(t, d.log.String(), "lease released")

	succ, err := nodeid.Acquire(context.Background(), nodeid.Dir(dir), nodeid.Options{Count: 2})
	require.NoError(t, err)
	defer succ.Release(context.Background())
	lastTick := snowlab.DefaultLayout.Decode(last).Time
	floor := time.Unix(0, succ.Fence().Floor())
	assert.False(t, floor.Before(lastTick.Add(time.Millisecond)), "floor %v is before the end of the last tick used %v", floor, lastTick)
	// The reservation runs a window (3 s) ahead of the last refresh,
	// made once a second: past the last tick by 2 s or so. Measured from
	// the last tick, not from now, which a loaded machine moves on while
	// the release and this check run (so that the whole reservation
	// stored passed as the last tick).
	assert.True(t, floor.Before(lastTick.Add(time.Second)), "floor %v: the whole reservation was stored, not the last tick %v", floor, lastTick)
}

// curl, the JSON path as a person would use it.
func TestCurl(t *testing.T) {
	_, missing := exec.LookPath("curl")
	needTool(t, requireClients, missing, "curl")
	d := startDaemon(t, "-lease", "static:9")
	curl := func(args ...string) string {
		t.Helper()
		out, err := exec.Command("curl", append([]string{"-sS", "-w", "\n%{http_code}"}, args...)...).CombinedOutput()
		require.NoError(t, err, "%s", out)
		return string(out)
	}
	out := curl("-H", "Content-Type: application/json", "-d", `{"count":3}`, d.url+"/snowlab.v1.IDService/NextIDs")
	body, code, _ := strings.Cut(out, "\n")
	require.Equal(t, "200", code, out)
	var got struct{ IDs []string }
	require.NoError(t, json.Unmarshal([]byte(body), &got), body)
	require.Len(t, got.IDs, 3)
	for _, s := range got.IDs {
		id, err := snowlab.ParseID(s)
		require.NoError(t, err)
		assert.Equal(t, 9, snowlab.DefaultLayout.Decode(id).Node)
	}
	out = curl("-H", "Content-Type: application/json", "-d", `{"id":"`+got.IDs[0]+`"}`, d.url+"/snowlab.v1.IDService/Decode")
	body, code, _ = strings.Cut(out, "\n")
	require.Equal(t, "200", code, out)
	var parts map[string]any
	require.NoError(t, json.Unmarshal([]byte(body), &parts), body)
	assert.Equal(t, float64(9), parts["node"], body)
	assert.Contains(t, parts, "seq", "every field, zero ones too: %s", body)
	assert.Equal(t, got.IDs[0], parts["id"], body)

	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"-H", "Content-Type: application/json", "-d", `{"count":100001}`}, "count 100001 is out of range: want 1..100000\"}\n400"},
		{[]string{"-H", "Content-Type: application/json", "-d", `{"count":-1}`}, "count: -1 is not an integer in 0..4294967295"},
		{[]string{"-H", "Content-Type: application/json", "-d", `{"count":`}, "count: the body ends before its value\"}\n400"},
		{[]string{"-H", "Content-Type: application/json", "-d", `{"count":3,"pad":"` + strings.Repeat("x", 5<<10) + `"}`}, "over the limit of 4096\"}\n413"},
		{[]string{"-d", `{"count":3}`}, "Content-Type \"application/x-www-form-urlencoded\" is not served"},
	} {
		assert.Contains(t, curl(append(tc.args, d.url+"/snowlab.v1.IDService/NextIDs")...), tc.want)
	}
	assert.Equal(t, "ready: node id 9\n\n200", curl(d.url+"/readyz"))
	assert.Equal(t, "ok\n\n200", curl(d.url+"/healthz"))
	assert.Contains(t, curl(d.url+"/metrics"), "snowidd_ids_issued_total 3")
}

// grpcurl, a gRPC client that knows nothing of the service but what
// reflection tells it.
func TestGrpcurl(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		needTool(t, requireClients, err, "go (to run grpcurl from tools.mod)")
	}
	d := startDaemon(t, "-lease", "static:11")
	addr := strings.TrimPrefix(d.url, "http://")
	grpcurl := func(args ...string) string {
		t.Helper()
		out, err := goTool(t, "grpcurl", append([]string{"-plaintext"}, args...)...)
		if err != nil && strings.Contains(out, "go: ") {
			needTool(t, requireClients, fmt.Errorf("%v: %s", err, out), "grpcurl")
		}
		return out
	}
	list := grpcurl(addr, "list")
	assert.Contains(t, list, "snowlab.v1.IDService")
	assert.Contains(t, list, "grpc.health.v1.Health")
	assert.Contains(t, grpcurl(addr, "describe", "snowlab.v1.NextIDsResponse"), "repeated fixed64 ids = 1;")

	out := grpcurl("-d", `{"count":2}`, addr, "snowlab.v1.IDService/NextIDs")
	var got struct{ IDs []string }
	require.NoError(t, json.Unmarshal([]byte(out), &got), out)
	require.Len(t, got.IDs, 2)
	id, err := snowlab.ParseID(got.IDs[1])
	require.NoError(t, err)
	assert.Equal(t, 11, snowlab.DefaultLayout.Decode(id).Node)

	out = grpcurl("-d", `{"count":0}`, addr, "snowlab.v1.IDService/NextIDs")
	assert.Contains(t, out, "Code: InvalidArgument")
	assert.Contains(t, out, "count 0 is out of range")

	for _, svc := range []string{"", "snowlab.v1.IDService"} {
		out = grpcurl("-d", fmt.Sprintf(`{"service":%q}`, svc), addr, "grpc.health.v1.Health/Check")
		assert.Contains(t, out, `"status": "SERVING"`, "service %q", svc)
	}
	out = grpcurl("-d", `{"service":"other"}`, addr, "grpc.health.v1.Health/Check")
	assert.Contains(t, out, "Code: NotFound")
}
