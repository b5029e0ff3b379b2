package k8slease

import (
	"context"
	"testing"
	"time"

	coordv1 "k8s.io/api/coordination/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/snowlab/snowlab/nodeid"
	"github.com/snowlab/snowlab/nodeid/storetest"
)

// heldTTL is the lease duration of the cases whose holders must keep their
// ids throughout (storetest.ExpiresHolder): at testTTL (2 s), renewals
// held up at load average 32-36 let claims expire mid-case, and
// Contention failed 3 runs of 3 ("id 3 handed to contenders 9 and 11 at
// once"), Ranges 1 of 3.
const heldTTL = 30 * time.Second

// TestStoreSuite runs the Store suite on the kube-apiserver $KUBECONFIG
// names (scripts/kube-apiserver.sh). Each case's backend is a fresh
// prefix, each client a clientset and Store of its own. The Restart case
// is skipped: the script's server is shared by the whole test run. So is
// Durable: the API server writes through etcd, which fsyncs a write on a
// quorum before it acknowledges it, so no kill loses an acknowledged
// write. A steal clears the Leases' holderIdentity by hand. With a mutant
// planted (storetest.PlantedMutant, from TestSuiteCatchesMutants) the
// suite must fail.
func TestStoreSuite(t *testing.T) {
	kc := kubeconfig(t)
	plantMutant(t)
	storetest.Run(t, func(t *testing.T) storetest.Backend {
		p := testPrefix(t, kc)
		ttl := heldTTL
		if storetest.ExpiresHolder(t) {
			ttl = testTTL
		}
		return storetest.BackendFunc(func(t *testing.T) nodeid.Store { return testStoreTTL(t, kc, p, ttl) })
	}, storetest.Config{Expire: expireClaim, TTL: testTTL, Steal: stealClaim})
}

// stealClaim clears the holderIdentity of the claim's Leases, as a person
// with kubectl edit would, after stopping the claim's renewals: the
// claim does not know.
func stealClaim(t *testing.T, nc nodeid.Claim) {
	t.Helper()
	c := nc.(*claim)
	c.stopRenew()
	c.renewing.Wait()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for n := c.first; n < c.first+c.count; n++ {
		l, err := c.s.leases().Get(ctx, c.s.name(n), metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		l.Spec.HolderIdentity = nil
		if _, err := c.s.leases().Update(ctx, l, metav1.UpdateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
}

// plantMutant plants the mutant storetest.PlantedMutant names, for the
// rest of the test.
func plantMutant(t *testing.T) {
	switch m := storetest.PlantedMutant(); m {
	case "":
	case "any-holder":
		saved := isTheClaims
		isTheClaims = func(_ *claim, l *coordv1.Lease) bool { return l.Spec.HolderIdentity != nil }
		t.Cleanup(func() { isTheClaims = saved })
	default:
		t.Fatalf("k8slease has no mutant %q", m)
	}
}

// TestSuiteCatchesMutants: the Store suite fails this store with its
// writes guarded on Leases that have a holder, anyone, instead of the
// claim's holder and token.
func TestSuiteCatchesMutants(t *testing.T) {
	kubeconfig(t)
	storetest.CatchMutants(t, "TestStoreSuite", []storetest.Mutant{
		{Name: "any-holder", Case: "Stolen", Says: "its guard let it write over the successor"},
	})
}

// expireClaim stops the claim's renewals, as a holder frozen or cut off
// from the API server would, and waits until every store open under the
// claim's prefix judges its Leases expired: each has seen the Lease at
// the version of the last renewal, and a lease duration has passed since
// it first did. (A sleep of the duration and 1.5 s was the premise
// before: it assumed the other stores' watches saw the last renewal
// within 1.5 s, which a loaded machine need not keep.)
func expireClaim(t *testing.T, nc nodeid.Claim) {
	t.Helper()
	c := nc.(*claim)
	c.stopRenew()
	c.renewing.Wait()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	last := make([]*coordv1.Lease, 0, c.count)
	for n := c.first; n < c.first+c.count; n++ {
		l, err := c.s.leases().Get(ctx, c.s.name(n), metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		last = append(last, l)
	}
	wait := storetest.UntilTestEnds(t) // how soon is the stores' watches' business
	for _, s := range testStores.of(c.s.prefix) {
		for _, l := range last {
			for !judgedExpired(s, l) {
				select {
				case <-wait.Done():
					t.Fatalf("a store never judged Lease %s (version %s) expired after its renewals stopped (TTL %v)", l.Name, l.ResourceVersion, s.ttl)
				case <-time.After(20 * time.Millisecond):
				}
			}
		}
	}
}

// judgedExpired reports whether s has seen l at its version and judges it
// expired now, without noting the version itself: a store that has not
// seen it yet would count a whole duration from now.
func judgedExpired(s *Store, l *coordv1.Lease) bool {
	s.obs.mu.Lock()
	e, ok := s.obs.seen[l.Name]
	s.obs.mu.Unlock()
	return ok && e.rv == l.ResourceVersion && s.obs.expired(l, s.ttl, time.Now())
}
