package snowidcli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/snowlab/snowlab"
	"github.com/snowlab/snowlab/nodeid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// snowid runs the command line and returns its stdout, stderr and exit code.
func snowid(t *testing.T, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	var out, errOut bytes.Buffer
	code = run(args, &out, &errOut)
	return out.String(), errOut.String(), code
}

// withZone runs the test with time_local in a fixed zone of +05:30.
func withZone(t *testing.T) {
	t.Helper()
	saved := localZone
	localZone = time.FixedZone("IST", 5*3600+30*60)
	t.Cleanup(func() { localZone = saved })
}

// textRecords reads decode's text output: blocks of "key: value" lines
// separated by blank lines.
func textRecords(t *testing.T, out string) []map[string]string {
	t.Helper()
	var recs []map[string]string
	for _, block := range strings.Split(strings.TrimSuffix(out, "\n"), "\n\n") {
		rec := map[string]string{}
		for _, line := range strings.Split(block, "\n") {
			k, v, ok := strings.Cut(line, ":")
			require.True(t, ok, "line %q", line)
			rec[k] = strings.TrimSpace(v)
		}
		recs = append(recs, rec)
	}
	return recs
}

func jsonRecords(t *testing.T, out string) []map[string]any {
	t.Helper()
	var recs []map[string]any
	dec := json.NewDecoder(strings.NewReader(out))
	for dec.More() {
		var m map[string]any
		require.NoError(t, dec.Decode(&m))
		recs = append(recs, m)
	}
	return recs
}

// oneErrorLine asserts that stderr is exactly one line, starting "snowid: "
// and naming each of names, quoted or not as given.
func oneErrorLine(t *testing.T, stderr string, names ...string) {
	t.Helper()
	require.True(t, strings.HasSuffix(stderr, "\n"), "stderr %q", stderr)
	assert.Equal(t, 1, strings.Count(stderr, "\n"), "stderr %q", stderr)
	assert.True(t, strings.HasPrefix(stderr, "snowid: "), "stderr %q", stderr)
	for _, n := range names {
		assert.Contains(t, stderr, n)
	}
}

var vectors = []struct {
	id         string
	node, seq  int
	unixMs     int64
	utc, local string
}{
	{"141264821508263936", 37, 0, 1737747358021, "2025-01-24T19:35:58.021Z", "2025-01-25T01:05:58.021+05:30"},
	{"141264821510144037", 496, 37, 1737747358021, "2025-01-24T19:35:58.021Z", "2025-01-25T01:05:58.021+05:30"},
}

func TestDecodeVectors(t *testing.T) {
	withZone(t)
	for _, v := range vectors {
		t.Run(v.id, func(t *testing.T) {
			stdout, stderr, code := snowid(t, "decode", v.id)
			require.Equal(t, exitOK, code, stderr)
			assert.Empty(t, stderr)
			recs := textRecords(t, stdout)
			require.Len(t, recs, 1)
			id, err := snowlab.ParseID(v.id)
			require.NoError(t, err)
			assert.Equal(t, map[string]string{
				"id":         v.id,
				"base32":     id.Base32(),
				"time_utc":   v.utc,
				"time_local": v.local + " (IST)",
				"unix_ms":    strconv.FormatInt(v.unixMs, 10),
				"node":       strconv.Itoa(v.node),
				"seq":        strconv.Itoa(v.seq),
			}, recs[0])
		})
	}

	t.Run("several", func(t *testing.T) {
		stdout, _, code := snowid(t, "decode", vectors[0].id, vectors[1].id)
		require.Equal(t, exitOK, code)
		recs := textRecords(t, stdout)
		require.Len(t, recs, 2)
		assert.Equal(t, vectors[0].id, recs[0]["id"])
		assert.Equal(t, vectors[1].id, recs[1]["id"])
	})
}

