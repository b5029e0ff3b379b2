// Package leasespec opens a lease spec on any store snowlab ships (a lock
// folder, etcd, PostgreSQL, Kubernetes, ZooKeeper) and describes each: its
// scheme, the form a user writes, what it names. A program of your own
// that takes a -lease flag as snowid and snowidd do links every store
// through this one import, and writes its help from the same list it
// opens with, so that a store linked is a store named:
//
//	fs.String("lease", "", "the lease `SPEC`: "+leasespec.Help(leasespec.Stores()))
//	...
//	store, err := nodeid.OpenStore(spec, leasespec.Openers(0, nil))
//
// snowid, snowidd and loadgen build their openers and help from it, and
// their tests check their hand-written texts (package docs, READMEs)
// against it. A program that needs one store imports that store's module
// alone (etcdlease, pglease, k8slease, zklease) and passes its Opener to
// nodeid.OpenStore.
package leasespec

import (
	"strings"
	"time"

	"github.com/snowlab/snowlab/etcdlease"
	"github.com/snowlab/snowlab/k8slease"
	"github.com/snowlab/snowlab/nodeid"
	"github.com/snowlab/snowlab/pglease"
	"github.com/snowlab/snowlab/zklease"
)

// A Scheme is one kind of lease spec.
type Scheme struct {
	// Name is the scheme, the part of a spec before the colon: "zk".
	Name string
	// Form is the spec as a user writes it: "zk:HOST:PORT[,...]/PATH".
	Form string
	// Store names the store in prose: "ZooKeeper".
	Store string
	// What says what the spec names and how, for a -lease help.
	What string
	// Expires is true when a holder that stops renewing loses its node
	// ids after a time (a TTL, a session timeout) that a -ttl sets; a
	// dir: lock is held for as long as its process lives.
	Expires bool
}

// Stores are the lease stores these programs link, in the order their
// help lists them: dir: (nodeid's own), then a store module each.
func Stores() []Scheme {
	return []Scheme{
		{Name: "dir", Form: "dir:PATH", Store: "lock folder",
			What: "a lock folder shared by the processes of one host"},
		{Name: "etcd", Form: "etcd:HOST:PORT/PREFIX", Store: "etcd", Expires: true,
			What: "etcd; etcd:http://HOST:PORT,.../PREFIX for several endpoints, etcd:https://… for TLS: see -etcd-*"},
		{Name: "pg", Form: "pg:DSN", Store: "PostgreSQL", Expires: true,
			What: "a PostgreSQL table; the DSN a postgres:// URL or key=value string, snowlab_table=NAME picks the table, created when absent"},
		{Name: "k8s", Form: "k8s:NAMESPACE/PREFIX", Store: "Kubernetes", Expires: true,
			What: "Kubernetes Leases PREFIX-N; the API server from the pod's service account, else $KUBECONFIG or ~/.kube/config"},
		{Name: "zk", Form: "zk:HOST:PORT[,...]/PATH", Store: "ZooKeeper", Expires: true,
			What: "ZooKeeper znodes under PATH, an ephemeral claim and a persistent reservation per node id; the TTL is the session timeout"},
	}
}

// Openers are the openers of every scheme of Stores but dir:, which
// nodeid.OpenStore opens itself: the extra map it takes. A holder that
// stops renewing loses its node ids after ttl (0: each store's default;
// ZooKeeper's session timeout); etcd's credentials are etcd's (nil: none).
func Openers(ttl time.Duration, etcd *etcdlease.Flags) map[string]nodeid.Opener {
	etcdOpener := etcdlease.Opener(ttl)
	if etcd != nil {
		etcdOpener = etcd.Opener(ttl)
	}
	return map[string]nodeid.Opener{
		"etcd": etcdOpener,
		"pg":   pglease.Opener(ttl),
		"k8s":  k8slease.Opener(ttl),
		"zk":   zklease.Opener(ttl),
	}
}

// Lookup is the scheme of Stores named name.
func Lookup(name string) (Scheme, bool) {
	for _, s := range Stores() {
		if s.Name == name {
			return s, true
		}
	}
	return Scheme{}, false
}

// Help lists schemes as a -lease help does: each Form and, in
// parentheses, its What, the last after "or".
func Help(schemes []Scheme) string {
	parts := make([]string, len(schemes))
	for i, s := range schemes {
		parts[i] = s.Form
		if s.What != "" {
			parts[i] += " (" + s.What + ")"
		}
	}
	return list(parts, "or")
}

// Forms lists the schemes' forms: "dir:PATH, etcd:HOST:PORT/PREFIX … or
// static:N".
func Forms(schemes []Scheme) string {
	parts := make([]string, len(schemes))
	for i, s := range schemes {
		parts[i] = s.Form
	}
	return list(parts, "or")
}

// Names lists the schemes' names with their colons: "dir:, etcd:, pg:".
func Names(schemes []Scheme) string {
	parts := make([]string, len(schemes))
	for i, s := range schemes {
		parts[i] = s.Name + ":"
	}
	return strings.Join(parts, ", ")
}

// Expiring lists the names of the schemes whose holds expire, for a -ttl
// help: "etcd:, pg:, k8s: and zk:".
func Expiring(schemes []Scheme) string {
	var parts []string
	for _, s := range schemes {
		if s.Expires {
			parts = append(parts, s.Name+":")
		}
	}
	return list(parts, "and")
}

// list joins parts with commas, the last after conj.
func list(parts []string, conj string) string {
	if len(parts) < 2 {
		return strings.Join(parts, "")
	}
	return strings.Join(parts[:len(parts)-1], ", ") + " " + conj + " " + parts[len(parts)-1]
}
