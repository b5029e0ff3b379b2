package daemon

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/snowlab/snowlab"
	"github.com/snowlab/snowlab/nodeid"
	"github.com/snowlab/snowlab/snowidd/client"
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
		{[]string{"-lease", "static:x"}, env(), `got "x"`},
		{[]string{"-lease", "static:1020", "-shards", "8"}, env(), "last shard"},
		{[]string{"-lease", "static:0", "-shards", "0"}, env(), "-shards 0: want 1..64"},
		{[]string{"-lease", "static:0", "-layout", "41/10/11"}, env(), "-layout"},
		{[]string{"-lease", "static:0", "-window", "1ms"}, env(), "-window 1ms"},
		{[]string{"-lease", "static:0", "extra"}, env(), `unexpected argument "extra"`},
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
}

func TestRunRefusesBadUsage(t *testing.T) {
	var log strings.Builder
	code := Run(context.Background(), []string{"-lease", "nope:x", "-listen", "127.0.0.1:0", "-shards", "99"}, func(string) (string, bool) { return "", false }, &log)
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, log.String(), "-shards 99")
}

// A replica on a dir lease serves, and on SIGTERM releases the lease with
// the end of the last tick it used: its successor's floor.
func TestDirLeaseReleaseStoresLastEnd(t *testing.T) {
	dir := t.TempDir()
	d := startDaemon(t, "-lease", "dir:"+dir, "-shards", "2")
	c, err := client.New(client.Config{Targets: []string{d.url}})
	require.NoError(t, err)
	waitFor(t, 15*time.Second, "the replica is ready", ready(d.url))
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
	assert.True(t, floor.Before(time.Now().Add(time.Second)), "floor %v: the whole reservation was stored, not the last tick", floor)
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

// A client in another language: Python's grpcio (Debian's python3-grpcio)
// with hand-built protobuf bytes, so nothing is generated.
func TestPythonGrpcio(t *testing.T) {
	python := "/usr/bin/python3"
	err := exec.Command(python, "-c", "import grpc").Run()
	needTool(t, requireClients, err, "Debian's python3-grpcio ("+python+" -c 'import grpc'; apt-get install python3-grpcio)")
	d := startDaemon(t, "-lease", "static:13")
	cmd := exec.Command(python, "testdata/client.py", strings.TrimPrefix(d.url, "http://"))
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	require.NoError(t, err, "%s", out)
	var got struct {
		IDs          []string `json:"ids"`
		Health       []int    `json:"health"`
		BadCountCode string   `json:"bad_count_code"`
		BadCountMsg  string   `json:"bad_count_message"`
	}
	require.NoError(t, json.Unmarshal(out, &got), "%s", out)
	require.Len(t, got.IDs, 5)
	prev := snowlab.ID(0)
	for _, s := range got.IDs {
		id, err := snowlab.ParseID(s)
		require.NoError(t, err)
		assert.Equal(t, 13, snowlab.DefaultLayout.Decode(id).Node)
		assert.Greater(t, id, prev)
		prev = id
	}
	assert.Equal(t, []int{1, 1}, got.Health, "SERVING for \"\" and snowlab.v1.IDService")
	assert.Equal(t, "INVALID_ARGUMENT", got.BadCountCode)
	assert.Contains(t, got.BadCountMsg, "count 100001")
}
