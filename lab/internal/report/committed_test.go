package report

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/snowlab/snowlab/lab/result"
)

// resultsDir is the repository's results folder, from this package's.
const resultsDir = "../../../results"

// committedRuns are the paths of the suite runs committed in results/ and
// results/baseline/, oldest first: files of older labs, which lack what
// newer ones record (the load, the limits).
func committedRuns(t *testing.T) []string {
	t.Helper()
	var paths []string
	for _, dir := range []string{resultsDir, filepath.Join(resultsDir, "baseline")} {
		files, err := filepath.Glob(filepath.Join(dir, "*.json"))
		require.NoError(t, err)
		for _, f := range files {
			data, err := os.ReadFile(f)
			require.NoError(t, err)
			var head struct {
				Experiment string `json:"experiment"`
			}
			require.NoError(t, json.Unmarshal(data, &head), f)
			if head.Experiment == "" { // an experiment's result is no suite run
				paths = append(paths, f)
			}
		}
	}
	slices.SortFunc(paths, func(a, b string) int { return strings.Compare(filepath.Base(a), filepath.Base(b)) })
	if len(paths) == 0 {
		t.Skip("no committed run in " + resultsDir)
	}
	return paths
}

// newestFullRun is the newest committed run with bursts, a saturate
// sweep and steady runs.
func newestFullRun(t *testing.T) *result.Run {
	t.Helper()
	paths := committedRuns(t)
	for i := len(paths) - 1; i >= 0; i-- {
		run, err := result.Read(paths[i])
		require.NoError(t, err)
		if len(run.Burst) > 0 && len(run.Saturate) > 0 && len(run.Steady) > 0 {
			return run
		}
	}
	t.Skip("no committed run with every workload")
	return nil
}

// tablesOf and sectionsOf are what a run's page holds: its tables with
// rows, and the ids of its sections.
func tablesOf(run *result.Run) int {
	n := 0
	for _, s := range newDocument(run).sections {
		for _, b := range s.Blocks {
			if b.Table != nil && len(b.Table.Rows) > 0 {
				n++
			}
		}
	}
	return n
}

func sectionsOf(run *result.Run) []string {
	var ids []string
	for _, s := range newDocument(run).sections {
		ids = append(ids, s.ID())
	}
	return ids
}

// TestCommittedRuns: every run committed in results/, most written by
// older labs, still reads and renders, its summary leading with every
// generator, its load said to be not recorded where the lab that wrote
// it recorded none, its hypervisor named once.
func TestCommittedRuns(t *testing.T) {
	for _, path := range committedRuns(t) {
		t.Run(filepath.Base(path), func(t *testing.T) {
			run, err := result.Read(path)
			require.NoError(t, err)
			md := markdownOf(t, run)
			page := htmlOf(t, run)
			summary := mdSection(md, "Summary")
			if run.Host.Load == nil {
				assert.Contains(t, summary, "load not recorded")
				assert.Contains(t, mdSection(md, "Host"), "| Load | not recorded")
			}
			assert.Less(t, strings.Index(md, "## Summary"), strings.Index(md, "## Host"))
			for _, s := range run.Subjects {
				if !s.Peer && !s.Physical {
					assert.Contains(t, summary, "| "+s.Name+" |", "the summary lists %s", s.Name)
				}
			}
			for _, raw := range []string{"KVMKVMKVM", "bhyve bhyve"} {
				assert.NotContains(t, md, raw)
				assert.NotContains(t, page, raw)
			}
			if h := run.Host.HypervisorName(); h != "" {
				assert.Contains(t, md, "| Hypervisor | "+h+" |")
			}
			for _, c := range chartsOf(run) {
				assert.NotNil(t, c.chart, c.name)
			}
		})
	}
}
