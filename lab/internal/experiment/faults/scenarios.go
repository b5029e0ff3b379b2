package faults

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/snowlab/snowlab"
	"github.com/snowlab/snowlab/lab/internal/remote"
	"github.com/snowlab/snowlab/snowidd/client"
)

// scenario is one fault the rig plays on a fleet under load, or a fleet
// starting at once (Holders).
type scenario struct {
	// Name is how the scenario is asked for (-scenarios); Title says
	// what it does.
	Name, Title string
	// Short puts the scenario in CI's set.
	Short bool
	// Store is the replicas' lease store: "zk" for a standalone
	// ZooKeeper (-lease zk:), "k8s" for a kube-apiserver's Leases (-lease
	// k8s:), etcd otherwise.
	Store string
	// Members is the etcd cluster's size (1 or 3); Partitionable routes
	// its peer traffic through the peer proxy.
	Members       int
	Partitionable bool
	// Replicas start at once; Spares are prepared and started by the
	// scenario (a successor).
	Replicas, Spares []replicaSpec
	// TLS runs every hop over mutual TLS: clients to replicas, replicas
	// to etcd (through the links, which relay TLS), etcd to etcd.
	TLS bool
	// FaultClock needs a replica binary whose clock the lab can step.
	FaultClock bool
	// Holders, above 0, is a fleet of that many holders starting at once
	// (etcdholders) instead of replicas under load.
	Holders int
	// Layout is the replicas' -layout (time/node/seq bits); "" is the
	// default layout.
	Layout string
	// Run plays the fault on the rig, the load running.
	Run func(ctx context.Context, s *stage) error
}

// replicaSpec is how a replica of a scenario runs.
type replicaSpec struct {
	// Monotonic runs it -policy monotonic (strict otherwise).
	Monotonic bool
	// Peers gives it the other replicas as -peers.
	Peers bool
}

func (r replicaSpec) policy() string {
	if r.Monotonic {
		return "monotonic"
	}
	return "strict"
}

var three = []replicaSpec{{}, {}, {}}

// The bounds' terms.
var (
	// electionBound is the longest etcd takes to elect a leader once
	// its leader is gone: raft waits a randomized timeout of up to
	// twice the election timeout.
	electionBound = 2 * etcdElection
	refresh       = defaultWindow / 3
	// leaderBound is how long a replica may refuse while etcd elects:
	// no write until a leader is elected, then the next refresh, and a
	// reconnect if its client was on the member that went.
	leaderBound = electionBound + refresh + reconnect + slack
	leaderWhy   = "election ≤ 2 × election timeout (2 s) + Refresh (0.5 s) + reconnect (1 s) + rig slack (0.25 s)"
)

// scenarios are the fault lab's scenarios, in the order a run plays them.
func scenarios() []scenario {
	return []scenario{
		{Name: "leader-killed", Title: "the etcd leader SIGKILLed, restarted 5 s later", Short: true,
			Members: 3, Replicas: three, Run: leaderKilled},
		{Name: "leader-killed-mtls", Title: "the same with mutual TLS on every hop (clients to replicas, replicas to etcd, etcd to etcd)", Short: true,
			Members: 3, Replicas: three, TLS: true, Run: leaderKilled},
		{Name: "minority-partitioned", Title: "the etcd leader cut off from the other two members for 6 s (a minority of one)",
			Members: 3, Partitionable: true, Replicas: three, Run: minorityPartitioned},
		{Name: "quorum-lost", Title: "2 of 3 etcd members SIGKILLed for 5 s, then restarted",
			Members: 3, Replicas: three, Run: quorumLost},
		{Name: "replica-cut-off", Title: "one replica cut off from etcd for 6 s while clients still call it; a successor takes its node id", Short: true,
			Members: 3, Replicas: three, Spares: []replicaSpec{{}}, Run: replicaCutOff},
		{Name: "replica-cut-off-zk", Title: "the same on ZooKeeper: one replica cut off from it for 6 s while clients still call it; its session expires, a successor takes its node id",
			Store: "zk", Replicas: three, Spares: []replicaSpec{{}}, Run: replicaCutOff},
		{Name: "replica-cut-off-k8s", Title: "the same on Kubernetes Leases: one replica cut off from the kube-apiserver for 6 s while clients still call it; its Lease goes unrenewed, a successor waiting for a node id takes it",
			Store: "k8s", Layout: kubeLayout, Replicas: []replicaSpec{{}, {}, {}, {}}, Spares: []replicaSpec{{}}, Run: replicaCutOff},
		{Name: "slow-lossy-link", Title: "one replica's links to etcd: 200 ms more round trip and 10% of segments lost, for 10 s",
			Members: 3, Replicas: three, Run: slowLossyLink},
		{Name: "asymmetric-partition", Title: "one replica's requests reach etcd, etcd's answers do not, for 6 s",
			Members: 3, Replicas: three, Run: asymmetricPartition},
		{Name: "clock-steps", Title: "a strict and a monotonic replica's clocks stepped back 2 s, then forward 10 s", Short: true,
			Members: 3, Replicas: []replicaSpec{{Peers: true}, {Monotonic: true, Peers: true}, {Peers: true}}, FaultClock: true, Run: clockSteps},
		{Name: "successor-waits", Title: "a replica whose clock ran 5 s ahead SIGKILLed; its successor, on the only free node id, waits out the reservation",
			Members: 3, Layout: "41/1/21", Replicas: []replicaSpec{{}, {}}, Spares: []replicaSpec{{}}, FaultClock: true, Run: successorWaits},
		{Name: "kill9-batch", Title: "a replica SIGKILLed during NextIDs(100000), three times", Short: true,
			Members: 3, Replicas: three, Run: kill9Batch},
		{Name: "holders-1024", Title: "1,024 holders, each with its own etcd client, acquiring node ids at once on a 3-member cluster",
			Members: 3, Holders: 1024, Run: holders},
		{Name: "holders-256", Title: "256 holders acquiring node ids at once on one etcd", Short: true,
			Members: 1, Holders: 256, Run: holders},
	}
}

