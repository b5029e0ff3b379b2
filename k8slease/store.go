package k8slease

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"
	"sync"
	"time"

	coordv1 "k8s.io/api/coordination/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/client-go/kubernetes"
	coordclient "k8s.io/client-go/kubernetes/typed/coordination/v1"

	"github.com/snowlab/snowlab"
	"github.com/snowlab/snowlab/nodeid"
)

const (
	// DefaultPrefix is the Lease name prefix New uses for an empty prefix.
	DefaultPrefix = "snowlab"
	// DefaultTTL is the leaseDurationSeconds New writes for a ttl of 0:
	// client-go's leader election uses 15 s too.
	DefaultTTL = 15 * time.Second
	// MinTTL is the shortest lease duration: the field is whole seconds.
	MinTTL = time.Second
	// MaxCount is the most node ids one claim holds: a claim writes each
	// of its Leases on every renewal, one request apiece.
	MaxCount = 64

	// PoolLabel marks every Lease of a store; its value is the prefix.
	PoolLabel = "snowlab.io/pool"
	// ReservedAnnotation holds a node id's reserved-until, Unix ns.
	ReservedAnnotation = "snowlab.io/reserved-until"
	// TokenAnnotation holds the fencing token of the id's latest holder.
	TokenAnnotation = "snowlab.io/token"
	// LayoutAnnotation holds the layout the pool's node ids are held
	// under, on the Lease PREFIX-layout.
	LayoutAnnotation = "snowlab.io/layout"
)

// ErrInvalid: a namespace or prefix that no Lease name can be built from.
var ErrInvalid = errors.New("k8slease: invalid namespace or prefix")

// ErrCorrupt: a Lease of the store holds an annotation that does not parse.
var ErrCorrupt = errors.New("k8slease: corrupt Lease")

// errConflict is a claim attempt another holder won (HTTP 409).
var errConflict = errors.New("k8slease: conflict")

// Store is a nodeid.Store on coordination.k8s.io/v1 Lease objects: see
// the package documentation.
type Store struct {
	cs     kubernetes.Interface
	ns     string
	prefix string
	ttl    time.Duration
	obs    observer
	stop   context.CancelFunc
	done   chan struct{}
	once   sync.Once
}

var (
	_ nodeid.Store     = (*Store)(nil)
	_ nodeid.Preferrer = (*Store)(nil)
)

// New returns a Store keeping its Leases, named PREFIX-N, in namespace,
// written with a lease duration of ttl (DefaultTTL when 0, at least
// MinTTL, rounded up to whole seconds). It starts watching the store's
// Leases at once, so that it has seen every renewal by the time it is
// asked to take an id over (see the package documentation); Close stops
// the watch. The client is used, not owned.
func New(client kubernetes.Interface, namespace, prefix string, ttl time.Duration) (*Store, error) {
	if prefix == "" {
		prefix = DefaultPrefix
	}
	if err := checkNames(namespace, prefix); err != nil {
		return nil, err
	}
	if ttl == 0 {
		ttl = DefaultTTL
	}
	ttl = (max(ttl, MinTTL) + time.Second - 1).Truncate(time.Second)
	ctx, cancel := context.WithCancel(context.Background())
	s := &Store{cs: client, ns: namespace, prefix: prefix, ttl: ttl, stop: cancel, done: make(chan struct{})}
	s.obs.seen = map[string]seen{}
	go func() {
		defer close(s.done)
		s.watch(ctx)
	}()
	return s, nil
}

// checkNames refuses a namespace that is not a DNS-1123 label, and a
// prefix that with "-1023" is not one either or is no label value.
func checkNames(namespace, prefix string) error {
	if errs := validation.IsDNS1123Label(namespace); len(errs) > 0 {
		return fmt.Errorf("%w: namespace %q: %s", ErrInvalid, namespace, errs[0])
	}
	for _, name := range []string{prefix + "-1023", prefix + layoutSuffix} {
		if errs := validation.IsDNS1123Label(name); len(errs) > 0 {
			return fmt.Errorf("%w: prefix %q: %s", ErrInvalid, prefix, errs[0])
		}
	}
	if errs := validation.IsValidLabelValue(prefix); len(errs) > 0 {
		return fmt.Errorf("%w: prefix %q: %s", ErrInvalid, prefix, errs[0])
	}
	return nil
}

