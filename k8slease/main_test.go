package k8slease

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"sync"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
)

// testTTL is the lease duration of the tests' stores: short, so that an
// expiry case waits seconds, and long enough that a renewal every third
// of it is not missed on a loaded 2-core machine.
const testTTL = 2 * time.Second

// testNamespace holds the tests' Leases, each case under a prefix of its own.
const testNamespace = "default"

// kubeconfig is the test server's kubeconfig: $KUBECONFIG as
// scripts/kube-apiserver.sh prints it. Without it the test is skipped,
// or fails under SNOWLAB_REQUIRE_K8S=1 (as CI sets). ~/.kube/config is
// never used: the tests must not write Leases into a cluster by accident.
func kubeconfig(t *testing.T) string {
	t.Helper()
	kc := os.Getenv("KUBECONFIG")
	if kc == "" {
		if os.Getenv("SNOWLAB_REQUIRE_K8S") != "" {
			t.Fatal("SNOWLAB_REQUIRE_K8S is set but KUBECONFIG is not: start a server with eval \"$(scripts/kube-apiserver.sh start)\"")
		}
		t.Skip("no KUBECONFIG: start a kube-apiserver with eval \"$(scripts/kube-apiserver.sh start)\" (make test-k8s does)")
	}
	return kc
}

// clientset is a client of its own on the test server.
func clientset(t *testing.T, kc string) kubernetes.Interface {
	t.Helper()
	cfg, err := RestConfig(kc)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return cs
}

// testPrefix is a new Lease prefix, whose Leases are deleted when t ends.
func testPrefix(t *testing.T, kc string) string {
	t.Helper()
	p := fmt.Sprintf("t%08x", rand.Uint32())
	cs := clientset(t, kc)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = cs.CoordinationV1().Leases(testNamespace).DeleteCollection(ctx, metav1.DeleteOptions{}, metav1.ListOptions{LabelSelector: PoolLabel + "=" + p})
	})
	return p
}

// testStoreTTL is a Store under prefix with a lease duration of ttl, on a
// client of its own (as another process would have), closed when t ends.
func testStoreTTL(t *testing.T, kc, prefix string, ttl time.Duration) *Store {
	t.Helper()
	s, err := New(clientset(t, kc), testNamespace, prefix, ttl)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	testStores.add(prefix, s)
	t.Cleanup(func() { testStores.remove(prefix, s) })
	return s
}

// testStores are the stores open under each prefix, for expireClaim: a
// claim has expired when every one of them judges so.
var testStores = storesByPrefix{m: map[string][]*Store{}}

type storesByPrefix struct {
	mu sync.Mutex
	m  map[string][]*Store
}

func (r *storesByPrefix) add(prefix string, s *Store) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.m[prefix] = append(r.m[prefix], s)
}

func (r *storesByPrefix) remove(prefix string, s *Store) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.m[prefix] = slices.DeleteFunc(r.m[prefix], func(x *Store) bool { return x == s })
	if len(r.m[prefix]) == 0 {
		delete(r.m, prefix)
	}
}

func (r *storesByPrefix) of(prefix string) []*Store {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.m[prefix])
}
