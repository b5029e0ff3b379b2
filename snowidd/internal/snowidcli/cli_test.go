package snowidcli

import (
	"bytes"
	"errors"
	"flag"
	"runtime/debug"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/snowlab/snowlab"
	"github.com/snowlab/snowlab/nodeid"
	"github.com/snowlab/snowlab/snowidd/leasespec"
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

// TestHelpNamesEveryScheme: snowid's help and gen's are written from the
// openers registered: each names dir:, static: and every scheme given,
// leasespec's by their forms, any other by its name, and no scheme that
// is not registered.
func TestHelpNamesEveryScheme(t *testing.T) {
	stores := leasespec.Openers(0, nil)
	stores["plant"] = nodeid.OpenerFunc(func(string) (nodeid.Store, error) { return nil, errors.New("planted") })
	for _, args := range [][]string{{"help"}, {"help", "gen"}} {
		var out, errs bytes.Buffer
		require.Zero(t, Run(args, &out, &errs, stores))
		help := out.String() + errs.String()
		for _, form := range []string{"dir:PATH", "static:N", "plant:…"} {
			assert.Contains(t, help, form, "%v", args)
		}
		for _, s := range leasespec.Stores() {
			assert.Contains(t, help, s.Form, "%v", args)
		}

		out.Reset()
		errs.Reset()
		require.Zero(t, Run(args, &out, &errs, nil))
		help = out.String() + errs.String()
		assert.Contains(t, help, "dir:PATH", "%v", args)
		for _, s := range leasespec.Stores()[1:] {
			assert.NotContains(t, help, s.Form, "%v: a build without %s does not offer it", args, s.Name)
		}
	}
}

// snowid version prints cliflag.Version's line for the binary's build
// information, on stdout, exit 0; it takes no argument.
func TestVersionCommand(t *testing.T) {
	saved := buildInfo
	t.Cleanup(func() { buildInfo = saved })
	buildInfo = func() *debug.BuildInfo {
		return &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Path: "github.com/snowlab/snowlab/snowidd", Version: "v1.2.0"},
			Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: "abc123"}}}
	}
	stdout, stderr, code := snowid(t, "version")
	assert.Equal(t, exitOK, code, stderr)
	assert.Equal(t, "snowid v1.2.0 (github.com/snowlab/snowlab/snowidd; vcs.revision=abc123; go1.26.8)\n", stdout)
	assert.Empty(t, stderr)

	stdout, stderr, code = snowid(t, "version", "x")
	assert.Equal(t, exitUsage, code)
	assert.Empty(t, stdout)
	assert.Equal(t, "snowid version: unexpected argument \"x\" (run 'snowid version -h' for usage)\n", stderr)
}

// -epoch (and the epoch in -layout's text form, and plan's -epoch) reads
// a plain date, midnight UTC, as range's and partitions' bounds do: it
// took only RFC 3339 and Unix milliseconds. A bad one is one line naming
// the value and the forms, exit 2.
func TestEpochTakesADate(t *testing.T) {
	want, _, code := snowid(t, "layout", "-epoch", "2025-01-01T00:00:00Z")
	require.Equal(t, exitOK, code)
	for _, args := range [][]string{
		{"layout", "-epoch", "2025-01-01"},
		{"layout", "-layout", "41/10/12,1ms,2025-01-01"},
	} {
		got, stderr, code := snowid(t, args...)
		assert.Equal(t, exitOK, code, stderr)
		assert.Equal(t, want, got, "%v", args)
	}
	_, stderr, code := snowid(t, "plan", "-processes", "10", "-surge", "2", "-burst", "100", "-epoch", "2025-01-01")
	assert.Equal(t, exitOK, code, stderr)

	stdout, stderr, code := snowid(t, "layout", "-epoch", "2025-13-01")
	assert.Equal(t, exitUsage, code)
	assert.Empty(t, stdout)
	assert.Equal(t, `snowid: layout -epoch "2025-13-01": snowlab: invalid layout: epoch "2025-13-01": want RFC 3339 (2024-01-01T00:00:00Z), a date (2024-01-01, midnight UTC) or Unix milliseconds`+"\n", stderr)
}
