package load

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/snowlab/snowlab"
	"github.com/snowlab/snowlab/snowidd/client"
	"github.com/snowlab/snowlab/snowidd/internal/replicatest"
)

func TestQuantile(t *testing.T) {
	r := Result{Latencies: []time.Duration{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}}
	assert.Equal(t, time.Duration(5), r.Quantile(0.5))
	assert.Equal(t, time.Duration(10), r.Quantile(0.99))
	assert.Equal(t, time.Duration(1), r.Quantile(0))
	assert.Zero(t, Result{}.Quantile(0.5))
}

// The loops count what the server answered, on every protocol.
func TestLoopsAgainstAReplica(t *testing.T) {
	srv := replicatest.Static(t, snowlab.Config{Node: 2})
	url := replicatest.Serve(t, srv.Handler())

	for p := client.GRPC; p <= client.GRPCWeb; p++ {
		calls, err := Caller(url, p, 10, 2)
		require.NoError(t, err)
		r := Closed(context.Background(), calls, 4, 300*time.Millisecond)
		require.Zero(t, r.Errors, "%v: %v", p, r.FirstErr)
		require.Positive(t, r.Calls, p)
		assert.Equal(t, 10*r.Calls, r.IDs, p)
	}
	calls, err := Caller(url, client.GRPC, 0, 1)
	require.NoError(t, err)
	r := Open(context.Background(), calls, 1, 200, 100*time.Millisecond)
	require.Zero(t, r.Errors, "%v", r.FirstErr)
	assert.EqualValues(t, 20, r.Calls)
	assert.Len(t, r.Latencies, 20)
	assert.IsNonDecreasing(t, r.Latencies)

	srv.Drain()
	r = Open(context.Background(), calls, 1, 100, 50*time.Millisecond)
	assert.EqualValues(t, 5, r.Errors)
	assert.Empty(t, r.Latencies, "failed calls have no latency")
	assert.Error(t, r.FirstErr)
	assert.False(t, errors.Is(r.FirstErr, context.Canceled))

	_, err = Caller(url, client.GRPC, client.MaxBatch+1, 1)
	assert.Error(t, err)
}
