package result_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/snowlab/snowlab/lab/internal/fixture"
	"github.com/snowlab/snowlab/lab/result"
)

func TestRead(t *testing.T) {
	dir := t.TempDir()
	good, err := json.Marshal(fixture.Run())
	require.NoError(t, err)
	future := fixture.Run()
	future.Schema = result.SchemaVersion + 1
	futureJSON, err := json.Marshal(future)
	require.NoError(t, err)

	for _, tc := range []struct {
		name    string
		content []byte // nil: no file
		wantErr []string
	}{
		{name: "ok.json", content: good},
		{name: "future.json", content: futureJSON, wantErr: []string{"future.json", fmt.Sprint(result.SchemaVersion + 1), fmt.Sprintf("version %d", result.SchemaVersion)}},
		{name: "noschema.json", content: []byte(`{"commit":"x"}`), wantErr: []string{"noschema.json", "version 0", fmt.Sprintf("version %d", result.SchemaVersion)}},
		{name: "garbage.json", content: []byte(`{"schema":`), wantErr: []string{"garbage.json", "not a lab result"}},
		{name: "absent.json", wantErr: []string{"absent.json"}},
		{name: "btree.json", content: []byte(`{"schema":1,"experiment":"btree","commit":"x"}`),
			wantErr: []string{"btree.json", result.ErrExperiment.Error(), `experiment "btree"`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(dir, tc.name)
			if tc.content != nil {
				require.NoError(t, os.WriteFile(path, tc.content, 0o644))
			}
			run, err := result.Read(path)
			if tc.wantErr == nil {
				require.NoError(t, err)
				assert.Equal(t, fixture.Run(), run)
				return
			}
			require.Error(t, err)
			assert.Equal(t, tc.name == "btree.json", errors.Is(err, result.ErrExperiment), "%v", err)
			for _, w := range tc.wantErr {
				assert.ErrorContains(t, err, w)
			}
		})
	}
}

func TestCheckDescribe(t *testing.T) {
	assert.Equal(t, "OK", result.Check{IDs: 10}.String())
	c := result.Check{IDs: 100, Duplicates: 1, OrderViolations: 2, CeilingExceeded: true, MaxPerTickNode: 4100, Errors: 3,
		FirstError: "clock moved back"}
	assert.Equal(t, "FAIL: 1 duplicate, 2 order violations, ceiling exceeded (4100 in one tick on one node), "+
		"3 errors (first: clock moved back)", c.String())
	assert.Equal(t, "x (burst via NextID): 100 IDs: "+c.String(), c.Failure("x", "burst via NextID"))
}
