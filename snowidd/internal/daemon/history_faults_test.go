//go:build snowidd_faults

package daemon

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/snowlab/snowlab"
	"github.com/snowlab/snowlab/nodeid"
)

// TestRecordStore: each operation is a call line and a return line with
// one id, the acquire's return line carrying the claim, in the format
// the fault lab reads (lab/internal/experiment/faults, ReadStoreOps).
func TestRecordStore(t *testing.T) {
	ctx := context.Background()
	dir := nodeid.Dir(t.TempDir())
	t.Setenv(FaultHistoryEnv, "")
	s, err := recordStore(dir)
	require.NoError(t, err)
	require.Equal(t, dir, s, "no file named: the store as it is")

	path := filepath.Join(t.TempDir(), "r0.history")
	t.Setenv(FaultHistoryEnv, path)
	s, err = recordStore(dir)
	require.NoError(t, err)
	c, err := s.Acquire(ctx, snowlab.Layout{}, 1, 3)
	require.NoError(t, err)
	require.NoError(t, c.Reserve(ctx, 100))
	require.NoError(t, c.Release(ctx, 50))

	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	var lines []historyLine
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var l historyLine
		require.NoError(t, json.Unmarshal(sc.Bytes(), &l), sc.Text())
		lines = append(lines, l)
	}
	require.Len(t, lines, 6)
	for i, op := range []string{"acquire", "reserve", "release"} {
		call, ret := lines[2*i], lines[2*i+1]
		require.Equal(t, op, call.Op)
		require.Equal(t, call.ID, ret.ID, "%s: one id for its call and return", op)
		require.Positive(t, call.Call)
		require.GreaterOrEqual(t, ret.Return, call.Call)
		require.Equal(t, "ok", ret.Outcome)
	}
	require.Equal(t, -1, lines[0].First, "an acquire's node id is known at its return")
	require.Equal(t, c.First(), lines[1].First)
	require.Equal(t, c.Token(), lines[1].Token)
	require.Equal(t, int64(100), lines[2].Value)
	require.Equal(t, int64(50), lines[4].Value)
	require.NotEqual(t, lines[0].ID, lines[2].ID)
}
