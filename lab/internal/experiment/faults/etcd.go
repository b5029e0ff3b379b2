package faults

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
	"go.etcd.io/etcd/client/pkg/v3/types"
	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"
)

// clusterConfig is how StartCluster runs etcd.
type clusterConfig struct {
	// Bin is the etcd binary (Debian's etcd-server: /usr/bin/etcd).
	Bin string
	// Members is 1 or 3.
	Members int
	// Dir holds the members' data folders; the caller removes it.
	Dir string
	// certs, when set, has every member serve its clients and its peers
	// over mutual TLS (--client-cert-auth, --peer-client-cert-auth):
	// client URLs are https:// and want a certificate certs signed.
	Certs *certs
	// Partitionable routes the members' peer traffic through peer
	// proxies (peerProxy) that can cut a member off. It needs plaintext
	// peers: the proxy reads which member a connection comes from.
	Partitionable bool
}

// cluster is etcd members on loopback ports, each started, killed and
// restarted on its own ports and data folder.
type cluster struct {
	cfg     clusterConfig
	token   string
	members []*clusterMember
	proxy   *peerProxy // nil unless Partitionable
	hc      *http.Client
	cli     *clientv3.Client // the rig's reads
}

// clusterMember is one etcd process.
type clusterMember struct {
	Name      string
	ClientURL string // what clients dial
	metrics   string // plaintext /metrics and /health, whatever the client TLS
	peerURL   string // where the member listens for peers
	peerAdv   string // what the others dial: peerURL, or its peer proxy
	dir       string
	id        string // hex, as etcd's X-Server-From names it (types.ID)
	*process
}

// startClusterRetrying starts cfg.Members members and waits until the cluster
// has a leader and every member reports healthy.
func startClusterRetrying(cfg clusterConfig) (*cluster, error) {
	if cfg.Members != 1 && cfg.Members != 3 {
		return nil, fmt.Errorf("faults: %d etcd members: want 1 or 3", cfg.Members)
	}
	if cfg.Partitionable && cfg.Certs != nil {
		return nil, errors.New("faults: a partitionable cluster's peers speak plaintext (the peer proxy reads who sends)")
	}
	var last error
	for range 3 { // a port picked free may be taken before etcd binds it
		c, err := startCluster(cfg)
		if err == nil {
			return c, nil
		}
		last = err
	}
	return nil, last
}

func startCluster(cfg clusterConfig) (_ *cluster, err error) {
	ports, err := freePorts(3 * cfg.Members)
	if err != nil {
		return nil, err
	}
	scheme := "http"
	if cfg.Certs != nil {
		scheme = "https"
	}
	c := &cluster{cfg: cfg, token: fmt.Sprintf("snowlab-faults-%d", time.Now().UnixNano()), hc: &http.Client{Timeout: 2 * time.Second}}
	defer func() {
		if err != nil {
			c.Stop() // what started of it
		}
	}()
	if cfg.Certs != nil {
		c.hc.Transport = &http.Transport{TLSClientConfig: cfg.Certs.ClientTLS()}
	}
	if cfg.Partitionable {
		c.proxy = newPeerProxy()
	}
	var initial []string
	for i := range cfg.Members {
		m := &clusterMember{
			Name:      fmt.Sprintf("m%d", i),
			ClientURL: fmt.Sprintf("%s://127.0.0.1:%d", scheme, ports[3*i]),
			peerURL:   fmt.Sprintf("%s://127.0.0.1:%d", scheme, ports[3*i+1]),
			metrics:   fmt.Sprintf("http://127.0.0.1:%d", ports[3*i+2]),
			dir:       filepath.Join(cfg.Dir, fmt.Sprintf("%s-%d", c.token, i)),
		}
		m.peerAdv = m.peerURL
		if c.proxy != nil {
			addr, err := c.proxy.Add(i, strings.TrimPrefix(m.peerURL, "http://"))
			if err != nil {
				return nil, err
			}
			m.peerAdv = "http://" + addr
		}
		c.members = append(c.members, m)
		initial = append(initial, m.Name+"="+m.peerAdv)
	}
	for _, m := range c.members {
		m.process = newProcess("etcd "+m.Name, 32<<10, cfg.Bin, c.args(m, strings.Join(initial, ","))...)
		if _, err := m.start(""); err != nil {
			return nil, err
		}
	}
	if err := c.WaitHealthy(30 * time.Second); err != nil {
		return nil, err
	}
	c.cli, err = clientv3.New(clientv3.Config{Endpoints: c.Endpoints(), DialTimeout: 2 * time.Second,
		Logger: zap.NewNop(), TLS: cfg.Certs.ClientTLS()})
	if err != nil {
		return nil, err
	}
	for i, m := range c.members {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		st, err := c.cli.Status(ctx, m.ClientURL)
		cancel()
		if err != nil {
			return nil, fmt.Errorf("faults: etcd %s's member id: %w", m.Name, err)
		}
		m.id = types.ID(st.Header.MemberId).String()
		if c.proxy != nil {
			c.proxy.Name(i, m.id)
		}
	}
	return c, nil
}

