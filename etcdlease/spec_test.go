package etcdlease

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/snowlab/snowlab"
	"github.com/snowlab/snowlab/internal/snowidcli"
	"github.com/snowlab/snowlab/nodeid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestSnowidGenEtcdLease runs the etcd-enabled snowid twice on one prefix:
// both runs hold a node id in etcd, and the second, on the same id after the
// first released it, continues past every ID the first minted.
func TestSnowidGenEtcdLease(t *testing.T) {
	// The endpoints as scripts/etcd.sh prints them, http:// included.
	spec := fmt.Sprintf("etcd:%s%s", strings.Join(endpoints(t), ","), prefix(t))
	stores := map[string]nodeid.Opener{"etcd": Opener(MinTTL)}
	gen := func(n int) []snowlab.ID {
		var out, errs bytes.Buffer
		code := snowidcli.Run([]string{"gen", "-lease", spec, "-n", fmt.Sprint(n), "-policy", "monotonic"}, &out, &errs, stores)
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

func TestOpenerSpecs(t *testing.T) {
	open := Opener(time.Second)
	for _, bad := range []string{"", "/prefix-only"} {
		_, err := open(bad)
		assert.Error(t, err, "%q", bad)
	}
	_, err := nodeid.OpenStore("etcd:", map[string]nodeid.Opener{"etcd": open})
	assert.Error(t, err)
}

func TestParseSpec(t *testing.T) {
	for _, tt := range []struct {
		spec   string
		eps    []string
		prefix string
	}{
		{"127.0.0.1:2379", []string{"127.0.0.1:2379"}, DefaultPrefix},
		{"127.0.0.1:2379/myapp", []string{"127.0.0.1:2379"}, "/myapp"},
		{"127.0.0.1:2379/myapp/", []string{"127.0.0.1:2379"}, "/myapp"},
		{"127.0.0.1:2379/a/b", []string{"127.0.0.1:2379"}, "/a/b"},
		{"http://127.0.0.1:2379/myapp", []string{"http://127.0.0.1:2379"}, "/myapp"},
		{"https://etcd.example:2379", []string{"https://etcd.example:2379"}, DefaultPrefix},
		{"http://a:1,b:2,https://c:3/p", []string{"http://a:1", "b:2", "https://c:3"}, "/p"},
		{"a:1, b:2/p", []string{"a:1", "b:2"}, "/p"},
	} {
		eps, prefix, err := parseSpec(tt.spec)
		require.NoError(t, err, tt.spec)
		assert.Equal(t, tt.eps, eps, tt.spec)
		assert.Equal(t, tt.prefix, prefix, tt.spec)
	}
	for _, bad := range []string{"", "/prefix-only", "http://", "http:///p", "a:1,/p", "a:1,,b:2", "unix:///tmp/etcd.sock", "ftp://a:1/p"} {
		_, _, err := parseSpec(bad)
		assert.Error(t, err, "%q", bad)
	}
}

// An etcd that is not there is one error line within a few seconds, not a
// ten-second wait for a lease.
func TestOpenerUnreachable(t *testing.T) {
	start := time.Now()
	_, err := nodeid.OpenStore("etcd:http://127.0.0.1:1/x", map[string]nodeid.Opener{"etcd": Opener(time.Second)})
	require.Error(t, err)
	assert.Less(t, time.Since(start), ReachTimeout+time.Second)
	assert.Contains(t, err.Error(), "no etcd at http://127.0.0.1:1")
	assert.Contains(t, err.Error(), "connection refused")
	assert.NotContains(t, err.Error(), "\n")
}