// Close stops the store's watch. Release the claims first.
func (s *Store) Close() error {
	s.once.Do(func() {
		s.stop()
		<-s.done
	})
	return nil
}

func (s *Store) leases() coordclient.LeaseInterface { return s.cs.CoordinationV1().Leases(s.ns) }

func (s *Store) name(n int) string { return s.prefix + "-" + strconv.Itoa(n) }

func (s *Store) selector() string { return PoolLabel + "=" + s.prefix }

// Acquire takes count consecutive free node ids among 0..maxNode: see the
// package documentation. The lowest free range first; after conflicts,
// one at random among the lowest free ones, as etcdlease does.
func (s *Store) Acquire(ctx context.Context, layout snowlab.Layout, count, maxNode int) (nodeid.Claim, error) {
	return s.AcquireAt(ctx, layout, -1, count, maxNode)
}

// AcquireAt is Acquire trying the range from first first (nodeid's
// Preferrer): when that range is not free it takes any free one. A first
// of -1 prefers none.
func (s *Store) AcquireAt(ctx context.Context, layout snowlab.Layout, first, count, maxNode int) (nodeid.Claim, error) {
	if count < 1 || maxNode < 0 || count > maxNode+1 || count > MaxCount {
		return nil, fmt.Errorf("%w: k8slease: %d node ids asked for among 0..%d (at most %d in one claim)", snowlab.ErrInvalidNode, count, maxNode, MaxCount)
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("k8slease: acquire: %w", err)
	}
	if err := s.pinLayout(ctx, layout); err != nil {
		return nil, err
	}
	holder := fmt.Sprintf("%s/pid-%d/%08x", hostname(), os.Getpid(), rand.Uint32())
	var prev map[int]*coordv1.Lease // the last view that had no free run
	for conflicts, waits := 0, 0; ; {
		view, err := s.list(ctx)
		if err != nil {
			return nil, err
		}
		cands := s.freeRanges(view, count, maxNode, time.Now())
		if len(cands) == 0 {
			if (prev != nil && sameVersions(prev, view)) || waits >= maxSettle {
				return nil, fmt.Errorf("%w: k8slease: no %d consecutive node ids among 0..%d are free in namespace %s (Leases %s-N)",
					nodeid.ErrNoFreeNode, count, maxNode, s.ns, s.prefix)
			}
			prev, waits = view, waits+1
			if err := sleep(ctx, settle); err != nil {
				return nil, err
			}
			continue
		}
		prev = nil
		pick := cands[0]
		if conflicts > 0 {
			pick = cands[rand.IntN(min(len(cands), 1<<min(conflicts, 16)))]
		} else if first >= 0 && contains(cands, first) {
			pick = first
		}
		c, err := s.try(ctx, view, pick, count, holder)
		if err == nil {
			return c, nil
		}
		if !errors.Is(err, errConflict) {
			return nil, err
		}
		if conflicts++; conflicts > 100 {
			return nil, fmt.Errorf("k8slease: claim node ids: the Leases keep changing under contention: %w", err)
		}
	}
}

// layoutSuffix names the Lease that records the pool's layout:
// PREFIX-layout, which no node id's name is.
const layoutSuffix = "-layout"

