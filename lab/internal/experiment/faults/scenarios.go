package faults

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"os/exec"
	"strconv"
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
	// Batch is the NextIDs count of a client's call n (0: NextID); nil
	// alternates NextID and NextIDs(100).
	Batch func(n int) int
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
	refresh       = DefaultWindow / 3
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
	ld, err := s.cluster.Leader()
	if err != nil {
		return err
	}
	name := s.cluster.Members()[ld].Name
	s.mark("SIGKILL etcd %s, the leader", name)
	s.cluster.Kill(ld)
	if err := sleepCtx(ctx, 5*time.Second); err != nil {
		return err
	}
	if err := s.cluster.Restart(ld); err != nil {
		return err
	}
	s.mark("etcd %s restarted", name)
	if err := s.cluster.WaitHealthy(30 * time.Second); err != nil {
		return err
	}
	now, _ := s.cluster.Leader()
	s.mark("etcd healthy, %s leads", s.cluster.Members()[now].Name)
	for r := range s.reps {
		s.bound(r, leaderBound, leaderWhy)
	}
	return sleepCtx(ctx, 2*time.Second)
}

// tlsRefusals checks that the hops are mutual TLS indeed: a replica and
// an etcd member each refuse a client that trusts them but presents no
// certificate.
func (s *stage) tlsRefusals(ctx context.Context) {
	anon := s.certs.ClientTLS()
	anon.Certificates = nil
	c, err := remote.NewClient(s.reps[0].URL(), client.ConnectJSON, anon)
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
	ld, err := s.cluster.Leader()
	if err != nil {
		return err
	}
	name := s.cluster.Members()[ld].Name
	s.mark("etcd %s, the leader, cut off from the other two members (its clients still reach it)", name)
	s.cluster.Proxy().Partition(ld)
	if err := sleepCtx(ctx, 6*time.Second); err != nil {
		return err
	}
	s.cluster.Proxy().Heal(ld)
	s.mark("partition healed")
	if err := s.cluster.WaitHealthy(30 * time.Second); err != nil {
		return err
	}
	now, _ := s.cluster.Leader()
	s.mark("etcd healthy, %s leads", s.cluster.Members()[now].Name)
	for r := range s.reps {
		s.bound(r, leaderBound, leaderWhy+", per election (the cut-off leader steps down; etcd runs without pre-vote, so healed, its higher term can force another)")
	}
	return sleepCtx(ctx, 2*time.Second)
}

func quorumLost(ctx context.Context, s *stage) error {
	ld, err := s.cluster.Leader()
	if err != nil {
		return err
	}
	other := (ld + 1) % 3
	ms := s.cluster.Members()
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
				if t.After(cut.Add(DefaultWindow)) {
					late = append(late, v)
				}
			}
		}
		ran := time.Duration(0)
		if lt := lastTime(during); !lt.IsZero() {
			ran = lt.Sub(cut)
		}
		s.check(fmt.Sprintf("%s: replica %s stopped minting within Window (%v) of the fault", what, s.reps[r].Name, DefaultWindow),
			len(late) == 0, "%d IDs stamped in the %v after the fault began, the last %v after it; %d stamped later than a Window after it",
			len(during), until.Sub(cut).Round(10*time.Millisecond), ran.Round(time.Millisecond), len(late))
	}
}