// args are the member's command line; initial is --initial-cluster.
func (c *cluster) args(m *clusterMember, initial string) []string {
	a := []string{
		"--name", m.Name, "--data-dir", m.dir,
		"--listen-client-urls", m.ClientURL, "--advertise-client-urls", m.ClientURL,
		"--listen-peer-urls", m.peerURL, "--initial-advertise-peer-urls", m.peerAdv,
		"--listen-metrics-urls", m.metrics,
		"--initial-cluster", initial, "--initial-cluster-state", "new", "--initial-cluster-token", c.token,
		"--logger", "zap", "--log-outputs", "stderr", "--log-level", "warn",
	}
	if ct := c.cfg.Certs; ct != nil {
		a = append(a,
			"--cert-file", ct.Cert, "--key-file", ct.Key, "--trusted-ca-file", ct.CA, "--client-cert-auth",
			"--peer-cert-file", ct.Cert, "--peer-key-file", ct.Key, "--peer-trusted-ca-file", ct.CA, "--peer-client-cert-auth")
	}
	return a
}

// Endpoints are the members' client URLs.
func (c *cluster) Endpoints() []string {
	out := make([]string, len(c.members))
	for i, m := range c.members {
		out[i] = m.ClientURL
	}
	return out
}

// Kill SIGKILLs member i and waits for it to be gone.
func (c *cluster) Kill(i int) { c.members[i].kill() }

// Restart starts member i again on its ports and data folder (its
// --initial-cluster is read from there, as after a crash).
func (c *cluster) Restart(i int) error {
	_, err := c.members[i].start("")
	return err
}

// Stop ends every member with SIGKILL, and the peer proxy. The cluster
// and its data are thrown away when a scenario ends: a SIGTERM to all
// three members at once had each leader wait out a leadership transfer
// to a follower that was stopping too, and the 5 s grace ran out on
// every scenario (5 of make test-faults' 25 s a scenario, measured).
func (c *cluster) Stop() {
	var wg sync.WaitGroup
	for _, m := range c.members {
		if m.process != nil {
			wg.Go(m.kill)
		}
	}
	wg.Wait()
	if c.cli != nil {
		c.cli.Close()
	}
	if c.proxy != nil {
		c.proxy.Close()
	}
}

// Logs are the tails of the members' logs, for a failure's report.
func (c *cluster) Logs() string {
	var b strings.Builder
	for _, m := range c.members {
		b.WriteString(m.logs(32<<10) + "\n")
	}
	return b.String()
}

// WaitHealthy waits until every running member answers healthy (which
// needs a leader) and one of them leads.
func (c *cluster) WaitHealthy(within time.Duration) error {
	var state string
	err := waitFor(context.Background(), within, 50*time.Millisecond, func() (ok bool, err error) {
		ok, state, _ = c.healthy()
		for _, m := range c.members {
			if m.running() && m.state() != nil {
				return false, fmt.Errorf("faults: etcd %s exited:\n%s", m.Name, m.logs(32<<10))
			}
		}
		return ok, nil
	})
	if errors.Is(err, errNotWithin) {
		return fmt.Errorf("faults: etcd not healthy (%w; %s):\n%s", err, state, c.Logs())
	}
	return err
}