func sleepCtx(ctx context.Context, d time.Duration) error {
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-time.After(d):
		return nil
	}
}

func leaderKilled(ctx context.Context, s *stage) error {
	return s.leaderFault(ctx, 5*time.Second, "SIGKILL etcd %s, the leader", "etcd %s restarted", leaderWhy,
		s.cluster.Kill, s.cluster.Restart)
}

// leaderFault plays a fault on etcd's leader: cut, for d, then undo
// (what the marks say, each naming the leader), then waits until etcd is
// healthy; every replica is bound by leaderBound (why).
func (s *stage) leaderFault(ctx context.Context, d time.Duration, cutMark, undoMark, why string, cut func(int), undo func(int) error) error {
	ld, err := s.cluster.Leader()
	if err != nil {
		return err
	}
	name := s.cluster.members[ld].Name
	s.mark(cutMark, name)
	cut(ld)
	if err := sleepCtx(ctx, d); err != nil {
		return err
	}
	if err := undo(ld); err != nil {
		return err
	}
	s.mark(undoMark, name)
	if err := s.cluster.WaitHealthy(30 * time.Second); err != nil {
		return err
	}
	now, _ := s.cluster.Leader()
	s.mark("etcd healthy, %s leads", s.cluster.members[now].Name)
	for r := range s.reps {
		s.bound(r, leaderBound, why)
	}
	return sleepCtx(ctx, 2*time.Second)
}

// tlsRefusals checks that the hops are mutual TLS indeed: a replica and
// an etcd member each refuse a client that trusts them but presents no
// certificate.
func (s *stage) tlsRefusals(ctx context.Context) {
	anon := s.certs.ClientTLS()
	anon.Certificates = nil
	c, err := remote.NewClient(s.reps[0].url, client.ConnectJSON, anon)
	if err == nil {
		cctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		_, err = c.NextID(cctx)
		cancel()
	}
	s.check("a replica refuses a client without a certificate", err != nil, "%v", err)
	hc := &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{TLSClientConfig: anon}}
	resp, err := hc.Post(s.cluster.Endpoints()[0]+"/v3/kv/range", "application/json", strings.NewReader(`{"key":"eA=="}`))
	if err == nil {
		resp.Body.Close()
		err = fmt.Errorf("HTTP %d", resp.StatusCode)
		if resp.StatusCode == http.StatusOK {
			err = nil
		}
	}
	s.check("an etcd member refuses a client without a certificate", err != nil, "%v", err)
}

func minorityPartitioned(ctx context.Context, s *stage) error {
	p := s.cluster.proxy
	return s.leaderFault(ctx, 6*time.Second, "etcd %s, the leader, cut off from the other two members (its clients still reach it)", "partition of %s healed",
		leaderWhy+", per election (the cut-off leader steps down; etcd runs without pre-vote, so healed, its higher term can force another)",
		p.Partition, func(i int) error { p.Heal(i); return nil })
}