func TestDecodeJSON(t *testing.T) {
	withZone(t)
	args := []string{"decode", "-json"}
	for _, v := range vectors {
		args = append(args, v.id)
	}
	stdout, stderr, code := snowid(t, args...)
	require.Equal(t, exitOK, code, stderr)
	assert.Equal(t, len(vectors), strings.Count(stdout, "\n"), "one object per line")
	recs := jsonRecords(t, stdout)
	require.Len(t, recs, len(vectors))
	for i, v := range vectors {
		id, err := snowlab.ParseID(v.id)
		require.NoError(t, err)
		assert.Equal(t, map[string]any{
			"id":         v.id, // a string, not a number
			"base32":     id.Base32(),
			"time_utc":   v.utc,
			"time_local": v.local,
			"unix_ms":    float64(v.unixMs),
			"node":       float64(v.node),
			"seq":        float64(v.seq),
		}, recs[i])
	}

	t.Run("local time is the same instant", func(t *testing.T) {
		localZone = time.Local
		stdout, _, code := snowid(t, "decode", vectors[0].id, "-json")
		require.Equal(t, exitOK, code)
		recs := jsonRecords(t, stdout)
		require.Len(t, recs, 1)
		utc, err := time.Parse(time.RFC3339, recs[0]["time_utc"].(string))
		require.NoError(t, err)
		local, err := time.Parse(time.RFC3339, recs[0]["time_local"].(string))
		require.NoError(t, err)
		assert.True(t, utc.Equal(local), "%v vs %v", utc, local)
		assert.Equal(t, vectors[0].unixMs, local.UnixMilli())
	})
}

func TestDecodeBase32RoundTrip(t *testing.T) {
	for _, dec := range []string{vectors[0].id, vectors[1].id, "0", "1", "9223372036854775807"} {
		t.Run(dec, func(t *testing.T) {
			stdout, _, code := snowid(t, "decode", "-json", dec)
			require.Equal(t, exitOK, code)
			want := jsonRecords(t, stdout)
			require.Len(t, want, 1)
			b32 := want[0]["base32"].(string)
			require.Len(t, b32, 13)
			// The base32 form, in upper and lower case and with the
			// prefix, decodes to the same fields.
			for _, arg := range []string{b32, strings.ToLower(b32), "b32:" + b32} {
				stdout, stderr, code := snowid(t, "decode", "-json", arg)
				require.Equal(t, exitOK, code, stderr)
				assert.Equal(t, want, jsonRecords(t, stdout), arg)
			}
		})
	}

	t.Run("13 digits take a prefix", func(t *testing.T) {
		stdout, stderr, code := snowid(t, "decode", "-json", "dec:0000000000010", "b32:0000000000010")
		require.Equal(t, exitOK, code, stderr)
		recs := jsonRecords(t, stdout)
		require.Len(t, recs, 2)
		assert.Equal(t, "10", recs[0]["id"])
		assert.Equal(t, "32", recs[1]["id"])
	})
}

// A base32 ID shorter than 13 characters, after b32:, is read as if padded
// with leading zeros; without the prefix the error says how to read one.
func TestDecodeShortBase32(t *testing.T) {
	stdout, stderr, code := snowid(t, "decode", "-json", "b32:123", "b32:ZZ", "b32:zz", "b32:0000000000ZZ", "123")
	require.Equal(t, exitOK, code, stderr)
	var ids []string
	for _, r := range jsonRecords(t, stdout) {
		ids = append(ids, r["id"].(string))
	}
	assert.Equal(t, []string{"1091", "1023", "1023", "1023", "123"}, ids)

	_, stderr, code = snowid(t, "decode", "ZZ")
	assert.Equal(t, exitUsage, code)
	oneErrorLine(t, stderr, "b32:ZZ reads a shorter base32 ID")

	_, stderr, code = snowid(t, "decode", "b32:12345678901234")
	assert.Equal(t, exitUsage, code)
	oneErrorLine(t, stderr, "14 characters, want 1 to 13")
}