// healthy says whether every running member answers healthy and one of
// them leads, and what is wrong; leaders are the members that say they
// lead.
func (c *cluster) healthy() (ok bool, state string, leaders []int) {
	var states []string
	for i, m := range c.members {
		if !m.running() {
			continue
		}
		v, err := scrape(c.hc, m.metrics+"/metrics", "etcd "+m.Name, "etcd_server_is_leader")
		if v == 1 {
			leaders = append(leaders, i)
		}
		if err == nil {
			err = c.health(m)
		}
		if err != nil {
			states = append(states, m.Name+": "+err.Error())
		}
	}
	return len(states) == 0 && len(leaders) == 1, strings.Join(states, "; "), leaders
}

// health is nil when member m's /health says true, else what it says.
func (c *cluster) health(m *clusterMember) error {
	resp, err := c.hc.Get(m.metrics + "/health")
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if body, _ := io.ReadAll(resp.Body); !strings.Contains(string(body), `"true"`) {
		return errors.New(strings.TrimSpace(string(body)))
	}
	return nil
}

// Leader is the index of the member that leads now.
func (c *cluster) Leader() (int, error) {
	if _, _, leaders := c.healthy(); len(leaders) > 0 {
		return leaders[0], nil
	}
	return -1, errors.New("faults: no etcd member leads")
}

// scrape reads the series name with exactly the labels given (name,
// value pairs; none for an unlabelled series) from the Prometheus text a
// GET of url answers; who names the process in the error.
func scrape(hc *http.Client, url, who, name string, labels ...string) (float64, error) {
	resp, err := hc.Get(url)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	p := expfmt.NewTextParser(model.UTF8Validation) // as Prometheus itself reads it
	fams, err := p.TextToMetricFamilies(resp.Body)
	if err != nil {
		return 0, fmt.Errorf("%s's metrics: %w", who, err)
	}
	for _, m := range fams[name].GetMetric() {
		if hasLabels(m, labels) {
			return sampleValue(m), nil
		}
	}
	return 0, fmt.Errorf("no %s%q in %s's metrics", name, labels, who)
}

// hasLabels says whether m has exactly the labels given as name, value
// pairs.
func hasLabels(m *dto.Metric, labels []string) bool {
	if len(m.GetLabel())*2 != len(labels) {
		return false
	}
	for i := 0; i+1 < len(labels); i += 2 {
		if !slices.ContainsFunc(m.GetLabel(), func(l *dto.LabelPair) bool {
			return l.GetName() == labels[i] && l.GetValue() == labels[i+1]
		}) {
			return false
		}
	}
	return true
}

// sampleValue is the value of a gauge, counter or untyped series.
func sampleValue(m *dto.Metric) float64 {
	switch {
	case m.GetGauge() != nil:
		return m.GetGauge().GetValue()
	case m.GetCounter() != nil:
		return m.GetCounter().GetValue()
	default:
		return m.GetUntyped().GetValue()
	}
}

// Get reads key (any running member): its value and whether it exists.
// A call is bounded at 2 s, as a member the rig cut off answers nothing.
func (c *cluster) Get(ctx context.Context, key string) (string, bool, error) {
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	resp, err := c.cli.Get(ctx, key)
	if err != nil {
		return "", false, fmt.Errorf("faults: reading %s: %w", key, err)
	}
	if len(resp.Kvs) == 0 {
		return "", false, nil
	}
	return string(resp.Kvs[0].Value), true, nil
}

// lease is an etcd scenario's replicas' -lease: eps their links'
// endpoints, their keys under /faults/SCENARIO.
func (c *cluster) lease(scenario string, eps []string) string {
	return "etcd:" + strings.Join(eps, ",") + "/faults/" + scenario
}

// held reports whether etcd holds node id k's key: its holder's lease has
// not expired.
func (c *cluster) held(ctx context.Context, scenario string, k int) (bool, error) {
	_, held, err := c.Get(ctx, fmt.Sprintf("/faults/%s/nodes/%d", scenario, k))
	return held, err
}

// reserved reads node id k's reserved-until.
func (c *cluster) reserved(ctx context.Context, scenario string, k int) (time.Time, error) {
	v, ok, err := c.Get(ctx, fmt.Sprintf("/faults/%s/reserved/%d", scenario, k))
	if err != nil || !ok {
		return time.Time{}, fmt.Errorf("reading node id %d's reservation: %v (present: %v)", k, err, ok)
	}
	ns, err := strconv.ParseInt(v, 10, 64)
	if err != nil {
		return time.Time{}, fmt.Errorf("node id %d's reservation %q: %v", k, v, err)
	}
	return time.Unix(0, ns), nil
}