func quorumLost(ctx context.Context, s *stage) error {
	ld, err := s.cluster.Leader()
	if err != nil {
		return err
	}
	other := (ld + 1) % 3
	ms := s.cluster.members
	s.mark("SIGKILL etcd %s (the leader) and %s: one member of three left, no quorum", ms[ld].Name, ms[other].Name)
	killedAt := time.Now()
	s.cluster.Kill(ld)
	s.cluster.Kill(other)
	if err := sleepCtx(ctx, 5*time.Second); err != nil {
		return err
	}
	restartAt := time.Now()
	for _, i := range []int{ld, other} {
		if err := s.cluster.Restart(i); err != nil {
			return err
		}
	}
	s.mark("etcd %s and %s restarted", ms[ld].Name, ms[other].Name)
	if err := s.cluster.WaitHealthy(30 * time.Second); err != nil {
		return err
	}
	back := time.Since(killedAt)
	s.mark("etcd healthy again, %v after the kill", back.Round(10*time.Millisecond))
	for r := range s.reps {
		s.bound(r, back+refresh+reconnect+slack, fmt.Sprintf("the outage, kill to quorum back (%v) + Refresh (0.5 s) + reconnect (1 s) + rig slack (0.25 s)", back.Round(10*time.Millisecond)))
	}
	s.afterLoad(func(a *analysis) { stoppedAtReservation(s, a, "quorum lost", killedAt, restartAt, len(s.reps)) })
	return sleepCtx(ctx, 2*time.Second)
}

// stoppedAtReservation checks that replicas 0..n-1, cut off from their
// store from cut until until, minted nothing stamped later than a Window
// after cut: a reservation runs at most a Window ahead of the last
// refresh that was stored, and the generators refuse past it.
func stoppedAtReservation(s *stage, a *analysis, what string, cut, until time.Time, n int) {
	for r := range n {
		var late, during []idAt
		for _, v := range a.servedBy(r, -1) {
			t := v.parts.Time
			if !t.Before(cut) && t.Before(until) {
				during = append(during, v)
				if t.After(cut.Add(defaultWindow)) {
					late = append(late, v)
				}
			}
		}
		ran := time.Duration(0)
		if lt := lastTime(during); !lt.IsZero() {
			ran = lt.Sub(cut)
		}
		s.check(fmt.Sprintf("%s: replica %s stopped minting within Window (%v) of the fault", what, s.reps[r].Name, defaultWindow),
			len(late) == 0, "%d IDs stamped in the %v after the fault began, the last %v after it; %d stamped later than a Window after it",
			len(during), until.Sub(cut).Round(10*time.Millisecond), ran.Round(time.Millisecond), len(late))
	}
}

func replicaCutOff(ctx context.Context, s *stage) error {
	k, err := s.reps[0].Node()
	if err != nil {
		return err
	}
	words := storeWords[s.sc.Store]
	succ := len(s.sc.Replicas) // the spare
	s.role(0, "cut off from "+words.name+", still called by clients")
	s.role(succ, "successor on the cut-off replica's node id")
	s.mark("replica r0 (node id %d) cut off from every %s server: its links blackholed both ways", k, words.name)
	cutAt := time.Now()
	if err := s.links.Blackhole(0, upstream, downstream); err != nil {
		return err
	}
	// Its etcd lease (ZooKeeper session) expires a TTL after its last
	// keep-alive (ping).
	expiredAt, err := s.waitGone(ctx, k, cutAt)
	if err != nil {
		return err
	}
	s.mark("%s: node id %d is free", words.expired, k)
	reserved, err := s.store.reserved(ctx, s.sc.Name, k)
	if err != nil {
		return err
	}
	s.mark("r0's last stored reservation: %v after the cut-off; successor r%d started", reserved.Sub(cutAt).Round(time.Millisecond), succ)
	if _, err := s.startSuccessor(succ, k, 20*time.Second, "the cut-off replica's node id"); err != nil {
		return err
	}
	if err := sleepCtx(ctx, time.Until(cutAt.Add(6*time.Second))); err != nil {
		return err
	}
	if err := s.makeRoom(); err != nil {
		return err
	}
	healAt, k0, err := s.healAndRejoin(0)
	if err != nil {
		return err
	}
	s.check("healed, the cut-off replica took another node id (its own is the successor's)", k0 != k, "r0 holds %d", k0)
	s.bound(0, healAt.Sub(cutAt)+reconnect+slack, fmt.Sprintf("the cut-off (%v) + reconnect (1 s) + rig slack (0.25 s)", healAt.Sub(cutAt).Round(10*time.Millisecond)))
	s.note("%s %v after the cut-off (TTL %v)", words.expired, expiredAt.Sub(cutAt).Round(time.Millisecond), defaultTTL)
	s.afterLoad(func(a *analysis) {
		zombie, successor := a.servedBy(0, k), a.servedBy(succ, k)
		last, first := lastTime(zombie), firstTime(successor)
		s.check("the cut-off replica minted nothing past its stored reservation", !last.After(reserved),
			"its last ID on node id %d stamped %s, the reservation until %s", k, stamp(last), stamp(reserved))
		s.check(fmt.Sprintf("the cut-off replica stopped within Window (%v) of being cut off", defaultWindow),
			!last.After(cutAt.Add(defaultWindow)), "its last ID stamped %v after the cut-off", last.Sub(cutAt).Round(time.Millisecond))
		s.check("the successor's first ID is after the cut-off replica's reservation and its last ID",
			len(successor) > 0 && !first.Before(reserved) && first.After(last),
			"successor's first ID on node id %d stamped %s (%d IDs), %v after the reservation", k, stamp(first), len(successor), first.Sub(reserved).Round(time.Millisecond))
	})
	return sleepCtx(ctx, time.Second)
}