func TestDecodeBadInput(t *testing.T) {
	for _, arg := range []string{
		"12x",
		"-5",
		"99999999999999999999", // above 2^63-1
		"03XEZKD8NU015",        // 13 characters, U is not Crockford
		"Z000000000000",        // base32 above 2^63-1
		"b32:12345678901234",   // forced base32, too long
		"b32:1u",               // forced base32, U is not Crockford
		"dec:",                 // forced decimal, empty
		"dec:03XEZKD8M4M00",    // forced decimal, base32
		"dec:b32:1",            // two prefixes
		"dec:-5",
		"",
		"1.5",
		" 1",
	} {
		t.Run(strconv.Quote(arg), func(t *testing.T) {
			stdout, stderr, code := snowid(t, "decode", arg)
			assert.Equal(t, exitUsage, code)
			assert.Empty(t, stdout)
			oneErrorLine(t, stderr, "snowid: decode "+strconv.Quote(arg)+": snowlab: invalid ID")
		})
	}

	t.Run("exact message", func(t *testing.T) {
		_, stderr, _ := snowid(t, "decode", "12x")
		assert.Equal(t, "snowid: decode \"12x\": snowlab: invalid ID: \"12x\" is not a decimal ID (nor 13 characters of base32: b32:12x reads a shorter base32 ID)\n", stderr)
		_, stderr, _ = snowid(t, "decode", "1.5")
		assert.Equal(t, "snowid: decode \"1.5\": snowlab: invalid ID: \"1.5\" is not a decimal ID\n", stderr)
	})

	t.Run("good IDs still decoded", func(t *testing.T) {
		stdout, stderr, code := snowid(t, "decode", "-json", vectors[0].id, "12x", vectors[1].id)
		assert.Equal(t, exitUsage, code)
		oneErrorLine(t, stderr, `"12x"`)
		assert.Len(t, jsonRecords(t, stdout), 2)
	})
}

func TestDecodeLayoutFlags(t *testing.T) {
	l := snowlab.Layout{TimeBits: 39, NodeBits: 12, SeqBits: 12, Unit: 10 * time.Millisecond,
		Epoch: time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)}
	at := time.Date(2031, 5, 6, 7, 8, 9, 120e6, time.UTC)
	id, err := l.Compose(at, 4000, 77)
	require.NoError(t, err)

	for _, epoch := range []string{"2020-01-01T00:00:00Z", "2020-01-01T01:00:00+01:00", "1577836800000"} {
		t.Run(epoch, func(t *testing.T) {
			stdout, stderr, code := snowid(t, "decode", "-json", "-layout", "39/12/12", "-unit", "10ms", "-epoch", epoch, id.String())
			require.Equal(t, exitOK, code, stderr)
			recs := jsonRecords(t, stdout)
			require.Len(t, recs, 1)
			assert.Equal(t, "2031-05-06T07:08:09.120Z", recs[0]["time_utc"])
			assert.Equal(t, float64(4000), recs[0]["node"])
			assert.Equal(t, float64(77), recs[0]["seq"])
		})
	}

	t.Run("the default spelled out", func(t *testing.T) {
		a, _, _ := snowid(t, "decode", "-json", vectors[1].id)
		b, _, code := snowid(t, "decode", "-json", "-layout=41/10/12", "-unit=1ms", "-epoch=1704067200000", vectors[1].id)
		require.Equal(t, exitOK, code)
		assert.Equal(t, a, b)
	})

	t.Run("sub-millisecond units keep their digits", func(t *testing.T) {
		stdout, _, code := snowid(t, "decode", "-json", "-unit", "1us", "-layout", "51/6/6", "1")
		require.Equal(t, exitOK, code)
		assert.Equal(t, "2024-01-01T00:00:00.000000Z", jsonRecords(t, stdout)[0]["time_utc"])
	})

	for _, tc := range []struct {
		args []string
		name string
	}{
		{[]string{"-layout", "41/10/13"}, `-layout "41/10/13"`},
		{[]string{"-layout", "41/10"}, `-layout "41/10"`},
		{[]string{"-layout", "0/10/53"}, `-layout "0/10/53"`},
		{[]string{"-layout", "a/b/c"}, `-layout "a/b/c"`},
		{[]string{"-unit", "abc"}, `-unit "abc"`},
		{[]string{"-unit", "0s"}, `-unit "0s"`},
		{[]string{"-unit", "1s"}, `-unit "1s"`}, // 2^41 s overflow a Duration
		{[]string{"-epoch", "yesterday"}, `-epoch "yesterday"`},
		{[]string{"-epoch", "2250-01-01T00:00:00Z"}, `-epoch "2250-01-01T00:00:00Z"`},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			stdout, stderr, code := snowid(t, append(append([]string{"decode"}, tc.args...), "1")...)
			assert.Equal(t, exitUsage, code)
			assert.Empty(t, stdout)
			oneErrorLine(t, stderr, "snowid: decode "+tc.name+": ")
		})
	}
}

