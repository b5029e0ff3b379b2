package k8slease

import (
	"context"
	"sync"
	"time"

	coordv1 "k8s.io/api/coordination/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
)

// observer remembers, for each Lease, the resourceVersion this store last
// saw and when (on this process's monotonic clock) it first saw it: the
// "time of last observed renewTime" the Lease API measures
// leaseDurationSeconds against. Any write of a holder changes the
// resourceVersion (a renewal moves renewTime with it), so keying on the
// version is at least as strict as keying on renewTime alone.
type observer struct {
	mu   sync.Mutex
	seen map[string]seen
}

type seen struct {
	rv string
	at time.Time
}

// note records that Lease name was at version rv at now, unless it was
// already seen at rv, and returns when it was first seen at rv.
func (o *observer) note(name, rv string, now time.Time) time.Time {
	o.mu.Lock()
	defer o.mu.Unlock()
	if e, ok := o.seen[name]; ok && e.rv == rv {
		return e.at
	}
	o.seen[name] = seen{rv: rv, at: now}
	return now
}

// expired reports whether l may be taken at now: released (no holder),
// or unchanged, as this store has observed it, for its
// leaseDurationSeconds (ttl when it has none). A Lease first seen now is
// held for a whole duration from now: this store cannot know how long it
// has been unchanged before.
func (o *observer) expired(l *coordv1.Lease, ttl time.Duration, now time.Time) bool {
	if l.Spec.HolderIdentity == nil || *l.Spec.HolderIdentity == "" {
		return true
	}
	if d := l.Spec.LeaseDurationSeconds; d != nil && *d > 0 {
		ttl = time.Duration(*d) * time.Second
	}
	return now.Sub(o.note(l.Name, l.ResourceVersion, now)) >= ttl
}

// watch keeps the observer current from the moment the store is made: a
// list, then a watch from its version, again after each end or error.
// Without it (RBAC without "watch", say) the store is still right, only
// slower to take an id over: a Lease it first sees at Acquire is held for
// a whole duration from then.
func (s *Store) watch(ctx context.Context) {
	for ctx.Err() == nil {
		ls, err := s.leases().List(ctx, metav1.ListOptions{LabelSelector: s.selector()})
		if err == nil {
			now := time.Now()
			for i := range ls.Items {
				s.obs.note(ls.Items[i].Name, ls.Items[i].ResourceVersion, now)
			}
			s.follow(ctx, ls.ResourceVersion)
		}
		t := time.NewTimer(500 * time.Millisecond)
		select {
		case <-ctx.Done():
		case <-t.C:
		}
		t.Stop()
	}
}

// follow notes every Lease event from version rv until the watch ends.
func (s *Store) follow(ctx context.Context, rv string) {
	w, err := s.leases().Watch(ctx, metav1.ListOptions{LabelSelector: s.selector(), ResourceVersion: rv})
	if err != nil {
		return
	}
	defer w.Stop()
	for ev := range w.ResultChan() {
		l, ok := ev.Object.(*coordv1.Lease)
		if !ok || (ev.Type != watch.Added && ev.Type != watch.Modified) {
			continue
		}
		s.obs.note(l.Name, l.ResourceVersion, time.Now())
	}
}