func stamp(t time.Time) string {
	if t.IsZero() {
		return "—"
	}
	return t.UTC().Format("15:04:05.000")
}

func slowLossyLink(ctx context.Context, s *stage) error {
	s.role(0, "links to etcd slow and lossy")
	s.mark("r0's links to etcd: +100 ms each way (± 10 ms), 10%% of segments lost (each 200 ms late, doubling while lost again)")
	if err := s.links.Degrade(0, 100*time.Millisecond, 10*time.Millisecond, 0.10); err != nil {
		return err
	}
	if err := sleepCtx(ctx, 10*time.Second); err != nil {
		return err
	}
	s.links.Heal(0)
	s.mark("r0's links healed")
	s.bound(0, defaultWindow, "Window (1.5 s): a refresh fails only past Refresh (0.5 s); one in a Window succeeding keeps the replica serving")
	return sleepCtx(ctx, time.Second)
}

// healAndRejoin heals replica r's links and waits up to 20 s for it to
// serve again: it returns when the heal began and the node id r then
// holds.
func (s *stage) healAndRejoin(r int) (time.Time, int, error) {
	healAt := time.Now()
	s.links.Heal(r)
	s.mark("r%d's links healed", r)
	if err := s.waitReady(r, 20*time.Second); err != nil {
		return healAt, 0, err
	}
	k, err := s.reps[r].Node()
	if err != nil {
		return healAt, 0, err
	}
	s.mark("r%d ready again, on node id %d", r, k)
	return healAt, k, nil
}

func asymmetricPartition(ctx context.Context, s *stage) error {
	k, err := s.reps[0].Node()
	if err != nil {
		return err
	}
	s.role(0, "its requests reach etcd, the answers do not")
	s.mark("r0's links: etcd's answers dropped, r0's requests still delivered")
	cutAt := time.Now()
	if err := s.links.Blackhole(0, downstream); err != nil {
		return err
	}
	if err := sleepCtx(ctx, 6*time.Second); err != nil {
		return err
	}
	healAt, k0, err := s.healAndRejoin(0)
	if err != nil {
		return err
	}
	if k0 == k {
		s.note("r0 kept node id %d: its keep-alives reached etcd throughout, so its lease never expired", k)
	} else {
		s.note("r0 lost node id %d and took %d: its etcd lease expired although its requests, keep-alives included, still reached etcd", k, k0)
	}
	s.bound(0, healAt.Sub(cutAt)+reconnect+slack, fmt.Sprintf("the partition (%v) + reconnect (1 s) + rig slack (0.25 s)", healAt.Sub(cutAt).Round(10*time.Millisecond)))
	s.afterLoad(func(a *analysis) { stoppedAtReservation(s, a, "answers lost", cutAt, healAt, 1) })
	return sleepCtx(ctx, time.Second)
}

// layout is the scenario's layout, as its replicas mint with it.
func (sc scenario) layout() (snowlab.Layout, error) {
	if sc.Layout == "" {
		return snowlab.DefaultLayout, nil
	}
	// As snowidd reads -layout: the unit and epoch DefaultLayout's.
	var l snowlab.Layout
	if err := l.UnmarshalText([]byte(sc.Layout)); err != nil {
		return l, fmt.Errorf("scenario %s: %w", sc.Name, err)
	}
	return l, nil
}