func TestGen(t *testing.T) {
	withZone(t)
	decimal := func(t *testing.T, s string) snowlab.ID {
		id, err := snowlab.ParseID(s)
		require.NoError(t, err)
		return id
	}
	base32 := func(t *testing.T, s string) snowlab.ID {
		id, err := snowlab.ParseBase32(s)
		require.NoError(t, err)
		return id
	}
	for _, tc := range []struct {
		name string
		args []string
		n    int
		read func(*testing.T, string) snowlab.ID
	}{
		{"default", []string{"-node", "5", "-n", "10"}, 10, decimal},
		{"one", []string{"-node", "5"}, 1, decimal},
		{"strict", []string{"-node", "5", "-n", "10000", "-policy", "strict"}, 10000, decimal},
		{"monotonic", []string{"-node", "5", "-n", "10000", "-policy", "monotonic"}, 10000, decimal},
		{"base32", []string{"-node", "5", "-n", "10", "-format", "base32"}, 10, base32},
		{"json", []string{"-node", "5", "-n", "10", "-format", "json"}, 10, func(t *testing.T, s string) snowlab.ID {
			var r record
			require.NoError(t, json.Unmarshal([]byte(s), &r))
			id := decimal(t, r.ID)
			assert.Equal(t, describe(snowlab.DefaultLayout, id), record{
				ID: r.ID, Base32: r.Base32, TimeUTC: r.TimeUTC, TimeLocal: r.TimeLocal,
				UnixMs: r.UnixMs, Node: r.Node, Seq: r.Seq, zone: "IST",
			})
			return id
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			start := time.Now().UnixMilli()
			stdout, stderr, code := snowid(t, append([]string{"gen"}, tc.args...)...)
			require.Equal(t, exitOK, code, stderr)
			assert.Empty(t, stderr)
			lines := strings.Split(strings.TrimSuffix(stdout, "\n"), "\n")
			require.Len(t, lines, tc.n)
			var last snowlab.ID = -1
			for _, line := range lines {
				id := tc.read(t, line)
				require.Greater(t, id, last, "IDs must be unique and increasing")
				last = id
				p := snowlab.DefaultLayout.Decode(id)
				require.Equal(t, 5, p.Node)
				require.GreaterOrEqual(t, p.Time.UnixMilli(), start-1000, "time near now")
			}
		})
	}
}

func TestGenBadInput(t *testing.T) {
	for _, tc := range []struct {
		args []string
		name string
	}{
		{[]string{"-node", "5000"}, "snowid: gen -node 5000: snowlab: node id out of range"},
		{[]string{"-node", "-1"}, "snowid: gen -node -1: "},
		{[]string{"-node", "1024"}, "-node 1024"},
		{[]string{"-node", "1024", "-layout", "41/11/11"}, ""}, // valid: 11 node bits
		{[]string{"-n", "0"}, "snowid: gen -n 0: "},
		{[]string{"-n", "-5"}, "snowid: gen -n -5: "},
		{[]string{"-policy", "lax"}, `snowid: gen -policy "lax": `},
		{[]string{"-policy", "monotonic", "-max-lead", "0s"}, `snowid: gen -max-lead 0s: want more than 0`},
		{[]string{"-max-lead", "-1ms"}, `snowid: gen -max-lead -1ms: want more than 0`},
		// Every run on a static id starts StaticMaxLead ahead: a longer
		// lead would reach past where the next run starts.
		{[]string{"-node", "9", "-policy", "monotonic", "-max-lead", "2s"}, `snowid: gen -max-lead 2s: at most 100ms on static node id 9 (-node N, static:N)`},
		{[]string{"-lease", "static:9", "-policy", "monotonic", "-max-lead", "101ms"}, `snowid: gen -max-lead 101ms: at most 100ms on static node id 9`},
		{[]string{"-node", "9", "-policy", "strict", "-max-lead", "2s"}, ""}, // a strict run leads by nothing
		{[]string{"-format", "hex"}, `snowid: gen -format "hex": `},
		{[]string{"-layout", "41/10/13"}, `snowid: gen -layout "41/10/13": `},
		{[]string{"-epoch", "2090-01-01T00:00:00Z"}, `snowid: gen -epoch "2090-01-01T00:00:00Z": snowlab: value outside`}, // the clock is before the epoch
		{[]string{"-epoch", "2200-01-01T00:00:00Z"}, `snowid: gen -epoch "2200-01-01T00:00:00Z": snowlab: invalid layout`},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			stdout, stderr, code := snowid(t, append([]string{"gen"}, tc.args...)...)
			if tc.name == "" {
				assert.Equal(t, exitOK, code, stderr)
				return
			}
			assert.Equal(t, exitUsage, code)
			assert.Empty(t, stdout)
			oneErrorLine(t, stderr, tc.name)
		})
	}
}

