// Etcdholders measures a fleet starting at once on one etcd: N holders,
// each a goroutine with an etcd client of its own (as N processes would
// have), wait at a barrier and then all acquire a node id (nodeid.Acquire
// on an etcdlease store) at the same instant, retrying what fails, as a
// rolling deploy of N pods does. It holds them for a while, checks that no
// two hold one node id and that none was lost, releases them and prints
// one JSON object: how long until every holder held a node id, the
// spread per holder, the claim transactions that lost a race
// (conflicts: another holder took the id first, and Acquire tried the
// next), Acquire's failures by kind, and the node ids held twice (must
// be 0).
//
//	etcdholders -endpoints http://127.0.0.1:2379 -prefix /holders -n 1024
//
// The fault experiment (loadgen faults) runs it as a process. Exit status:
// 0 when every holder held a distinct node id, 1 otherwise, 2 for a usage
// error.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"regexp"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"

	"github.com/snowlab/snowlab"
	"github.com/snowlab/snowlab/etcdlease"
	"github.com/snowlab/snowlab/nodeid"
)

func main() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr)) }

// Report is what etcdholders prints.
type Report struct {
	Holders   int      `json:"holders"`
	Endpoints []string `json:"endpoints"`
	Prefix    string   `json:"prefix"`
	// Acquired is how many held a node id by the deadline.
	Acquired int `json:"acquired"`
	// AllHeld is the time from the barrier to the last holder's node id;
	// 0 when not all acquired.
	AllHeld time.Duration `json:"all_held_ns"`
	// Per holder, the time from the barrier to its node id.
	P50 time.Duration `json:"p50_ns"`
	P99 time.Duration `json:"p99_ns"`
	Max time.Duration `json:"max_ns"`
	// AcquireCalls counts nodeid.Acquire calls, retries included.
	AcquireCalls int64 `json:"acquire_calls"`
	// Conflicts are claim transactions that found an id taken.
	Conflicts int64 `json:"conflicts"`
	// Failures are Acquire's errors, by kind, each retried.
	Failures map[string]int `json:"failures"`
	// Lost are leases lost by the check (-hold after all held): their
	// fences are revoked, they hold nothing. Shared are node ids held by
	// more than one lease not lost (must be 0), Distinct the node ids
	// held by those.
	Lost     int `json:"lost"`
	Shared   int `json:"shared"`
	Distinct int `json:"distinct"`
}

func run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("etcdholders", flag.ContinueOnError)
	fs.SetOutput(stderr)
	endpoints := fs.String("endpoints", "", "comma list of etcd client URLs (http://HOST:PORT), required")
	prefix := fs.String("prefix", "/etcdholders", "key prefix of the holders' node ids: one the run has to itself")
	n := fs.Int("n", 1024, "holders, 1 to the layout's node ids (1024)")
	ttl := fs.Duration("ttl", etcdlease.DefaultTTL, "etcd lease TTL")
	window := fs.Duration("window", nodeid.DefaultWindow, "reservation window")
	hold := fs.Duration("hold", 2*time.Second, "how long every holder keeps its node id once all hold one, before the check and the release")
	timeout := fs.Duration("timeout", 5*time.Minute, "give up on the holders not holding a node id by then")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	eps := strings.Split(*endpoints, ",")
	layout := snowlab.DefaultLayout
	switch {
	case fs.NArg() > 0:
		fmt.Fprintf(stderr, "etcdholders: unexpected argument %q\n", fs.Arg(0))
		return 2
	case *endpoints == "":
		fmt.Fprintln(stderr, "etcdholders: -endpoints is required")
		return 2
	case *n < 1 || *n > layout.MaxNode()+1:
		fmt.Fprintf(stderr, "etcdholders: -n %d: want 1 to %d\n", *n, layout.MaxNode()+1)
		return 2
	case *hold < 0 || *timeout <= 0:
		fmt.Fprintf(stderr, "etcdholders: -hold %v, -timeout %v: want 0 or more, more than 0\n", *hold, *timeout)
		return 2
	}
	rep, err := measure(eps, *prefix, *n, *ttl, *window, *hold, *timeout)
	if err != nil {
		fmt.Fprintf(stderr, "etcdholders: %v\n", err)
		return 2
	}
	b, _ := json.Marshal(rep)
	fmt.Fprintf(stdout, "%s\n", b)
	if rep.Acquired != rep.Holders || rep.Shared > 0 {
		return 1
	}
	return 0
}

// holder is one of the fleet: its client and what it got.
type holder struct {
	cli       *clientv3.Client
	conflicts atomic.Int64
	lease     *nodeid.Lease
	took      time.Duration // from the barrier to the lease
	calls     int64
	failures  map[string]int
}

func measure(eps []string, prefix string, n int, ttl, window, hold, timeout time.Duration) (*Report, error) {
	hs, err := dial(eps, n)
	defer func() {
		for _, h := range hs {
			if h != nil && h.cli != nil {
				_ = h.cli.Close()
			}
		}
	}()
	if err != nil {
		return nil, err
	}
	acquireAll(hs, prefix, ttl, window, timeout)
	rep := &Report{Holders: n, Endpoints: eps, Prefix: prefix, Failures: map[string]int{}}
	tally(rep, hs)
	time.Sleep(hold)
	check(rep, hs)
	releaseAll(hs)
	return rep, nil
}

