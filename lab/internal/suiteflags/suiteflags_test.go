package suiteflags

import (
	"flag"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/snowlab/snowlab/lab/subject"
)

// TestSelect: a group, an exact name and a name prefix pick their
// subjects once each, in the order given; a spec that matches nothing is
// an error naming it.
func TestSelect(t *testing.T) {
	all := All()
	names := func(subs []subject.Subject) []string {
		var out []string
		for _, s := range subs {
			out = append(out, s.Name)
		}
		return out
	}
	got, err := Select("atomicgen/strict,atomicgen,atomicgen/strict", all)
	require.NoError(t, err)
	assert.Equal(t, "atomicgen/strict", got[0].Name)
	assert.NotContains(t, names(got[1:]), "atomicgen/strict", "picked once")
	for _, s := range got {
		assert.Contains(t, s.Name, "atomicgen/")
	}

	own, err := Select("own", all)
	require.NoError(t, err)
	for _, s := range own {
		assert.False(t, s.Peer || s.Physical, s.Name)
	}
	peers, err := Select("peers", all)
	require.NoError(t, err)
	require.NotEmpty(t, peers)
	for _, s := range peers {
		assert.True(t, s.Peer, s.Name)
	}
	every, err := Select("all", all)
	require.NoError(t, err)
	assert.Equal(t, names(all), names(every))

	_, err = Select("atomicgen,nosuch", all)
	assert.ErrorContains(t, err, `-subjects: no subject matches "nosuch"`)
	_, err = Select("atomic", all)
	assert.Error(t, err, "a prefix matches whole name segments only")
}

// TestSuite: the defaults make a valid suite of every workload; a flag set
// out of range, an unknown workload or a bad sweep is an error naming it.
func TestSuite(t *testing.T) {
	parse := func(args ...string) (*Flags, error) {
		fs := flag.NewFlagSet("run", flag.ContinueOnError)
		var f Flags
		f.Register(fs)
		return &f, fs.Parse(args)
	}
	f, err := parse()
	require.NoError(t, err)
	s, err := f.Suite(All())
	require.NoError(t, err)
	assert.True(t, s.Workloads.Burst && s.Workloads.Saturate && s.Workloads.Steady)
	assert.Equal(t, len(All()), len(s.Subjects))
	assert.True(t, s.CountEvents)

	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"-n", "0"}, "-n 0: want more than 0"},
		{[]string{"-duration", "0s"}, "-duration 0s: want more than 0"},
		{[]string{"-pause", "-1ms"}, "-pause -1ms"},
		{[]string{"-rate", "NaN"}, "-rate NaN"},
		{[]string{"-rate", "1", "-steady-duration", "1ms"}, "-rate 1 with -steady-duration 1ms: workload: configuration out of range: steady rate 1 over 1ms schedules no call"},
		{[]string{"-workloads", "burst,soak"}, `-workloads: unknown workload "soak"`},
		{[]string{"-sweep", "1,x"}, `-sweep: "x" is not a number from 1 to 10000`},
		{[]string{"-subjects", "nosuch"}, `no subject matches "nosuch"`},
	} {
		f, err := parse(tc.args...)
		require.NoError(t, err, tc.args)
		_, err = f.Suite(All())
		assert.ErrorContains(t, err, tc.want, tc.args)
	}
}

// TestSelectGroupAfterAll: a group whose subjects an earlier spec picked
// still matches (it did not: "all,peers" was refused).
func TestSelectGroupAfterAll(t *testing.T) {
	got, err := Select("all,peers,own", All())
	require.NoError(t, err)
	assert.Len(t, got, len(All()))
}