func TestLayout(t *testing.T) {
	saved := now
	now = func() time.Time { return time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC) }
	t.Cleanup(func() { now = saved })

	for _, tc := range []struct {
		name string
		args []string
		want []string
	}{
		{"default", nil, []string{
			"layout  41/10/12 (time/node/seq bits)\n",
			"unit    1ms\n",
			"epoch   2024-01-01T00:00:00.000Z\n",
			"time   41    22     2199023255551 ticks\n",
			"node   10    12     1023\n",
			"seq    12    0      4095\n",
			"per node    4096/tick = 4,096,000/s\n",
			"horizon     2093-09-06T15:47:35.552Z (69.7 years after the epoch)\n",
			"years left  68.7 (as of 2025-01-01)\n",
		}},
		{"other unit", []string{"-unit", "3ms"}, []string{
			"4096/tick = ~1,365,333/s",
			"horizon     2233-01-19T23:22:46.656Z",
		}},
		{"other bits", []string{"-layout", "42/8/13", "-unit", "100us", "-epoch", "2025-06-01T00:00:00Z"}, []string{
			"time   42    21     4398046511103 ticks",
			"node   8     13     255\n",
			"seq    13    0      8191\n",
			"8192/tick = 81,920,000/s",
			"horizon     2039-05-09T07:57:31.110400Z",
		}},
		{"horizon passed", []string{"-layout", "35/16/12", "-epoch", "0"}, []string{
			"horizon     1971-02-02T16:22:18.368Z",
			"years left  none: the horizon passed 53.9 years before 2025-01-01",
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			stdout, stderr, code := snowid(t, append([]string{"layout"}, tc.args...)...)
			require.Equal(t, exitOK, code, stderr)
			for _, w := range tc.want {
				assert.Contains(t, stdout, w)
			}
		})
	}

	t.Run("bad layout", func(t *testing.T) {
		stdout, stderr, code := snowid(t, "layout", "-layout", "40/10/12")
		assert.Equal(t, exitUsage, code)
		assert.Empty(t, stdout)
		oneErrorLine(t, stderr, `snowid: layout -layout "40/10/12": snowlab: invalid layout`)
	})
}

