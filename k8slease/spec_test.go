package k8slease

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/client-go/tools/clientcmd"

	coordv1 "k8s.io/api/coordination/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestParseSpec(t *testing.T) {
	for _, tc := range []struct{ rest, ns, prefix string }{
		{"default/snowidd", "default", "snowidd"},
		{"ids", "ids", DefaultPrefix},
		{"ids/", "ids", DefaultPrefix},
	} {
		ns, prefix, err := parseSpec(tc.rest)
		if err != nil || ns != tc.ns || prefix != tc.prefix {
			t.Errorf("parseSpec(%q) = %q, %q, %v; want %q, %q", tc.rest, ns, prefix, err, tc.ns, tc.prefix)
		}
	}
	for _, rest := range []string{"", "/x", "Default/x", "ns/Upper", "ns/a_b", "ns/a/b", "ns/" + string(make([]byte, 60))} {
		if _, _, err := parseSpec(rest); !errors.Is(err, ErrInvalid) {
			t.Errorf("parseSpec(%q): %v, want ErrInvalid", rest, err)
		}
	}
}

func TestNodeOf(t *testing.T) {
	s := &Store{prefix: "ids"}
	for name, want := range map[string]int{"ids-0": 0, "ids-17": 17, "ids-017": -1, "ids-": -1, "idsx-1": -1, "ids--1": -1, "other-1": -1} {
		n, ok := s.nodeOf(name)
		if !ok {
			n = -1
		}
		if n != want {
			t.Errorf("nodeOf(%q) = %d, want %d", name, n, want)
		}
	}
}

// TestObserverExpiry: a held Lease expires a lease duration after this
// store first saw its current version, whatever its renewTime says; a
// new version starts the wait again; a released one is free at once.
func TestObserverExpiry(t *testing.T) {
	o := observer{seen: map[string]seen{}}
	secs := int32(5)
	h := "a"
	old := metav1.NewMicroTime(time.Unix(0, 0)) // the holder's clock far behind: not used
	l := &coordv1.Lease{ObjectMeta: metav1.ObjectMeta{Name: "x-0", ResourceVersion: "10"},
		Spec: coordv1.LeaseSpec{HolderIdentity: &h, LeaseDurationSeconds: &secs, RenewTime: &old}}
	t0 := time.Now()
	steps := []struct {
		rv   string
		at   time.Duration
		want bool
	}{
		{"10", 0, false},
		{"10", 4999 * time.Millisecond, false},
		{"10", 5 * time.Second, true},
		{"11", 6 * time.Second, false}, // renewed: wait again from here
		{"11", 10 * time.Second, false},
		{"11", 11 * time.Second, true},
	}
	for _, st := range steps {
		l.ResourceVersion = st.rv
		if got := o.expired(l, time.Hour, t0.Add(st.at)); got != st.want {
			t.Fatalf("rv %s at +%v: expired %v, want %v", st.rv, st.at, got, st.want)
		}
	}
	l.Spec.HolderIdentity = nil
	if !o.expired(l, time.Hour, t0) {
		t.Fatal("a released Lease (no holder) is not free")
	}
}

// Without a pod's service account and a kubeconfig, the error says where
// it looked, in the terms a user can change: $KUBECONFIG or the home
// file. It named a -kubeconfig flag that snowid and snowidd do not have,
// and client-go's KUBERNETES_MASTER.
func TestRestConfigNoConfig(t *testing.T) {
	t.Setenv("KUBERNETES_SERVICE_HOST", "")
	t.Setenv("KUBERNETES_SERVICE_PORT", "")
	missing := filepath.Join(t.TempDir(), "kubeconfig")

	t.Setenv("KUBECONFIG", missing)
	_, err := RestConfig("")
	require.ErrorIs(t, err, ErrNoConfig)
	assert.Equal(t, "k8slease: no Kubernetes client configuration: not in a pod, and $KUBECONFIG ("+missing+") names no kubeconfig", err.Error())

	// The home file is client-go's, fixed when it loads: this machine's.
	if _, err := os.Stat(clientcmd.RecommendedHomeFile); errors.Is(err, os.ErrNotExist) {
		t.Setenv("KUBECONFIG", "")
		_, err = RestConfig("")
		require.ErrorIs(t, err, ErrNoConfig)
		assert.Equal(t, "k8slease: no Kubernetes client configuration: not in a pod, $KUBECONFIG is not set, and there is no "+clientcmd.RecommendedHomeFile, err.Error())
	}

	_, err = RestConfig(missing)
	require.ErrorIs(t, err, ErrNoConfig)
	assert.Contains(t, err.Error(), `the kubeconfig "`+missing+`": `)
	assert.NotContains(t, err.Error(), "-kubeconfig")
}