// dial makes the n holders, each with an etcd client of its own. The
// holders made before a failure are returned with it, to be closed.
func dial(eps []string, n int) ([]*holder, error) {
	hs := make([]*holder, n)
	for i := range hs {
		cli, err := clientv3.New(clientv3.Config{Endpoints: eps, DialTimeout: 5 * time.Second,
			DialOptions: etcdlease.DialOptions(), Logger: zap.NewNop()})
		if err != nil {
			return hs, fmt.Errorf("client %d: %w", i, err)
		}
		h := &holder{cli: cli, failures: map[string]int{}}
		// Every claim is a transaction: those that fail found an id
		// taken, and Acquire tries the next.
		cli.KV = countingKV{KV: cli.KV, failed: &h.conflicts}
		hs[i] = h
	}
	return hs, nil
}

// acquireAll starts every holder at one barrier, each acquiring a lease
// and retrying what fails until it holds one or timeout has passed since
// the start, and returns when all are done.
func acquireAll(hs []*holder, prefix string, ttl, window, timeout time.Duration) {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	start := make(chan struct{})
	var ready, wg sync.WaitGroup
	var began time.Time
	for _, h := range hs {
		ready.Add(1)
		wg.Go(func() {
			store := etcdlease.New(h.cli, prefix, ttl)
			ready.Done()
			<-start
			for ctx.Err() == nil {
				h.calls++
				l, err := nodeid.Acquire(ctx, store, nodeid.Options{Window: window})
				if err == nil {
					h.lease, h.took = l, time.Since(began)
					return
				}
				h.failures[kind(err)]++
				// A little apart, so that the retries are no second herd.
				time.Sleep(50*time.Millisecond + rand.N(50*time.Millisecond))
			}
		})
	}
	ready.Wait()
	began = time.Now()
	close(start)
	wg.Wait()
}

// tally adds to rep what the holders' acquiring cost and how long it took.
func tally(rep *Report, hs []*holder) {
	var took []time.Duration
	for _, h := range hs {
		rep.AcquireCalls += h.calls
		rep.Conflicts += h.conflicts.Load()
		for k, v := range h.failures {
			rep.Failures[k] += v
		}
		if h.lease != nil {
			took = append(took, h.took)
		}
	}
	rep.Acquired = len(took)
	if len(took) > 0 {
		slices.Sort(took)
		rep.P50, rep.P99, rep.Max = took[len(took)/2], took[(len(took)*99)/100], took[len(took)-1]
	}
	if rep.Acquired == rep.Holders {
		rep.AllHeld = rep.Max
	}
}

// check adds to rep who holds what now: a lease lost meanwhile (its fence
// revoked, its holder stopped) holds nothing, and its node id may be
// another's.
func check(rep *Report, hs []*holder) {
	held := map[int]int{}
	for _, h := range hs {
		if h.lease == nil {
			continue
		}
		select {
		case <-h.lease.Lost():
			rep.Lost++
			continue
		default:
		}
		first, count := h.lease.Nodes()
		for id := first; id < first+count; id++ {
			held[id]++
		}
	}
	rep.Distinct = len(held)
	for _, c := range held {
		if c > 1 {
			rep.Shared++
		}
	}
}

// releaseAll releases every lease held, all at once.
func releaseAll(hs []*holder) {
	var rel sync.WaitGroup
	for _, h := range hs {
		if h.lease != nil {
			rel.Go(func() {
				rctx, rcancel := context.WithTimeout(context.Background(), 30*time.Second)
				defer rcancel()
				_ = h.lease.Release(rctx)
			})
		}
	}
	rel.Wait()
}

// kind names an Acquire error for the tally: its text with the numbers
// in it (ids, addresses, revisions) as N.
func kind(err error) string {
	switch {
	case errors.Is(err, context.DeadlineExceeded):
		return "deadline exceeded"
	case errors.Is(err, nodeid.ErrNoFreeNode):
		return "no free node id"
	}
	return digits.ReplaceAllString(err.Error(), "N")
}

var digits = regexp.MustCompile(`[0-9a-f]*[0-9][0-9a-f]*`)

// countingKV counts the transactions that did not succeed.
type countingKV struct {
	clientv3.KV
	failed *atomic.Int64
}

func (k countingKV) Txn(ctx context.Context) clientv3.Txn {
	return countingTxn{Txn: k.KV.Txn(ctx), failed: k.failed}
}

type countingTxn struct {
	clientv3.Txn
	failed *atomic.Int64
}

func (t countingTxn) If(cs ...clientv3.Cmp) clientv3.Txn {
	return countingTxn{Txn: t.Txn.If(cs...), failed: t.failed}
}
func (t countingTxn) Then(ops ...clientv3.Op) clientv3.Txn {
	return countingTxn{Txn: t.Txn.Then(ops...), failed: t.failed}
}
func (t countingTxn) Else(ops ...clientv3.Op) clientv3.Txn {
	return countingTxn{Txn: t.Txn.Else(ops...), failed: t.failed}
}

func (t countingTxn) Commit() (*clientv3.TxnResponse, error) {
	resp, err := t.Txn.Commit()
	if err == nil && !resp.Succeeded {
		t.failed.Add(1)
	}
	return resp, err
}
