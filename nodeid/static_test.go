package nodeid_test

import (
	"os"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/snowlab/snowlab"
	"github.com/snowlab/snowlab/nodeid"
)

// small is a layout with 16 node ids (0..15).
var small = snowlab.Layout{TimeBits: 41, NodeBits: 4, SeqBits: 18, Unit: time.Millisecond, Epoch: snowlab.DefaultLayout.Epoch}

// unsetenv removes name for the rest of the test and restores it after.
func unsetenv(t *testing.T, name string) {
	t.Helper()
	t.Setenv(name, "")
	require.NoError(t, os.Unsetenv(name))
}

func TestStatic(t *testing.T) {
	for _, tc := range []struct {
		name   string
		n      int
		layout snowlab.Layout
		want   int
		errs   []string // substrings of the error; nil: no error
	}{
		{"zero", 0, snowlab.Layout{}, 0, nil},
		{"default max", 1023, snowlab.Layout{}, 1023, nil},
		{"default past max", 1024, snowlab.Layout{}, 0, []string{"node 1024", "0..1023"}},
		{"negative", -1, snowlab.Layout{}, 0, []string{"node -1", "0..1023"}},
		{"small max", 15, small, 15, nil},
		{"small past max", 16, small, 0, []string{"node 16", "0..15"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := nodeid.Static(tc.n, tc.layout)
			if tc.errs == nil {
				require.NoError(t, err)
				assert.Equal(t, tc.want, got)
				return
			}
			require.ErrorIs(t, err, snowlab.ErrInvalidNode)
			for _, s := range tc.errs {
				assert.Contains(t, err.Error(), s)
			}
		})
	}
}

func TestFromEnv(t *testing.T) {
	const name = "SNOWLAB_NODEID_TEST"
	for _, tc := range []struct {
		name   string
		value  *string // nil: unset
		layout snowlab.Layout
		want   int
		errs   []string
	}{
		{"unset", nil, snowlab.Layout{}, 0, []string{"$" + name, "not set"}},
		{"empty", ptr(""), snowlab.Layout{}, 0, []string{"$" + name, `""`, "not a number"}},
		{"garbage", ptr("seven"), snowlab.Layout{}, 0, []string{"$" + name, `"seven"`, "not a number"}},
		{"trailing garbage", ptr("7x"), snowlab.Layout{}, 0, []string{`"7x"`, "not a number"}},
		{"number", ptr("7"), snowlab.Layout{}, 7, nil},
		{"spaces", ptr(" 12\n"), snowlab.Layout{}, 12, nil},
		{"out of range", ptr("1024"), snowlab.Layout{}, 0, []string{"$" + name, "node 1024", "0..1023"}},
		{"negative", ptr("-3"), snowlab.Layout{}, 0, []string{"$" + name, "node -3"}},
		{"small layout", ptr("16"), small, 0, []string{"node 16", "0..15"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.value == nil {
				unsetenv(t, name)
			} else {
				t.Setenv(name, *tc.value)
			}
			got, err := nodeid.FromEnv(name, tc.layout)
			if tc.errs == nil {
				require.NoError(t, err)
				assert.Equal(t, tc.want, got)
				return
			}
			require.ErrorIs(t, err, snowlab.ErrInvalidNode)
			for _, s := range tc.errs {
				assert.Contains(t, err.Error(), s)
			}
		})
	}
}

func TestOrdinal(t *testing.T) {
	for _, tc := range []struct {
		name     string
		podIndex *string // nil: $POD_INDEX unset
		hostname string
		offset   int
		layout   snowlab.Layout
		want     int
		errs     []string
	}{
		{"hostname", nil, "web-3", 0, snowlab.Layout{}, 3, nil},
		{"hostname with offset", nil, "web-3", 100, snowlab.Layout{}, 103, nil},
		{"fqdn", nil, "web-3.web.prod.svc.cluster.local", 0, snowlab.Layout{}, 3, nil},
		{"dashes in the name", nil, "id-gen-west-12", 0, snowlab.Layout{}, 12, nil},
		{"zero", nil, "web-0", 0, snowlab.Layout{}, 0, nil},
		{"no dash", nil, "web", 0, snowlab.Layout{}, 0, []string{`"web"`, "name-N"}},
		{"not a number", nil, "web-x", 0, snowlab.Layout{}, 0, []string{`"web-x"`, "ordinal"}},
		{"trailing dash", nil, "web-", 0, snowlab.Layout{}, 0, []string{`"web-"`, "name-N"}},
		{"plus sign", nil, "web-+3", 0, snowlab.Layout{}, 0, []string{`"web-+3"`, "ordinal"}},
		{"dot before the ordinal", nil, "web.x-3", 0, snowlab.Layout{}, 0, []string{`"web.x-3"`}},
		{"past the layout", nil, "web-16", 0, small, 0, []string{"ordinal 16", "offset 0", "node 16", "0..15"}},
		{"offset past the layout", nil, "web-1000", 24, snowlab.Layout{}, 0, []string{"ordinal 1000", "offset 24", "node 1024"}},
		{"pod index wins", ptr("5"), "web-3", 0, snowlab.Layout{}, 5, nil},
		{"pod index with offset", ptr("5"), "web-3", 10, snowlab.Layout{}, 15, nil},
		{"pod index without hostname", ptr("2"), "not-an-ordinal", 0, snowlab.Layout{}, 2, nil},
		{"pod index garbage", ptr("five"), "web-3", 0, snowlab.Layout{}, 0, []string{"$POD_INDEX", `"five"`}},
		{"pod index negative", ptr("-1"), "web-3", 0, snowlab.Layout{}, 0, []string{"$POD_INDEX", `"-1"`}},
		{"pod index past the layout", ptr("16"), "web-3", 0, small, 0, []string{"node 16", "0..15"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.podIndex == nil {
				unsetenv(t, nodeid.PodIndexEnv)
			} else {
				t.Setenv(nodeid.PodIndexEnv, *tc.podIndex)
			}
			got, err := nodeid.Ordinal(tc.hostname, tc.offset, tc.layout)
			if tc.errs == nil {
				require.NoError(t, err)
				assert.Equal(t, tc.want, got)
				return
			}
			require.ErrorIs(t, err, snowlab.ErrInvalidNode)
			for _, s := range tc.errs {
				assert.Contains(t, err.Error(), s)
			}
		})
	}
}

func ptr(s string) *string { return &s }