// TestUsage: a usage error is one line naming the bad command, argument,
// flag or value and where to read the usage (never the flag package's line
// followed by every flag), exit 2; a bare snowid prints the usage; -h and
// help print it and exit 0.
func TestUsage(t *testing.T) {
	for _, tc := range []struct {
		name   string
		args   []string
		code   int
		stdout string // substring of stdout
		stderr string // substring of stderr
		// oneLine: stderr is one line ending with how to read the usage.
		oneLine bool
	}{
		{"unknown command", []string{"frob"}, exitUsage, "", `snowid: unknown command "frob" (run 'snowid help' for the commands)`, true},
		{"decode without IDs", []string{"decode"}, exitUsage, "", "snowid decode: no IDs given", true},
		{"decode only flags", []string{"decode", "-json"}, exitUsage, "", "no IDs given", true},
		{"unknown flag", []string{"decode", "-x", "1"}, exitUsage, "", "snowid decode: flag provided but not defined: -x", true},
		{"flag without value", []string{"gen", "-node"}, exitUsage, "", "flag needs an argument: -node", true},
		{"bad int", []string{"gen", "-node", "five"}, exitUsage, "", `snowid gen: invalid value "five" for flag -node`, true},
		{"bad count", []string{"gen", "-n", "abc"}, exitUsage, "", `snowid gen: invalid value "abc" for flag -n: parse error (run 'snowid gen -h' for usage)`, true},
		{"bad bool", []string{"decode", "-json=maybe", "1"}, exitUsage, "", `snowid decode: invalid boolean value "maybe" for -json`, true},
		{"gen takes no arguments", []string{"gen", "7"}, exitUsage, "", `snowid gen: unexpected argument "7"`, true},
		{"layout takes no arguments", []string{"layout", "x"}, exitUsage, "", `snowid layout: unexpected argument "x"`, true},
		{"help unknown", []string{"help", "frob"}, exitUsage, "", `unknown command "frob"`, true},
		{"no command", nil, exitUsage, "", "snowid: no command given\nusage:", false},
		{"help", []string{"help"}, exitOK, "snowid decode", "", false},
		{"-h", []string{"-h"}, exitOK, "snowid gen", "", false},
		{"help command", []string{"help", "decode"}, exitOK, "", "usage: snowid decode", false},
		{"command -h", []string{"layout", "-h"}, exitOK, "", "usage: snowid layout", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			stdout, stderr, code := snowid(t, tc.args...)
			assert.Equal(t, tc.code, code)
			assert.Contains(t, stdout, tc.stdout)
			assert.Contains(t, stderr, tc.stderr)
			if tc.oneLine {
				assert.Equal(t, 1, strings.Count(stderr, "\n"), "one line: %q", stderr)
				assert.Regexp(t, `\(run 'snowid( help|( [a-z]+ -h))' for (usage|the commands)\)\n$`, stderr)
				assert.NotContains(t, stderr, "usage:")
				assert.Empty(t, stdout)
			}
		})
	}
}

func TestFlagPlacement(t *testing.T) {
	want, _, code := snowid(t, "decode", "-json", vectors[0].id)
	require.Equal(t, exitOK, code)
	for _, args := range [][]string{
		{"decode", vectors[0].id, "-json"},
		{"decode", "--json", vectors[0].id},
		{"decode", "-json=true", "--", vectors[0].id},
		{"decode", "-epoch", "1704067200000", vectors[0].id, "-json"},
	} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			got, stderr, code := snowid(t, args...)
			require.Equal(t, exitOK, code, stderr)
			assert.Equal(t, want, got)
		})
	}

	t.Run("negative epoch is a value", func(t *testing.T) {
		_, stderr, code := snowid(t, "decode", "-epoch", "-86400000", "1")
		assert.Equal(t, exitOK, code, stderr)
	})
	t.Run("after --, -json is an ID", func(t *testing.T) {
		_, stderr, code := snowid(t, "decode", "--", "-json")
		assert.Equal(t, exitUsage, code)
		oneErrorLine(t, stderr, `snowid: decode "-json": `)
	})
}

// Without -node, gen says on stderr which node it minted for; -node with
// -lease is refused, not ignored.
func TestGenNodeChoice(t *testing.T) {
	stdout, stderr, code := snowid(t, "gen")
	require.Equal(t, exitOK, code, stderr)
	assert.Equal(t, 0, snowlab.DefaultLayout.Decode(mustParse(t, stdout)).Node)
	oneErrorLine(t, stderr, "node 0", "-node N")

	dir := t.TempDir()
	stdout, stderr, code = snowid(t, "gen", "-lease", "dir:"+dir)
	require.Equal(t, exitOK, code, stderr)
	assert.Equal(t, 0, snowlab.DefaultLayout.Decode(mustParse(t, stdout)).Node)
	oneErrorLine(t, stderr, "node 0, leased from dir:"+dir)

	stdout, stderr, code = snowid(t, "gen", "-node", "5", "-lease", "dir:"+dir)
	assert.Equal(t, exitUsage, code)
	assert.Empty(t, stdout)
	oneErrorLine(t, stderr, "-node 5", "-lease", "one or the other")
	// -node 0 given explicitly is -node too.
	_, stderr, code = snowid(t, "gen", "-lease", "dir:"+dir, "-node=0")
	assert.Equal(t, exitUsage, code)
	oneErrorLine(t, stderr, "one or the other")
}

