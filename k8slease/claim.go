package k8slease

import (
	"context"
	"fmt"
	"strconv"
	"sync"
	"time"

	coordv1 "k8s.io/api/coordination/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/snowlab/snowlab/nodeid"
)

// claim is a held range of node ids: one Lease each, holderIdentity and
// token annotation this claim's, renewed in the background.
type claim struct {
	s            *Store
	first, count int
	token, floor int64
	holder       string

	st        *nodeid.ClaimState
	lastWrite time.Time // the last successful write, under st's lock

	stopRenew context.CancelFunc
	renewing  sync.WaitGroup
}

func newClaim(s *Store, first, count int, token, floor int64, holder string) *claim {
	ctx, cancel := context.WithCancel(context.Background())
	c := &claim{s: s, first: first, count: count, token: token, floor: floor, holder: holder, lastWrite: time.Now(), stopRenew: cancel}
	c.st = nodeid.NewClaimState(fmt.Sprintf("k8slease: node ids %d..%d in namespace %s (token %d)", first, first+count-1, s.ns, token), floor, cancel)
	c.renewing.Add(1)
	go func() {
		defer c.renewing.Done()
		c.renew(ctx)
	}()
	return c
}

func (c *claim) First() int            { return c.first }
func (c *claim) Count() int            { return c.count }
func (c *claim) Floor() int64          { return c.floor }
func (c *claim) Token() int64          { return c.token }
func (c *claim) Lost() <-chan struct{} { return c.st.Lost() }

// Err says why the claim was lost, once Lost is closed: nodeid.Lease.Err
// reports it.
func (c *claim) Err() error { return c.st.Err() }

// Reserve stores until as every Lease's reserved-until annotation (and
// renews them): see write for the guard.
func (c *claim) Reserve(ctx context.Context, until int64) error {
	return c.st.Reserve(ctx, until, "a Lease of the claim has another holder or token (taken over after it expired, or deleted)",
		func(ctx context.Context, v int64) (bool, error) {
			return c.write(ctx, func(l *coordv1.Lease) { l.Annotations[ReservedAnnotation] = strconv.FormatInt(v, 10) })
		})
}

// Release stores until (at least the claim's floor) as the final
// reserved-until and clears holderIdentity on every Lease, so that the
// next holder need not wait for the lease duration.
func (c *claim) Release(ctx context.Context, until int64) error {
	c.stopRenew() // before the lock: a renewal under way holds it
	c.renewing.Wait()
	c.st.Lock()
	defer c.st.Unlock()
	v := strconv.FormatInt(max(until, c.floor), 10)
	held, err := c.write(ctx, func(l *coordv1.Lease) {
		l.Annotations[ReservedAnnotation] = v
		l.Spec.HolderIdentity = nil
	})
	if err != nil {
		return fmt.Errorf("k8slease: release node ids %d..%d: %w", c.first, c.first+c.count-1, err)
	}
	if !held {
		c.st.Lose("a Lease of the claim had another holder or token before the release")
		return c.st.Err()
	}
	return nil
}

// write is every write of the claim, under st's lock: it reads all its
// Leases and, only if every one still has this claim's holderIdentity
// and token, updates each at the version read with change applied and
// renewTime now. held is false when one of them is not the claim's (a
// zombie then writes nothing, on no id: the check covers the whole range
// before the first update). An update that meets a 409 is read and tried
// again while the Lease is still the claim's (someone edited a label).
func (c *claim) write(ctx context.Context, change func(*coordv1.Lease)) (held bool, err error) {
	ls := make([]*coordv1.Lease, c.count)
	for i := range ls {
		if ls[i], held, err = c.get(ctx, c.first+i); !held || err != nil {
			return held, err
		}
	}
	for i, l := range ls {
		for range 3 {
			l = l.DeepCopy()
			change(l)
			now := metav1.NewMicroTime(time.Now())
			l.Spec.RenewTime = &now
			_, err = c.s.leases().Update(ctx, l, metav1.UpdateOptions{})
			if !apierrors.IsConflict(err) {
				break
			}
			if l, held, err = c.get(ctx, c.first+i); !held || err != nil {
				return held, err
			}
		}
		if err != nil {
			return false, fmt.Errorf("k8slease: update Lease %s in namespace %s: %w", c.s.name(c.first+i), c.s.ns, err)
		}
	}
	c.lastWrite = time.Now()
	return true, nil
}

// get reads node id n's Lease; held says whether it is still the claim's.
func (c *claim) get(ctx context.Context, n int) (*coordv1.Lease, bool, error) {
	l, err := c.s.leases().Get(ctx, c.s.name(n), metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, fmt.Errorf("k8slease: read Lease %s in namespace %s: %w", c.s.name(n), c.s.ns, err)
	}
	if !isTheClaims(c, l) {
		return nil, false, nil
	}
	return l, true, nil
}

// isTheClaims is the guard of a claim's writes: the Lease names the
// claim's holder and token. (A variable only so that the module's tests
// can plant the mutant of a write without it, which the Store suite must
// fail.)
var isTheClaims = func(c *claim, l *coordv1.Lease) bool {
	h := l.Spec.HolderIdentity
	return h != nil && *h == c.holder && l.Annotations[TokenAnnotation] == strconv.FormatInt(c.token, 10)
}

// renew moves renewTime every third of the lease duration, unless a
// Reserve did it since. A renewal that finds a Lease not the claim's
// loses the claim; one that fails otherwise is tried at the next tick.
func (c *claim) renew(ctx context.Context) {
	every := c.s.ttl / 3
	t := time.NewTicker(every / 2)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		c.st.Lock()
		if ctx.Err() == nil && time.Since(c.lastWrite) >= every {
			wctx, cancel := context.WithTimeout(ctx, every)
			held, err := c.write(wctx, func(*coordv1.Lease) {})
			cancel()
			if err == nil && !held {
				c.st.Unlock()
				c.st.Lose("a renewal found a Lease of the claim with another holder or token")
				return
			}
		}
		c.st.Unlock()
	}
}
