package snowidcli

import (
	"bytes"
	"errors"
	"flag"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/snowlab/snowlab"
	"github.com/snowlab/snowlab/nodeid"
)

// TestRunLeases: a lease scheme passed to Run reaches gen -lease, and an
// Opener's refusal is the command's usage error, one line naming it.
func TestRunLeases(t *testing.T) {
	refuse := errors.New("no such store here")
	leases := map[string]nodeid.Opener{"fake": nodeid.OpenerFunc(func(rest string) (nodeid.Store, error) {
		return nil, refuse
	})}
	var out, errs bytes.Buffer
	code := Run([]string{"gen", "-lease", "fake:somewhere"}, &out, &errs, leases)
	assert.Equal(t, 2, code)
	assert.Empty(t, out.String())
	assert.Contains(t, errs.String(), refuse.Error())
	assert.Equal(t, 1, strings.Count(errs.String(), "\n"), errs.String())

	errs.Reset()
	code = Run([]string{"gen", "-lease", "fake:somewhere"}, &out, &errs, nil)
	assert.Equal(t, 2, code)
	assert.Contains(t, errs.String(), `unknown scheme "fake"`, "without the opener the scheme is unknown")
	assert.Contains(t, errs.String(), "(lease stores here: dir); snowid also takes static:N (-node N)\n")

	out.Reset()
	require.Zero(t, Run([]string{"layout", "-layout", "39/12/12"}, &out, &errs, nil))
	assert.Contains(t, out.String(), "39/12/12")
}

func TestLayoutFlags(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want snowlab.Layout
		err  string // a part of the error; "" for none
	}{
		{nil, snowlab.DefaultLayout, ""},
		{[]string{"-layout", "39/12/12", "-unit", "10ms", "-epoch", "1700000000000"},
			snowlab.Layout{TimeBits: 39, NodeBits: 12, SeqBits: 12, Unit: 10 * time.Millisecond, Epoch: time.UnixMilli(1700000000000).UTC()}, ""},
		{[]string{"-layout", "41/10"}, snowlab.Layout{}, `-layout "41/10"`},
		{[]string{"-unit", "fast"}, snowlab.Layout{}, `-unit "fast"`},
		{[]string{"-epoch", "yesterday"}, snowlab.Layout{}, `-epoch "yesterday"`},
		{[]string{"-layout", "41/10/11"}, snowlab.Layout{}, `-layout "41/10/11"`},
		// The whole layout in its text form, or a part of it and the rest
		// from -unit and -epoch; the same part in both is refused.
		{[]string{"-layout", "39/12/12,10ms,1700000000000"},
			snowlab.Layout{TimeBits: 39, NodeBits: 12, SeqBits: 12, Unit: 10 * time.Millisecond, Epoch: time.UnixMilli(1700000000000).UTC()}, ""},
		{[]string{"-epoch", "1700000000000", "-layout", "39/12/12,10ms"},
			snowlab.Layout{TimeBits: 39, NodeBits: 12, SeqBits: 12, Unit: 10 * time.Millisecond, Epoch: time.UnixMilli(1700000000000).UTC()}, ""},
		{[]string{"-unit", "1us", "-layout", "51/6/6"},
			snowlab.Layout{TimeBits: 51, NodeBits: 6, SeqBits: 6, Unit: time.Microsecond, Epoch: snowlab.DefaultLayout.Epoch}, ""},
		{[]string{"-layout", "39/12/12,10ms", "-unit", "1ms"}, snowlab.Layout{}, `-layout "39/12/12,10ms" -unit "1ms": give the unit in one of them`},
		{[]string{"-layout", "39/12/12,10ms,0", "-epoch", "0"}, snowlab.Layout{}, `give the epoch in one of them`},
		{[]string{"-layout", "39/12/12,10ms,soon"}, snowlab.Layout{}, `epoch "soon"`},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			fs := flag.NewFlagSet("t", flag.ContinueOnError)
			lf := AddLayoutFlags(fs)
			require.NoError(t, fs.Parse(tc.args))
			l, err := lf.Layout()
			if tc.err != "" {
				assert.ErrorContains(t, err, tc.err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.want.TimeBits, l.TimeBits)
			assert.Equal(t, tc.want.NodeBits, l.NodeBits)
			assert.Equal(t, tc.want.SeqBits, l.SeqBits)
			assert.Equal(t, tc.want.Unit, l.Unit)
			assert.True(t, tc.want.Epoch.Equal(l.Epoch), "epoch %v, want %v", l.Epoch, tc.want.Epoch)
		})
	}
}

// TestGenStaticLease: -lease static:N mints on node N as -node N does,
// and an N that is not a number is one line naming the spec.
func TestGenStaticLease(t *testing.T) {
	var out, errs bytes.Buffer
	require.Zero(t, Run([]string{"gen", "-lease", "static:37", "-n", "2"}, &out, &errs, nil), errs.String())
	for _, f := range strings.Fields(out.String()) {
		id, err := snowlab.ParseID(f)
		require.NoError(t, err)
		assert.Equal(t, 37, snowlab.DefaultLayout.Decode(id).Node)
	}
	assert.Empty(t, errs.String(), "the caller chose the node")

	out.Reset()
	assert.Equal(t, 2, Run([]string{"gen", "-lease", "static:x"}, &out, &errs, nil))
	assert.Equal(t, "snowid: gen -lease \"static:x\": static:N wants a node id\n", errs.String())
	errs.Reset()
	assert.Equal(t, 2, Run([]string{"gen", "-node", "3", "-lease", "static:3"}, &out, &errs, nil))
	assert.Contains(t, errs.String(), "give one or the other")
	assert.Empty(t, out.String())
}

// TestHelpNamesEveryScheme: snowid's help and gen's name every lease
// scheme the one command takes.
func TestHelpNamesEveryScheme(t *testing.T) {
	for _, args := range [][]string{{"help"}, {"help", "gen"}} {
		var out, errs bytes.Buffer
		require.Zero(t, Run(args, &out, &errs, nil))
		help := out.String() + errs.String()
		for _, scheme := range []string{"dir:", "static:", "etcd:", "pg:"} {
			assert.Contains(t, help, scheme, "%v", args)
		}
	}
}