// pinLayout records layout on the Lease PREFIX-layout when it does not
// exist (a create: the API server refuses a second with 409, so of two
// first holders only one makes it), and compares it with the record
// (nodeid's Store contract).
func (s *Store) pinLayout(ctx context.Context, layout snowlab.Layout) error {
	text, err := layout.MarshalText()
	if err != nil {
		return err
	}
	name := s.prefix + layoutSuffix
	l := &coordv1.Lease{ObjectMeta: metav1.ObjectMeta{
		Name: name, Namespace: s.ns,
		Labels:      map[string]string{PoolLabel: s.prefix},
		Annotations: map[string]string{LayoutAnnotation: string(text)},
	}}
	_, err = s.leases().Create(ctx, l, metav1.CreateOptions{})
	switch {
	case err == nil:
		return nil
	case !apierrors.IsAlreadyExists(err):
		return fmt.Errorf("k8slease: record the layout on Lease %s in namespace %s: %w", name, s.ns, err)
	}
	if l, err = s.leases().Get(ctx, name, metav1.GetOptions{}); err != nil {
		return fmt.Errorf("k8slease: read Lease %s in namespace %s: %w", name, s.ns, err)
	}
	return nodeid.CheckLayout(fmt.Sprintf("Lease %s/%s (annotation %s)", s.ns, name, LayoutAnnotation), l.Annotations[LayoutAnnotation], layout)
}

// settle and maxSettle bound how long Acquire makes sure that no run is
// free before it says so. A claim of several ids is taken id by id, and a
// claimant that loses a race half-way gives back the ids it took: for a
// moment they look held. So "none free" is only said of a view that is
// the same, Lease for Lease, after settle (a give-back takes a request's
// time, milliseconds on a loaded loopback); at most maxSettle waits.
const (
	settle    = 200 * time.Millisecond
	maxSettle = 10
)

// sameVersions reports whether two views hold the same Leases at the
// same resourceVersions.
func sameVersions(a, b map[int]*coordv1.Lease) bool {
	if len(a) != len(b) {
		return false
	}
	for n, l := range a {
		if m := b[n]; m == nil || m.ResourceVersion != l.ResourceVersion {
			return false
		}
	}
	return true
}

func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return fmt.Errorf("k8slease: acquire: %w", ctx.Err())
	case <-t.C:
		return nil
	}
}

func contains(s []int, v int) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

// list reads the store's Leases, by node id, and notes their versions.
func (s *Store) list(ctx context.Context) (map[int]*coordv1.Lease, error) {
	ls, err := s.leases().List(ctx, metav1.ListOptions{LabelSelector: s.selector()})
	if err != nil {
		return nil, fmt.Errorf("k8slease: list Leases %s-N in namespace %s: %w", s.prefix, s.ns, err)
	}
	now := time.Now()
	view := make(map[int]*coordv1.Lease, len(ls.Items))
	for i := range ls.Items {
		l := &ls.Items[i]
		if n, ok := s.nodeOf(l.Name); ok {
			view[n] = l
			s.obs.note(l.Name, l.ResourceVersion, now)
		}
	}
	return view, nil
}

// nodeOf is the node id a Lease name stands for.
func (s *Store) nodeOf(name string) (int, bool) {
	if len(name) <= len(s.prefix)+1 || name[:len(s.prefix)+1] != s.prefix+"-" {
		return 0, false
	}
	n, err := strconv.Atoi(name[len(s.prefix)+1:])
	return n, err == nil && n >= 0 && s.name(n) == name
}

// freeRanges are the first ids of the runs of count ids among 0..maxNode
// that are free at now: no Lease, a released one, or an expired one.
func (s *Store) freeRanges(view map[int]*coordv1.Lease, count, maxNode int, now time.Time) []int {
	var out []int
	run := 0
	for n := 0; n <= maxNode; n++ {
		if l := view[n]; l != nil && !s.obs.expired(l, s.ttl, now) {
			run = 0
			continue
		}
		if run++; run >= count {
			out = append(out, n-count+1)
		}
	}
	return out
}

