package faults

import (
	"context"
	"encoding/pem"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
)

// TestKubeMissing: without the kube-apiserver binary the k8s scenario is
// skipped, and the reason says how to get one.
func TestKubeMissing(t *testing.T) {
	t.Setenv("SNOWLAB_KUBE_APISERVER", t.TempDir()+"/kube-apiserver")
	why := (&executor{}).unmet(scenarios()[pickIndex(t, "replica-cut-off-k8s")])
	assert.Contains(t, why, "scripts/kube-apiserver.sh build")
	assert.Contains(t, why, "SNOWLAB_KUBE_APISERVER")
}

func pickIndex(t *testing.T, name string) int {
	for i, s := range scenarios() {
		if s.Name == name {
			return i
		}
	}
	t.Fatalf("no scenario %s", name)
	return -1
}

// TestKubeLease: the lab reads a Lease as k8slease writes it: a released
// one is free at once, a held one is held until the lab has seen it
// unchanged for its leaseDurationSeconds, and its reserved-until is the
// annotation's Unix nanoseconds.
func TestKubeLease(t *testing.T) {
	holder, rv := "host/pid-1/0a", "7"
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer tok" || r.URL.Path != "/apis/coordination.k8s.io/v1/namespaces/default/leases/faults-x-2" {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"kind":"Lease","apiVersion":"coordination.k8s.io/v1","metadata":{"resourceVersion":"` + rv + `","annotations":{"snowlab.io/reserved-until":"1700000000123456789"}},` +
			`"spec":{"holderIdentity":"` + holder + `","leaseDurationSeconds":1}}`))
	}))
	defer srv.Close()
	cs, err := kubernetes.NewForConfig(&rest.Config{Host: srv.URL, BearerToken: "tok", QPS: -1,
		TLSClientConfig: rest.TLSClientConfig{CAData: pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw})}})
	require.NoError(t, err)
	k := &kubeAPI{leases: cs.CoordinationV1().Leases(kubeNamespace), seen: map[string]seen{}}
	ctx := context.Background()
	until, err := k.reserved(ctx, "x", 2)
	require.NoError(t, err)
	assert.Equal(t, int64(1700000000123456789), until.UnixNano())
	held, err := k.held(ctx, "x", 2)
	require.NoError(t, err)
	assert.True(t, held, "first seen now: held for a whole duration")
	k.seen["faults-x-2"] = seen{rv, time.Now().Add(-time.Second)} // seen unchanged for the duration
	held, err = k.held(ctx, "x", 2)
	require.NoError(t, err)
	assert.False(t, held, "unchanged for its duration: expired")
	rv = "8" // renewed
	held, err = k.held(ctx, "x", 2)
	require.NoError(t, err)
	assert.True(t, held, "a new version: held again")
	holder = ""
	held, err = k.held(ctx, "x", 2)
	require.NoError(t, err)
	assert.False(t, held, "released")
	_, err = k.held(ctx, "x", 3)
	assert.True(t, apierrors.IsNotFound(err), "%v", err)
}

// TestKubeconfig: a replica's kubeconfig leads to its link, trusts the
// rig's CA and carries the token, in the scenarios' namespace.
func TestKubeconfig(t *testing.T) {
	dir := t.TempDir()
	k := &kubeAPI{token: "tok", ca: filepath.Join(dir, "ca.pem")}
	require.NoError(t, os.WriteFile(k.ca, []byte("PEM"), 0o600))
	p, err := k.kubeconfig(dir, 1, "https://127.0.0.1:1234")
	require.NoError(t, err)
	cc := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(&clientcmd.ClientConfigLoadingRules{ExplicitPath: p}, nil)
	cfg, err := cc.ClientConfig()
	require.NoError(t, err)
	assert.Equal(t, "https://127.0.0.1:1234", cfg.Host)
	assert.Equal(t, "tok", cfg.BearerToken)
	assert.Equal(t, k.ca, cfg.CAFile)
	raw, err := cc.RawConfig()
	require.NoError(t, err)
	assert.Equal(t, kubeNamespace, raw.Contexts[raw.CurrentContext].Namespace)
}
