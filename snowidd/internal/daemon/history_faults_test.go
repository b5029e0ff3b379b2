//go:build snowidd_faults

package daemon

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/snowlab/snowlab"
	"github.com/snowlab/snowlab/etcdlease"
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

// renewingStore is a store that makes renewals of its own, as etcd's
// keep-alive does: renew plays one to the observer.
type renewingStore struct {
	nodeid.Store
	observe func(etcdlease.Renewal)
}

func (s *renewingStore) ObserveRenewals(f func(etcdlease.Renewal)) { s.observe = f }

// TestRecordRenewals: a store's own renewals (etcd's keep-alive answers)
// are renew operations, called at the renewal's Since and answered, ok,
// when the answer came, with the claim's node ids and token.
func TestRecordRenewals(t *testing.T) {
	path := filepath.Join(t.TempDir(), "r0.history")
	t.Setenv(FaultHistoryEnv, path)
	st := &renewingStore{Store: nodeid.Dir(t.TempDir())}
	_, err := recordStore(st)
	require.NoError(t, err)
	require.NotNil(t, st.observe, "the recorder did not ask for the store's renewals")
	since := time.Unix(100, 0)
	st.observe(etcdlease.Renewal{First: 4, Count: 2, Token: 17, Since: since, Received: since.Add(time.Second), TTL: 3 * time.Second})

	b, err := os.ReadFile(path)
	require.NoError(t, err)
	var call, ret historyLine
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	require.Len(t, lines, 2, "%s", b)
	require.NoError(t, json.Unmarshal([]byte(lines[0]), &call))
	require.NoError(t, json.Unmarshal([]byte(lines[1]), &ret))
	require.Equal(t, historyLine{ID: call.ID, Op: "renew", First: 4, Count: 2, Token: 17, Value: int64(3 * time.Second), Call: since.UnixNano()}, call)
	require.Equal(t, historyLine{ID: call.ID, First: 4, Count: 2, Return: since.Add(time.Second).UnixNano(), Outcome: "ok"}, ret)
}
