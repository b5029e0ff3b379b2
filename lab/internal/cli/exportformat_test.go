package cli

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/perf/benchfmt"

	"github.com/snowlab/snowlab/lab/internal/fixture"
)

// TestGoBenchParses: benchfmt (what benchstat reads with) parses every
// line, one result per saturate repeat, with both units.
func TestGoBenchParses(t *testing.T) {
	run := fixture.Sweep(6)
	var buf bytes.Buffer
	require.NoError(t, goBench(&buf, run))
	text := buf.String()
	assert.True(t, strings.HasPrefix(text, "pkg: github.com/snowlab/snowlab/lab\ncpu: Test CPU 8-core\n"), text[:80])
	assert.Contains(t, text, "\nBenchmarkSaturate/subject=atomicgen:strict/G=1-8 ")
	r := benchfmt.NewReader(strings.NewReader(text), "lab.txt")
	n := 0
	names := map[string]bool{}
	for r.Scan() {
		res, ok := r.Result().(*benchfmt.Result)
		if !ok {
			continue
		}
		n++
		names[string(res.Name)] = true
		ns, ok1 := res.Value("sec/op")
		ids, ok2 := res.Value("IDs/s")
		require.True(t, ok1 && ok2, "%s: units %+v", res.Name, res.Values)
		assert.InEpsilon(t, 1/ids, ns, 1e-3, "%s: ns/op is the inverse of IDs/s", res.Name)
		assert.Empty(t, res.GetConfig("commit"), "benchstat would split two commits into two tables")
	}
	require.NoError(t, r.Err())
	assert.Equal(t, 6*len(run.Saturate), n, "one line per repeat")
	assert.True(t, names["Saturate/subject=atomicgen:strict/G=1-8"], "%v", names)
}

func TestActionBenchmark(t *testing.T) {
	run := fixture.Sweep(6)
	var buf bytes.Buffer
	require.NoError(t, writeEntries(&buf, actionBenchmark(run)))
	var got []map[string]any
	require.NoError(t, json.Unmarshal(buf.Bytes(), &got), buf.String())
	byName := map[string]map[string]any{}
	for _, e := range got {
		for _, k := range []string{"name", "unit", "value"} {
			require.Contains(t, e, k, "the action requires %s", k)
		}
		byName[e["name"].(string)] = e
	}
	sat := byName["saturate atomicgen/monotonic G=1"]
	require.NotNil(t, sat)
	assert.Equal(t, "IDs/s", sat["unit"])
	assert.InEpsilon(t, 20e6, sat["value"], 0.03, "fixture.Sweep's atomicgen/monotonic")
	assert.Contains(t, byName["ratio tick fill atomicgen/strict @G=1"]["extra"], "gated")
	assert.Contains(t, byName["ratio atomic/mutex monotonic @G=1"]["extra"], "not gated")
	for name := range byName {
		assert.NotContains(t, name, "ns/ID over", "a cost is lower-is-better: not in the bigger-is-better file")
	}

	// The costs, apart: 1× is the limit, lower is better.
	buf.Reset()
	require.NoError(t, writeEntries(&buf, ratioEntries(run, true)))
	var costs []entry
	require.NoError(t, json.Unmarshal(buf.Bytes(), &costs), buf.String())
	names := map[string]entry{}
	for _, e := range costs {
		names[e.Name] = e
	}
	cost, ok := names["ratio atomicgen/monotonic ns/ID over limit/clock+cas @G=1"]
	require.True(t, ok, "%v", names)
	assert.Equal(t, "× the limit", cost.Unit)
	assert.InEpsilon(t, 1.25, cost.Value, 0.05, "the fixture's generator mints 0.8× its limit's IDs/s")
	assert.True(t, strings.HasPrefix(cost.Extra, "gated;"), cost.Extra)
	assert.Len(t, costs, 3, "atomicgen, shardedgen and (not gated) mutexgen over their limits")
}
