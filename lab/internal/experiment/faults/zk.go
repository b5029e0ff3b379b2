package faults

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/go-zookeeper/zk"
)

// zkTick is the rig's ZooKeeper tickTime. The server grants sessions of
// 2 to 20 ticks, 1 s to 10 s here, so the replicas' defaultTTL (3 s,
// their session timeout under -lease zk:) is granted as asked; at
// ZooKeeper's default tick (2 s) it would be raised to 4 s.
const zkTick = 500 * time.Millisecond

// zkJar is where Debian's zookeeper package puts ZooKeeper.
const zkJar = "/usr/share/java/zookeeper.jar"

// zkMissing says why ZooKeeper cannot run here, or "".
func zkMissing() string {
	if _, err := exec.LookPath("java"); err != nil {
		return "needs java and ZooKeeper (scripts/zk.sh install): no java on PATH"
	}
	if _, err := os.Stat(zkJar); err != nil {
		return "needs ZooKeeper (scripts/zk.sh install): no " + zkJar
	}
	return ""
}

// zooKeeper is a standalone ZooKeeper server on a loopback port with a
// throwaway data folder, the store of the zk scenarios: Debian's package
// run with a heap of at most 128 MiB.
type zooKeeper struct {
	addr string
	*process
}

// startZooKeeper starts a server whose data and config live under dir
// and waits (60 s at most: a JVM starts in 2..10 s on 2 loaded cores)
// until it serves.
func startZooKeeper(dir string) (*zooKeeper, error) {
	ports, err := freePorts(1)
	if err != nil {
		return nil, err
	}
	dir = filepath.Join(dir, "zk")
	cfg := filepath.Join(dir, "zoo.cfg")
	lines := []string{"tickTime=" + strconv.Itoa(int(zkTick/time.Millisecond)), "dataDir=" + filepath.Join(dir, "data"),
		"clientPort=" + strconv.Itoa(ports[0]), "clientPortAddress=127.0.0.1", "admin.enableServer=false"}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	if err := os.WriteFile(cfg, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		return nil, err
	}
	z := &zooKeeper{addr: "127.0.0.1:" + strconv.Itoa(ports[0])}
	z.process = newProcess("zookeeper", 32<<10, "java", "-Xmx128m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-cp", "/etc/zookeeper/conf_example:"+zkJar,
		"-Dzookeeper.log.dir="+dir, "org.apache.zookeeper.server.quorum.QuorumPeerMain", cfg)
	// It serves once a session reads its root.
	if err := z.serve(60*time.Second, 50*time.Millisecond, func() bool {
		_, ok, _ := z.read(context.Background(), "/")
		return ok
	}); err != nil {
		return nil, err
	}
	return z, nil
}

// Stop ends the server (SIGTERM, SIGKILL after 5 s).
func (z *zooKeeper) Stop() { z.stop(5 * time.Second) }

// read returns znode p's data, or false when it does not exist, through a
// session of its own (the rig's reads are few).
func (z *zooKeeper) read(ctx context.Context, p string) ([]byte, bool, error) {
	conn, _, err := zk.Connect([]string{z.addr}, 4*time.Second, zk.WithLogger(quiet{}))
	if err != nil {
		return nil, false, err
	}
	defer conn.Close()
	// The session bounds the Get (a reply within 2/3 of its timeout, or
	// the connection is dropped and the Get fails); a cancelled ctx ends
	// it sooner by closing the session.
	defer context.AfterFunc(ctx, conn.Close)()
	data, _, err := conn.Get(p)
	switch {
	case ctx.Err() != nil:
		return nil, false, ctx.Err()
	case errors.Is(err, zk.ErrNoNode):
		return nil, false, nil
	}
	return data, err == nil, err
}

// lease is a zk scenario's replicas' -lease: eps their links' endpoints,
// their claims and reservations under the znode /faults/SCENARIO.
func (z *zooKeeper) lease(scenario string, eps []string) string {
	return "zk:" + strings.ReplaceAll(strings.Join(eps, ","), "tcp://", "") + "/faults/" + scenario
}

// held reports whether node id k has a claim znode (zklease's
// ROOT/claims/K, ephemeral in its holder's session).
func (z *zooKeeper) held(ctx context.Context, scenario string, k int) (bool, error) {
	_, ok, err := z.read(ctx, fmt.Sprintf("/faults/%s/claims/%d", scenario, k))
	return ok, err
}

// reserved is node id k's reserved-until (zklease's ROOT/reserved/K).
func (z *zooKeeper) reserved(ctx context.Context, scenario string, k int) (time.Time, error) {
	p := fmt.Sprintf("/faults/%s/reserved/%d", scenario, k)
	data, ok, err := z.read(ctx, p)
	if err != nil || !ok {
		return time.Time{}, fmt.Errorf("reading %s: %v (present: %v)", p, err, ok)
	}
	var r struct {
		Until int64 `json:"reservedUntil"`
	}
	if err := json.Unmarshal(data, &r); err != nil {
		return time.Time{}, fmt.Errorf("%s holds %q: %v", p, data, err)
	}
	return time.Unix(0, r.Until), nil
}

func (z *zooKeeper) Logs() string { return z.logs(32 << 10) }

// quiet keeps the ZooKeeper client's chatter out of the lab's output.
type quiet struct{}

func (quiet) Printf(string, ...any) {}

// leaseStore is a scenario's lease store as the rig reads it: etcd's
// cluster, ZooKeeper or a kube-apiserver, the replicas of a scenario
// keeping their node ids under its name.
type leaseStore interface {
	// lease is the replicas' -lease, eps their links' endpoints.
	lease(scenario string, eps []string) string
	// held reports whether node id k is held: etcd's key, zklease's
	// claim znode, or k8slease's Lease not yet expired as the lab
	// observes it; reserved is its reserved-until.
	held(ctx context.Context, scenario string, k int) (bool, error)
	reserved(ctx context.Context, scenario string, k int) (time.Time, error)
	Logs() string
	Stop()
}

// storeWords are, by scenario.Store, the store's name and how a cut-off
// holder's node id came to be free: etcd expires its lease, ZooKeeper its
// session; a Lease is not expired by the kube-apiserver but judged
// expired by a claimant, here the lab.
var storeWords = map[string]struct{ name, expired string }{
	"":    {"etcd", "etcd expired r0's lease"},
	"zk":  {"ZooKeeper", "ZooKeeper expired r0's session"},
	"k8s": {"kube-apiserver", "r0's Lease unchanged for its leaseDurationSeconds as the lab observed it (the kube-apiserver expires nothing)"},
}

// startStore starts the scenario's store, etcd, ZooKeeper or a
// kube-apiserver, as s.store, and returns the endpoints the links lead
// to.
func (s *stage) startStore(dir string) ([]string, error) {
	switch s.sc.Store {
	case "k8s":
		k, err := startKube(dir, s.x.o.Etcd)
		if err != nil {
			return nil, err
		}
		s.store = k
		return []string{"https://" + k.addr}, nil
	case "zk":
		z, err := startZooKeeper(dir)
		if err != nil {
			return nil, err
		}
		s.store = z
		return []string{"tcp://" + z.addr}, nil
	}
	c, err := startClusterRetrying(clusterConfig{Bin: s.x.o.Etcd, Members: max(s.sc.Members, 1), Dir: dir, Certs: s.certs, Partitionable: s.sc.Partitionable})
	if err != nil {
		return nil, err
	}
	s.cluster, s.store = c, c
	return c.Endpoints(), nil
}