// try claims first..first+count-1, each Lease created or updated at the
// resourceVersion listed; a 409 on any of them undoes the others and is
// errConflict.
func (s *Store) try(ctx context.Context, view map[int]*coordv1.Lease, first, count int, holder string) (*claim, error) {
	var floor, token int64
	for n := first; n < first+count; n++ {
		r, t, err := annotations(view[n])
		if err != nil {
			return nil, err
		}
		floor, token = max(floor, r), max(token, t)
	}
	token++
	now := metav1.NewMicroTime(time.Now())
	taken := make([]*coordv1.Lease, 0, count)
	for n := first; n < first+count; n++ {
		l, err := s.take(ctx, view[n], n, holder, token, now)
		if err != nil {
			s.undo(ctx, taken)
			if apierrors.IsConflict(err) || apierrors.IsAlreadyExists(err) {
				return nil, fmt.Errorf("%w: node id %d", errConflict, n)
			}
			return nil, fmt.Errorf("k8slease: claim Lease %s in namespace %s: %w", s.name(n), s.ns, err)
		}
		taken = append(taken, l)
	}
	return newClaim(s, first, count, token, floor, holder), nil
}

// take writes node id n's Lease for holder: created when old is nil, else
// updated at old's resourceVersion.
func (s *Store) take(ctx context.Context, old *coordv1.Lease, n int, holder string, token int64, now metav1.MicroTime) (*coordv1.Lease, error) {
	secs := int32(s.ttl / time.Second)
	l := &coordv1.Lease{ObjectMeta: metav1.ObjectMeta{Name: s.name(n), Namespace: s.ns}}
	var transitions int32
	if old != nil {
		l = old.DeepCopy()
		if old.Spec.LeaseTransitions != nil {
			transitions = *old.Spec.LeaseTransitions + 1
		}
	}
	if l.Labels == nil {
		l.Labels = map[string]string{}
	}
	if l.Annotations == nil {
		l.Annotations = map[string]string{}
	}
	l.Labels[PoolLabel] = s.prefix
	l.Annotations[TokenAnnotation] = strconv.FormatInt(token, 10)
	l.Spec = coordv1.LeaseSpec{
		HolderIdentity: &holder, LeaseDurationSeconds: &secs,
		AcquireTime: &now, RenewTime: &now, LeaseTransitions: &transitions,
	}
	if old == nil {
		return s.leases().Create(ctx, l, metav1.CreateOptions{})
	}
	return s.leases().Update(ctx, l, metav1.UpdateOptions{})
}

// undo gives back the Leases of a claim attempt that lost a race: each
// released as it is (its reserved-until unchanged). One that cannot be
// written expires after the TTL.
func (s *Store) undo(ctx context.Context, taken []*coordv1.Lease) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	for _, l := range taken {
		l = l.DeepCopy()
		l.Spec.HolderIdentity = nil
		_, _ = s.leases().Update(ctx, l, metav1.UpdateOptions{})
	}
}

// annotations reads a Lease's reserved-until and token (0 for no Lease).
// A Lease of the store's that this version did not write as it writes
// them (no token annotation, an annotation that is not a number, a
// negative token) is ErrCorrupt, naming it: never read as a reservation
// of 0, which would hand the id out at once and write over it.
func annotations(l *coordv1.Lease) (reserved, token int64, err error) {
	if l == nil {
		return 0, 0, nil
	}
	if _, ok := l.Annotations[TokenAnnotation]; !ok {
		return 0, 0, fmt.Errorf("%w: Lease %s/%s has no %s annotation: not a Lease this version wrote (its reserved-until is not read as 0)", ErrCorrupt, l.Namespace, l.Name, TokenAnnotation)
	}
	for _, a := range []struct {
		key string
		p   *int64
	}{{ReservedAnnotation, &reserved}, {TokenAnnotation, &token}} {
		v, ok := l.Annotations[a.key]
		if !ok {
			continue // a holder that never reserved: 0
		}
		if *a.p, err = strconv.ParseInt(v, 10, 64); err != nil {
			return 0, 0, fmt.Errorf("%w: Lease %s/%s: %s %q is not a number", ErrCorrupt, l.Namespace, l.Name, a.key, v)
		}
	}
	if token < 0 {
		return 0, 0, fmt.Errorf("%w: Lease %s/%s: %s %d is negative", ErrCorrupt, l.Namespace, l.Name, TokenAnnotation, token)
	}
	return reserved, token, nil
}

func hostname() string {
	h, err := os.Hostname()
	if err != nil {
		return "unknown"
	}
	return h
}
