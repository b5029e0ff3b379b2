package cliflag

import (
	"bytes"
	"flag"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

func newSet(out *bytes.Buffer) (*flag.FlagSet, *int) {
	fs := flag.NewFlagSet("tool sub", flag.ContinueOnError)
	fs.SetOutput(out)
	n := fs.Int("n", 1, "how many")
	return fs, n
}

func TestParse(t *testing.T) {
	for _, tc := range []struct {
		name     string
		args     []string
		stop, ok bool
		out      string // the whole output, when not a usage
		usage    bool   // the output is the usage
	}{
		{"good", []string{"-n", "3"}, false, true, "", false},
		{"bad value", []string{"-n", "abc"}, true, false,
			"tool sub: invalid value \"abc\" for flag -n: parse error (run 'tool sub -h' for usage)\n", false},
		{"unknown flag", []string{"-x"}, true, false,
			"tool sub: flag provided but not defined: -x (run 'tool sub -h' for usage)\n", false},
		{"missing value", []string{"-n"}, true, false,
			"tool sub: flag needs an argument: -n (run 'tool sub -h' for usage)\n", false},
		{"help", []string{"-h"}, true, true, "", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out bytes.Buffer
			fs, _ := newSet(&out)
			stop, ok := Parse(fs, tc.args)
			assert.Equal(t, tc.stop, stop)
			assert.Equal(t, tc.ok, ok)
			if tc.usage {
				assert.Contains(t, out.String(), "Usage of tool sub:\n")
				assert.Contains(t, out.String(), "how many")
				return
			}
			assert.Equal(t, tc.out, out.String())
		})
	}
}

// TestParseKeepsUsage: a flag set's own Usage prints -h, and survives a
// failed parse for the next one.
func TestParseKeepsUsage(t *testing.T) {
	var out bytes.Buffer
	fs, n := newSet(&out)
	fs.Usage = func() { out.WriteString("usage: tool sub [-n N]\n") }
	stop, ok := Parse(fs, []string{"-n", "x"})
	assert.True(t, stop)
	assert.False(t, ok)
	assert.Equal(t, 1, strings.Count(out.String(), "\n"), out.String())
	out.Reset()
	stop, ok = Parse(fs, []string{"-h"})
	assert.True(t, stop && ok)
	assert.Equal(t, "usage: tool sub [-n N]\n", out.String())
	stop, _ = Parse(fs, []string{"-n", "7"})
	assert.False(t, stop)
	assert.Equal(t, 7, *n)
}
