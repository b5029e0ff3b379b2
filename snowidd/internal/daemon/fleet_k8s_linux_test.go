package daemon

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestFleetK8s: two replicas on -lease k8s: against the kube-apiserver
// $KUBECONFIG names (scripts/kube-apiserver.sh), both with
// -prefer-ordinal and one ordinal ($POD_INDEX=3: two pods of one
// StatefulSet ordinal, as after a force-delete, kubernetes #54368), hold
// different node ids, one of them the ordinal's.
func TestFleetK8s(t *testing.T) {
	if os.Getenv("KUBECONFIG") == "" {
		needTool(t, requireK8s, errors.New("KUBECONFIG is not set"), `a kube-apiserver (eval "$(scripts/kube-apiserver.sh start)"; make test-k8s)`)
	}
	t.Setenv("POD_INDEX", "3") // the replicas inherit it
	spec := fmt.Sprintf("k8s:default/fleet%08x", rand.Uint32())
	args := []string{"-lease", spec, "-ttl", fleetTTL.String(), "-window", fleetWindow.String(), "-grace", "5s", "-prefer-ordinal"}
	reps := []*replicaProc{startReplica(t, "127.0.0.1:0", args...), startReplica(t, "127.0.0.1:0", args...)}
	defer func() {
		if t.Failed() {
			for _, r := range reps {
				t.Logf("replica %s:\n%s", r.addr, strings.Join(append(r.logs, r.log.String()), "--- restarted ---\n"))
			}
		}
	}()
	waitFor(t, "both replicas ready", allReady(t, reps))
	n0, n1 := nodeOf(t, reps[0]), nodeOf(t, reps[1])
	require.NotEqual(t, n0, n1, "two replicas with one ordinal hold one node id")
	require.True(t, n0 == "3" || n1 == "3", "neither replica holds node id 3, the ordinal both prefer: %s and %s", n0, n1)
	t.Logf("replicas with ordinal 3 on %s hold node ids %s and %s", spec, n0, n1)
}