func mustParse(t *testing.T, line string) snowlab.ID {
	t.Helper()
	id, err := snowlab.ParseID(strings.TrimSpace(line))
	require.NoError(t, err)
	return id
}

// TestGenRerun: gen run twice on one -node prints no ID twice, even when
// the first run's IDs ran ahead of the clock. A layout of 4 IDs a tick
// makes 400 IDs span 100 ticks, printed in far less than 100 ms: unbounded
// and unfenced, a monotonic rerun started under them and repeated them.
func TestGenRerun(t *testing.T) {
	for _, policy := range []string{"strict", "monotonic"} {
		t.Run(policy, func(t *testing.T) {
			args := []string{"gen", "-node", "5", "-layout", "42/19/2", "-n", "400", "-policy", policy}
			var runs [2][]snowlab.ID
			for i := range runs {
				stdout, stderr, code := snowid(t, args...)
				require.Equal(t, exitOK, code, stderr)
				for _, f := range strings.Fields(stdout) {
					id, err := snowlab.ParseID(f)
					require.NoError(t, err)
					runs[i] = append(runs[i], id)
				}
				require.Len(t, runs[i], 400)
			}
			assert.Greater(t, runs[1][0], slices.Max(runs[0]), "the rerun starts under the first run's IDs")
		})
	}
}

// parseIDs reads the decimal IDs gen printed, one a line.
func parseIDs(t *testing.T, out string) []snowlab.ID {
	t.Helper()
	var ids []snowlab.ID
	for _, f := range strings.Fields(out) {
		id, err := snowlab.ParseID(f)
		require.NoError(t, err)
		ids = append(ids, id)
	}
	return ids
}

// TestGenRestartAnyPolicy: a run on -node N after a monotonic one that
// ran its whole default lead (100 ms) ahead of the clock starts past
// every ID it printed, whatever its own -policy and -max-lead (snowid gen
// -node 9 -policy monotonic -max-lead 2s, then gen -node 9 with the 10 ms
// default or -policy strict, printed the first run's IDs again). A layout
// of 4 IDs a tick makes the first run's 400 IDs span 100 ticks.
func TestGenRestartAnyPolicy(t *testing.T) {
	ids := func(args ...string) []snowlab.ID {
		t.Helper()
		stdout, stderr, code := snowid(t, append([]string{"gen", "-node", "9", "-layout", "42/19/2"}, args...)...)
		require.Equal(t, exitOK, code, stderr)
		return parseIDs(t, stdout)
	}
	var l snowlab.Layout
	require.NoError(t, l.UnmarshalText([]byte("42/19/2")))
	for _, next := range [][]string{{"-policy", "strict"}, {"-policy", "monotonic", "-max-lead", "1ms"}} {
		t.Run(strings.Join(next, " "), func(t *testing.T) {
			first := ids("-policy", "monotonic", "-n", "400")
			require.Len(t, first, 400)
			second := ids(append(next, "-n", "4")...)
			require.Len(t, second, 4)
			assert.Greater(t, second[0], slices.Max(first), "the second run (%s) starts at %v, under the first run's last ID at %v",
				strings.Join(next, " "), l.Decode(second[0]).Time, l.Decode(slices.Max(first)).Time)
		})
	}
}

