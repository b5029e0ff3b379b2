package compare

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/snowlab/snowlab/lab/result"
)

// TestLoadWarning: compare prints each host's load and warns
// when the two differ by the rule of host.LoadDifference, in text and
// JSON alike; older runs' missing loads are said, never compared.
func TestLoadWarning(t *testing.T) {
	quiet := &result.Load{CPUs: 8, Seconds: 5, Own: 0.93, Other: 0.02, Start: result.LoadAvg{One: 0.4}, End: result.LoadAvg{One: 7.9}}
	busy := &result.Load{CPUs: 8, Seconds: 5, Own: 0.51, Other: 0.44, Steal: 0.01, Start: result.LoadAvg{One: 9.2}, End: result.LoadAvg{One: 12}}
	warning := "WARNING: the hosts' loads differ (other processes and steal took 2% vs 45% of the CPU time; steal 0% vs 1%)"
	for _, tc := range []struct {
		name     string
		old, new *result.Load
		note     string
		lines    []string
	}{
		{"both quiet", quiet, quiet, "", []string{
			"     load: other processes 2% · steal 0% · this run 93% of 8 CPUs over 5s · load average 0.40 at start, 7.90 at end"}},
		{"busy against quiet", quiet, busy,
			"other processes and steal took 2% vs 45% of the CPU time; steal 0% vs 1%", []string{
				"     load: other processes 44% · steal 1% · this run 51% of 8 CPUs over 5s · load average 9.20 at start, 12.00 at end",
				warning}},
		{"an older run's load not recorded", nil, busy, "", []string{"     load not recorded"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			old, new := clone(t, testRun(6)), clone(t, testRun(6))
			old.Host.Load, new.Host.Load = tc.old, tc.new
			c := Runs(old, new)
			assert.Equal(t, tc.note, c.LoadNote)

			var text bytes.Buffer
			require.NoError(t, c.Write(&text))
			for _, l := range tc.lines {
				assert.Contains(t, text.String(), l)
			}
			assert.Equal(t, tc.note != "", strings.Contains(text.String(), "WARNING: the hosts' loads differ"))
			// Under the host line each belongs to.
			assert.Contains(t, text.String(), "new: commit abc1234, host ci-1, Test CPU 8-core · GOMAXPROCS 8 · go1.26.8\n     "+tc.new.String()+"\n")

			var b bytes.Buffer
			require.NoError(t, c.WriteJSON(&b))
			var got struct {
				LoadNote string `json:"load_note"`
			}
			require.NoError(t, json.Unmarshal(b.Bytes(), &got))
			assert.Equal(t, tc.note, got.LoadNote)
		})
	}
}
