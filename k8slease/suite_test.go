package k8slease

import (
	"testing"
	"time"

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
// is skipped: the script's server is shared by the whole test run.
func TestStoreSuite(t *testing.T) {
	kc := kubeconfig(t)
	storetest.Run(t, func(t *testing.T) storetest.Backend {
		p := testPrefix(t, kc)
		ttl := heldTTL
		if storetest.ExpiresHolder(t) {
			ttl = testTTL
		}
		return storetest.BackendFunc(func(t *testing.T) nodeid.Store { return testStoreTTL(t, kc, p, ttl) })
	}, storetest.Config{Expire: expireClaim, TTL: testTTL})
}

// expireClaim stops the claim's renewals, as a holder frozen or cut off
// from the API server would, and waits out the lease duration as the other
// clients judge it: they saw the last renewal within a watch event's
// delay of it (well under a second on loopback), and take the id over a
// lease duration after that; 1.5 s covers the delay on a loaded machine.
func expireClaim(t *testing.T, nc nodeid.Claim) {
	t.Helper()
	c := nc.(*claim)
	c.stopRenew()
	c.renewing.Wait()
	time.Sleep(c.s.ttl + 1500*time.Millisecond)
}
