package replicatest_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/snowlab/snowlab"
	"github.com/snowlab/snowlab/etcdlease/tlstest"
	"github.com/snowlab/snowlab/lab/remote"
	"github.com/snowlab/snowlab/lab/workload"
	"github.com/snowlab/snowlab/snowidd/internal/replicatest"
	"github.com/snowlab/snowlab/snowidd/server"
)

// The lab's remote subject, which hand-encodes each protocol, against the
// real server: the lab's burst workload runs through every protocol, one
// ID per call and in batches, and its checks (uniqueness, each caller's
// order, the per-node ceiling) pass.
func TestLabRemoteAgainstAReplica(t *testing.T) {
	url := replicatest.Serve(t, replicatest.Static(t, snowlab.Config{Node: 3}).Handler())

	for _, p := range remote.Protocols {
		for _, batch := range []int{0, 10} {
			for _, fill := range []bool{false, true} {
				s, err := remote.Subject(url, p, batch, snowlab.Layout{})
				require.NoError(t, err)
				res, err := workload.Burst(s, workload.BurstConfig{IDs: 2000, Goroutines: 4, Repeats: 1, Batch: fill}, nil)
				require.NoError(t, err, s.Name)
				assert.True(t, res.Check.OK(), "%s (fill %v): %s", s.Name, fill, res.Check)
				assert.Equal(t, 2000, res.Check.IDs, s.Name)
			}
		}
	}
}

// The lab's remote subject over mutual TLS against the real server: every
// protocol passes the burst workload's checks with a client certificate,
// and without one the replica refuses the subject's calls.
func TestLabRemoteOverMutualTLS(t *testing.T) {
	ca, err := tlstest.NewCA("replicatest CA")
	require.NoError(t, err)
	dir := t.TempDir()
	files := server.TLSFiles{}
	files.ClientCA, err = ca.WriteCert(dir, "ca.crt")
	require.NoError(t, err)
	pair, err := ca.Server("127.0.0.1")
	require.NoError(t, err)
	files.Cert, files.Key, err = pair.Write(dir, "server")
	require.NoError(t, err)
	rl, err := server.NewTLSReloader(files, nil)
	require.NoError(t, err)
	srv := replicatest.Static(t, snowlab.Config{Node: 4})
	url := replicatest.ServeWith(t, srv, srv.Handler(), server.Limits{}, rl.Config())
	clientPair, err := ca.Client("lab")
	require.NoError(t, err)

	for _, p := range remote.Protocols {
		s, err := remote.SubjectTLS(url, p, 10, snowlab.Layout{}, tlstest.ClientConfig(ca, clientPair))
		require.NoError(t, err)
		res, err := workload.Burst(s, workload.BurstConfig{IDs: 1000, Goroutines: 4, Repeats: 1}, nil)
		require.NoError(t, err, s.Name)
		assert.True(t, res.Check.OK(), "%s: %s", s.Name, res.Check)
		assert.Equal(t, 1000, res.Check.IDs, s.Name)
	}
	s, err := remote.SubjectTLS(url, remote.GRPC, 0, snowlab.Layout{}, tlstest.ClientConfig(ca, nil))
	require.NoError(t, err)
	m, err := s.New()
	require.NoError(t, err)
	_, err = m.Next()
	require.ErrorIs(t, err, remote.ErrCall, "no client certificate")
	assert.Contains(t, err.Error(), "certificate required")
}