func replicaCutOff(ctx context.Context, s *stage) error {
	k, err := s.reps[0].Node()
	if err != nil {
		return err
	}
	store, hold := s.storeWords()
	succ := len(s.sc.Replicas) // the spare
	s.role(0, "cut off from "+store+", still called by clients")
	s.role(succ, "successor on the cut-off replica's node id")
	s.mark("replica r0 (node id %d) cut off from every %s server: its links blackholed both ways", k, store)
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
	s.mark("%s: node id %d is free", s.expiredWords(store, hold), k)
	reserved, err := s.reservation(ctx, k)
	if err != nil {
		return err
	}
	s.mark("r0's last stored reservation: %v after the cut-off; successor r%d started", reserved.Sub(cutAt).Round(time.Millisecond), succ)
	if err := s.startSpare(succ); err != nil {
		return err
	}
	if err := s.waitReady(succ, 20*time.Second); err != nil {
		return err
	}
	ks, err := s.reps[succ].Node()
	if err != nil {
		return err
	}
	s.mark("r%d ready on node id %d", succ, ks)
	s.check("the successor took the cut-off replica's node id", ks == k, "r0 held %d, r%d holds %d", k, succ, ks)
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
	s.note("%s %v after the cut-off (TTL %v)", s.expiredWords(store, hold), expiredAt.Sub(cutAt).Round(time.Millisecond), DefaultTTL)
	s.afterLoad(func(a *analysis) {
		zombie, successor := a.servedBy(0, k), a.servedBy(succ, k)
		last, first := lastTime(zombie), firstTime(successor)
		s.check("the cut-off replica minted nothing past its stored reservation", !last.After(reserved),
			"its last ID on node id %d stamped %s, the reservation until %s", k, stamp(last), stamp(reserved))
		s.check(fmt.Sprintf("the cut-off replica stopped within Window (%v) of being cut off", DefaultWindow),
			!last.After(cutAt.Add(DefaultWindow)), "its last ID stamped %v after the cut-off", last.Sub(cutAt).Round(time.Millisecond))
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
	if err := s.links.Heal(0); err != nil {
		return err
	}
	s.mark("r0's links healed")
	s.bound(0, DefaultWindow, "Window (1.5 s): a refresh fails only past Refresh (0.5 s); one in a Window succeeding keeps the replica serving")
	return sleepCtx(ctx, time.Second)
}

// healAndRejoin heals replica r's links and waits up to 20 s for it to
// serve again: it returns when the heal began and the node id r then
// holds.
func (s *stage) healAndRejoin(r int) (time.Time, int, error) {
	healAt := time.Now()
	if err := s.links.Heal(r); err != nil {
		return healAt, 0, err
	}
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

// clockSteps steps the clocks of r0 (strict) and r1 (monotonic); r2,
// untouched, and the lab estimate r0's clock against theirs.
func clockSteps(ctx context.Context, s *stage) error {
	s.role(0, "strict, clock stepped")
	s.role(1, "monotonic, clock stepped")
	s.role(2, "strict, clock untouched")
	step := func(d time.Duration) error {
		for _, r := range []int{0, 1} {
			code, body, err := s.reps[r].post(faultClockPath + "?step=" + d.String())
			if err != nil || code != 200 {
				return fmt.Errorf("stepping %s's clock %v: %d %s %v", s.reps[r].Name, d, code, body, err)
			}
		}
		return nil
	}
	lab, err := remote.NewClient(s.reps[0].URL(), client.ConnectJSON, s.clientTLS())
	if err != nil {
		return err
	}
	offsets := func(want time.Duration) {
		// The lab's estimate: r0's reading against the midpoint of the
		// round trip, half of it the error.
		best := time.Duration(math.MaxInt64)
		var off time.Duration
		for range 5 {
			t0 := time.Now()
			ns, rtt, err := lab.Clock(ctx)
			if err == nil && rtt < best {
				best, off = rtt, time.Duration(ns-t0.Add(rtt/2).UnixNano())
			}
		}
		s.check(fmt.Sprintf("the lab reads r0's clock (GET /clock) %+.0f s from its own, within 0.25 s", want.Seconds()), (off-want).Abs() <= 250*time.Millisecond,
			"%v ± %v", off.Round(time.Microsecond), (best / 2).Round(time.Microsecond))
		peer, err := s.reps[2].Metric("snowidd_clock_peer_offset_seconds", "peer", s.reps[0].URL())
		d := time.Duration(peer * float64(time.Second))
		measured := d.Round(time.Microsecond).String()
		if err != nil {
			measured = err.Error()
		}
		s.check(fmt.Sprintf("peer r2 reads r0's clock %+.0f s from its own, within 0.25 s (its snowidd_clock_peer_offset_seconds)", want.Seconds()),
			err == nil && (d-want).Abs() <= 250*time.Millisecond, "%s", measured)
	}
	s.mark("r0's and r1's clocks stepped back 2 s")
	if err := step(-2 * time.Second); err != nil {
		return err
	}
	if err := sleepCtx(ctx, 4*time.Second); err != nil {
		return err
	}
	offsets(-2 * time.Second)
	s.mark("r0's and r1's clocks stepped forward 10 s: 8 s ahead of the machine's from here on")
	if err := step(10 * time.Second); err != nil {
		return err
	}
	if err := sleepCtx(ctx, 4*time.Second); err != nil {
		return err
	}
	offsets(8 * time.Second)
	s.bound(0, 2*time.Second+defaultRewindHold+slack, "the rewind (2 s) + -rewind-hold (1 s) + rig slack (0.25 s)")
	s.bound(1, refresh+slack, "Refresh (0.5 s): the forward step outruns the reservation until the next refresh + rig slack (0.25 s)")
	s.afterLoad(func(a *analysis) {
		refused := 0
		for _, c := range a.callers {
			for _, at := range c.attempts {
				if at.replica == 0 && at.outcome == "unavailable" {
					refused++
				}
			}
		}
		s.check("the strict replica refused while its clock was behind its last ID", refused > 0, "%d attempts refused (unavailable)", refused)
	})
	return nil
}

// waitGone waits until etcd no longer holds node id k under the
// scenario's prefix: its holder's lease expired.
func (s *stage) waitGone(ctx context.Context, k int, since time.Time) (time.Time, error) {
	key := fmt.Sprintf("/faults/%s/nodes/%d", s.sc.Name, k)
	for deadline := time.Now().Add(DefaultTTL + 10*time.Second); ; {
		held, err := s.held(ctx, key, k)
		if err == nil && !held {
			return time.Now(), nil
		}
		if time.Now().After(deadline) {
			return time.Time{}, fmt.Errorf("node id %d still held %v after its holder was cut off", k, time.Since(since).Round(time.Millisecond))
		}
		if err := sleepCtx(ctx, 50*time.Millisecond); err != nil {
			return time.Time{}, err
		}
	}
}

// reservation reads node id k's reserved-until from etcd.
func (s *stage) reservation(ctx context.Context, k int) (time.Time, error) {
	if s.kube != nil {
		return s.kube.Reserved(ctx, kubePrefix(s.sc.Name), k)
	}
	if s.zk != nil {
		return s.zk.reserved(ctx, zkRoot(s.sc.Name), k)
	}
	v, ok, err := s.cluster.Get(ctx, fmt.Sprintf("/faults/%s/reserved/%d", s.sc.Name, k))
	if err != nil || !ok {
		return time.Time{}, fmt.Errorf("reading node id %d's reservation: %v (present: %v)", k, err, ok)
	}
	ns, err := strconv.ParseInt(v, 10, 64)
	if err != nil {
		return time.Time{}, fmt.Errorf("node id %d's reservation %q: %v", k, v, err)
	}
	return time.Unix(0, ns), nil
}

// successorWaits: on a layout of two node ids, r0 (clock 5 s ahead) and
// r1 hold both; r0 is killed, and r2 starting after its lease expired
// finds only r0's id free, its reservation ahead of r2's clock.
func successorWaits(ctx context.Context, s *stage) error {
	k, err := s.reps[0].Node()
	if err != nil {
		return err
	}
	s.role(0, "clock 5 s ahead, then SIGKILLed")
	s.role(2, "successor on the killed replica's node id")
	s.mark("r0's clock (node id %d) stepped forward 5 s: its reservations run 5 s ahead of the machine's clock", k)
	if code, body, err := s.reps[0].post(faultClockPath + "?step=5s"); err != nil || code != 200 {
		return fmt.Errorf("stepping r0's clock: %d %s %v", code, body, err)
	}
	if err := sleepCtx(ctx, 1500*time.Millisecond); err != nil {
		return err
	}
	killAt := time.Now()
	s.reps[0].Kill()
	s.mark("SIGKILL r0")
	expired, err := s.waitGone(ctx, k, killAt)
	if err != nil {
		return err
	}
	reserved, err := s.reservation(ctx, k)
	if err != nil {
		return err
	}
	startAt := time.Now()
	lead := reserved.Sub(startAt)
	s.mark("etcd expired r0's lease %v after the kill; its reservation is %v ahead of the clock; successor r2 started", expired.Sub(killAt).Round(time.Millisecond), lead.Round(time.Millisecond))
	if err := s.startSpare(2); err != nil {
		return err
	}
	if err := s.waitReady(2, snowlab.DefaultMaxFloorWait+10*time.Second); err != nil {
		return err
	}
	waited := time.Since(startAt)
	k2, err := s.reps[2].Node()
	if err != nil {
		return err
	}
	s.mark("r2 ready on node id %d, %v after it started", k2, waited.Round(time.Millisecond))
	s.check("the successor took the killed replica's node id, the only one free", k2 == k, "r0 held %d, r2 holds %d", k, k2)
	s.check(fmt.Sprintf("the successor served within MaxFloorWait (%v) of starting", snowlab.DefaultMaxFloorWait),
		waited <= snowlab.DefaultMaxFloorWait, "%v", waited.Round(time.Millisecond))
	s.bound(2, max(lead, 0)+reconnect+slack, fmt.Sprintf("the reservation's lead on the clock (%v, at most MaxFloorWait %v) + start and acquire (1 s) + rig slack (0.25 s)",
		lead.Round(time.Millisecond), snowlab.DefaultMaxFloorWait))
	s.afterLoad(func(a *analysis) {
		before, after := a.servedBy(0, k), a.servedBy(2, k)
		last, first := lastTime(before), firstTime(after)
		s.check("the killed replica minted nothing past its stored reservation", len(before) > 0 && !last.After(reserved),
			"its last ID on node id %d stamped %s, the reservation until %s", k, stamp(last), stamp(reserved))
		s.check("the successor's first ID is at or after that reservation", len(after) > 0 && !first.Before(reserved),
			"first ID stamped %s (%d IDs), %v after the reservation", stamp(first), len(after), first.Sub(reserved).Round(time.Millisecond))
	})
	return sleepCtx(ctx, time.Second)
}

func kill9Batch(ctx context.Context, s *stage) error {
	s.role(0, "SIGKILLed during NextIDs(100000), three times")
	// The caller reaches r0 under faultHeldPrefix, so that r0's hold
	// takes its calls and none of the main load's.
	big, err := startLoad(loadConfig{urls: []string{s.reps[0].URL() + faultHeldPrefix}, clients: 1, tls: s.clientTLS(), fixed: true,
		batch: func(int) int { return client.MaxBatch }, attemptTimeout: 10 * time.Second, pause: 100 * time.Millisecond})
	if err != nil {
		return err
	}
	s.extra = append(s.extra, big)
	caller := big.callers[0]
	var held []int32 // the attempt each kill landed in
	for i := range 3 {
		// Kill while r0 holds the answer of a batch it has minted
		// (POST /fault/hold): the kill lands inside that call every
		// time, its IDs never delivered. The check after the load
		// holds that each such attempt ended without an answer.
		a, err := batchHeld(ctx, s.reps[0], caller, 10*time.Second)
		if err != nil {
			return err
		}
		s.reps[0].Kill()
		held = append(held, a)
		s.mark("SIGKILL r0 (kill %d) while it held the answer of NextIDs(100000) attempt %d, its IDs minted", i+1, a)
		if err := sleepCtx(ctx, 300*time.Millisecond); err != nil {
			return err
		}
		if err := s.reps[0].Start(); err != nil {
			return err
		}
		if err := s.waitReady(0, 20*time.Second); err != nil {
			return err
		}
		k, _ := s.reps[0].Node()
		s.mark("r0 restarted, ready on node id %d", k)
		if err := sleepCtx(ctx, time.Second); err != nil {
			return err
		}
	}
	s.afterLoad(func(a *analysis) {
		n, sizes := 0, map[int]int{}
		for _, sv := range caller.served {
			n++
			sizes[sv.n]++
		}
		failed := 0
		for _, at := range caller.attempts {
			if at.outcome != outcomeOK {
				failed++
			}
		}
		cut := 0
		for _, at := range held {
			if int(at) <= len(caller.attempts) && caller.attempts[at-1].outcome != outcomeOK {
				cut++
			}
		}
		s.check("each kill cut the NextIDs(100000) attempt whose answer r0 held", len(held) == 3 && cut == 3,
			"%d of %d held attempts ended without an answer", cut, len(held))
		s.check("every NextIDs(100000) answered carried 100000 IDs, none part of a cut call", n > 0 && sizes[client.MaxBatch] == n,
			"%d of %d answered calls carried 100000; %d attempts failed", sizes[client.MaxBatch], n, failed)
	})
	return nil
}

// batchHeld arms r's hold (faultHoldPath) for longer than the caller's
// attempt may take, and waits until r holds the answer of a NextIDs call
// it has minted; it returns the number (inflight) of c's attempt then
// under way. Timing the kill from the client instead (300 µs into an
// attempt) missed 1 kill in 3 under CI's load: a replica mints and sends
// 100,000 IDs in a few milliseconds.
func batchHeld(ctx context.Context, r *replica, c *caller, within time.Duration) (int32, error) {
	if code, body, err := r.post(faultHoldPath + "?for=30s"); err != nil || code != 200 {
		return 0, fmt.Errorf("arming %s's hold: %d %s %v", r.Name, code, body, err)
	}
	deadline := time.Now().Add(within)
	for time.Now().Before(deadline) {
		code, body, err := r.get(faultHoldPath)
		if err != nil || code != 200 {
			return 0, fmt.Errorf("reading %s's hold: %d %s %v", r.Name, code, body, err)
		}
		var state struct {
			Holding bool `json:"holding"`
		}
		if err := json.Unmarshal([]byte(body), &state); err != nil {
			return 0, fmt.Errorf("reading %s's hold: %q: %v", r.Name, body, err)
		}
		if state.Holding {
			if a := c.inflight.Load(); a != 0 {
				return a, nil
			}
			return 0, fmt.Errorf("%s holds an answer, but no NextIDs(100000) of the caller's is in flight", r.Name)
		}
		if err := sleepCtx(ctx, time.Millisecond); err != nil {
			return 0, err
		}
	}
	return 0, fmt.Errorf("%s held no NextIDs(100000) answer within %v", r.Name, within)
}

// holders runs etcdholders against the cluster and keeps its report.
func holders(ctx context.Context, s *stage) error {
	n := s.sc.Holders
	s.mark("%d holders, each with its own etcd client, start acquiring at once (etcdholders)", n)
	cmd := exec.CommandContext(ctx, s.x.o.Holders, "-endpoints", strings.Join(s.cluster.Endpoints(), ","),
		"-prefix", "/faults/"+s.sc.Name, "-n", strconv.Itoa(n), "-ttl", "10s", "-window", "3s", "-hold", "5s", "-timeout", "5m")
	out, err := cmd.Output()
	var h HoldersReport
	if jerr := json.Unmarshal(out, &h); jerr != nil {
		msg := ""
		if ee, ok := err.(*exec.ExitError); ok {
			msg = string(ee.Stderr)
		}
		return fmt.Errorf("etcdholders: %v %v: %s", err, jerr, msg)
	}
	h.Members = s.sc.Members
	s.holders = &h
	s.mark("all %d held a node id after %v", h.Acquired, h.AllHeld.Round(time.Millisecond))
	s.check("every holder held a node id", h.Acquired == n, "%d of %d", h.Acquired, n)
	s.check("no node id held by two", h.Shared == 0, "%d shared, %d distinct held", h.Shared, h.Distinct)
	s.check("no lease lost while the fleet started", h.Lost == 0, "%d lost", h.Lost)
	return nil
}

// layout is the scenario's layout, as its replicas mint with it.
func (sc scenario) layout() (snowlab.Layout, error) {
	if sc.Layout == "" {
		return snowlab.DefaultLayout, nil
	}
	var l snowlab.Layout
	if _, err := fmt.Sscanf(sc.Layout, "%d/%d/%d", &l.TimeBits, &l.NodeBits, &l.SeqBits); err != nil {
		return l, fmt.Errorf("scenario %s: layout %q: %v", sc.Name, sc.Layout, err)
	}
	d := snowlab.DefaultLayout
	l.Unit, l.Epoch = d.Unit, d.Epoch
	return l, l.Validate()
}