// TestGenLeaseOtherLayout: gen -lease on a store whose node ids are held
// under another layout (41/8/14's node 0 mints the IDs of 41/10/12's
// nodes 0..3) is refused, exit 2, one line naming both layouts, and mints
// nothing.
func TestGenLeaseOtherLayout(t *testing.T) {
	dir := t.TempDir()
	_, stderr, code := snowid(t, "gen", "-lease", "dir:"+dir)
	require.Equal(t, exitOK, code, stderr)
	stdout, stderr, code := snowid(t, "gen", "-lease", "dir:"+dir, "-layout", "41/8/14")
	assert.Equal(t, exitUsage, code)
	assert.Empty(t, stdout)
	oneErrorLine(t, stderr, "snowid: gen -lease \"dir:"+dir+"\", -layout \"41/8/14\": nodeid: the store holds its node ids under another layout: dir "+dir+" (its file layout) records layout 41/10/12,1ms,2024-01-01T00:00:00Z, the holder's is 41/8/14,1ms,2024-01-01T00:00:00Z")
}

// TestGenLease: gen -lease takes its node id from a lock folder, and a
// second run on the same folder, after the first released, continues past
// every ID the first minted.
func TestGenLease(t *testing.T) {
	dir := t.TempDir()
	parse := func(out string) []snowlab.ID { return parseIDs(t, out) }
	out, errs, code := snowid(t, "gen", "-lease", "dir:"+dir, "-n", "5000", "-policy", "monotonic")
	require.Equal(t, 0, code, errs)
	first := parse(out)
	require.Len(t, first, 5000)
	out, errs, code = snowid(t, "gen", "-lease", "dir:"+dir, "-n", "10")
	require.Equal(t, 0, code, errs)
	second := parse(out)
	require.Len(t, second, 10)
	assert.Greater(t, second[0], first[len(first)-1], "the successor starts after the predecessor's last ID")
	assert.Equal(t, 0, snowlab.DefaultLayout.Decode(second[0]).Node)
}

// TestGenLeaseSpecs: a lease spec that can never work is a usage error (exit
// 2), one line naming it, and nothing is minted.
func TestGenLeaseSpecs(t *testing.T) {
	file := filepath.Join(t.TempDir(), "plain-file")
	require.NoError(t, os.WriteFile(file, nil, 0o644))
	for _, tt := range []struct {
		name, spec, want string
	}{
		{"no scheme", "nowhere", "want scheme:location"},
		{"empty", "", "want scheme:location"},
		{"unknown scheme", "bogus:x", `unknown scheme "bogus"`},
		{"dir under a regular file", "dir:" + filepath.Join(file, "ids"), "not a directory"},
		{"etcd without the etcd build", "etcd:127.0.0.1:2379/x", "etcdlease"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			stdout, stderr, code := snowid(t, "gen", "-lease", tt.spec)
			assert.Equal(t, exitUsage, code)
			assert.Empty(t, stdout)
			oneErrorLine(t, stderr, "-lease", fmt.Sprintf("%q", nodeid.Redact(tt.spec)), tt.want)
		})
	}
	// A pg: spec in a build without pglease: the same usage error, and
	// the DSN's password is not in it.
	stdout, stderr, code := snowid(t, "gen", "-lease", "pg:postgres://snow:S3cret@127.0.0.1:5432/db")
	assert.Equal(t, exitUsage, code)
	assert.Empty(t, stdout)
	oneErrorLine(t, stderr, "-lease", `"pg:postgres://snow:xxxxx@127.0.0.1:5432/db"`, "pglease")
	assert.NotContains(t, stderr, "S3cret")

	// An unquoted key=value DSN: its words after the first are arguments,
	// described in the refusal, not quoted.
	stdout, stderr, code = snowid(t, "gen", "-lease", "pg:host=h", "password=S3cret")
	assert.Equal(t, exitUsage, code)
	assert.Empty(t, stdout)
	assert.NotContains(t, stderr, "S3cret")
	assert.Contains(t, stderr, `unexpected argument "password=xxxxx"`)
}

func TestParsePolicy(t *testing.T) {
	for _, p := range []snowlab.Policy{snowlab.Strict, snowlab.Monotonic} {
		got, ok := ParsePolicy(p.String())
		assert.True(t, ok, p.String())
		assert.Equal(t, p, got)
	}
	for _, bad := range []string{"", "Strict", "lenient", "Policy(2)"} {
		_, ok := ParsePolicy(bad)
		assert.False(t, ok, bad)
	}
}
