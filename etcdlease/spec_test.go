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
	var hosts []string
	for _, ep := range endpoints(t) {
		hosts = append(hosts, strings.TrimPrefix(strings.TrimPrefix(ep, "http://"), "https://"))
	}
	spec := fmt.Sprintf("etcd:%s%s", strings.Join(hosts, ","), prefix(t))
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
