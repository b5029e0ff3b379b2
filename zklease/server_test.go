package zklease

import (
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/snowlab/snowlab/nodeid/storetest"
)

// The tests run ZooKeeper servers of their own, from Debian's zookeeper
// package (scripts/zk.sh installs it): a standalone one the Store suite
// stops and starts again, and a 3-server ensemble whose leader a test
// kills. tickTime is 200 ms, so sessions of testSession (2 s) are
// granted as asked (the server grants 2 ticks, 0.4 s, up to
// maxSessionTimeout, 20 s here).
const (
	tickTime    = 200 * time.Millisecond
	testSession = 2 * time.Second
)

// classpath is where Debian's package puts ZooKeeper ($ZK_CLASSPATH
// overrides it), or "" when it is not installed.
func classpath() string {
	if cp := os.Getenv("ZK_CLASSPATH"); cp != "" {
		return cp
	}
	if _, err := os.Stat("/usr/share/java/zookeeper.jar"); err != nil {
		return ""
	}
	return "/etc/zookeeper/conf_example:/usr/share/java/zookeeper.jar"
}

// needZK skips the test, or fails it when SNOWLAB_REQUIRE_ZK=1 (set by
// CI), when ZooKeeper or java is missing.
func needZK(t *testing.T) string {
	t.Helper()
	cp := classpath()
	why := ""
	if _, err := exec.LookPath("java"); err != nil {
		why = "no java on PATH"
	} else if cp == "" {
		why = "ZooKeeper is not installed (/usr/share/java/zookeeper.jar)"
	}
	if why == "" {
		return cp
	}
	if os.Getenv("SNOWLAB_REQUIRE_ZK") == "1" {
		t.Fatalf("ZooKeeper is required when SNOWLAB_REQUIRE_ZK=1: %s", why)
	}
	t.Skipf("skipped: %s (to run it: scripts/zk.sh install && make test-zk; SNOWLAB_REQUIRE_ZK=1 makes a missing ZooKeeper fail)", why)
	return ""
}

// member is one ZooKeeper server process.
type member struct {
	id     int
	cfg    string
	client int
	log    string
	cmd    *exec.Cmd
}

// ensemble is the servers of one test.
type ensemble struct {
	t       *testing.T
	cp      string
	members []*member
}

// startEnsemble starts n servers (1: standalone) on free loopback ports,
// each with a data folder of its own and a heap of at most 128 MiB, and
// waits until each answers "ruok". They are killed when t ends.
func startEnsemble(t *testing.T, n int) *ensemble {
	t.Helper()
	e := &ensemble{t: t, cp: needZK(t)}
	ports := freePorts(t, 3*n)
	var servers []string
	for i := range n {
		servers = append(servers, fmt.Sprintf("server.%d=127.0.0.1:%d:%d", i+1, ports[3*i+1], ports[3*i+2]))
	}
	for i := range n {
		dir := t.TempDir()
		m := &member{id: i + 1, client: ports[3*i], cfg: filepath.Join(dir, "zoo.cfg"), log: filepath.Join(dir, "log")}
		cfg := []string{
			"tickTime=" + strconv.Itoa(int(tickTime/time.Millisecond)), "initLimit=20", "syncLimit=10",
			"dataDir=" + filepath.Join(dir, "data"), "clientPort=" + strconv.Itoa(m.client), "clientPortAddress=127.0.0.1",
			"admin.enableServer=false", "4lw.commands.whitelist=srvr,ruok", "electionPortBindRetry=0",
			// The Store suite's Restart case asks for 15 s sessions, past
			// the 20 ticks (4 s) the server grants by default.
			"maxSessionTimeout=20000",
		}
		if n > 1 {
			cfg = append(cfg, servers...)
			if err := os.MkdirAll(filepath.Join(dir, "data"), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, "data", "myid"), []byte(strconv.Itoa(m.id)), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		if err := os.WriteFile(m.cfg, []byte(strings.Join(cfg, "\n")+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		e.members = append(e.members, m)
	}
	for _, m := range e.members {
		e.start(t, m)
	}
	for _, m := range e.members {
		e.wait(t, m)
	}
	t.Cleanup(func() {
		for _, m := range e.members {
			e.kill(m)
			if t.Failed() {
				out, _ := os.ReadFile(m.log)
				t.Logf("ZooKeeper server %d's log ends:\n%s", m.id, tail(string(out), 3000))
			}
		}
	})
	return e
}

// start starts m's server process; t (a subtest's, or the test's) fails
// when it cannot.
func (e *ensemble) start(t *testing.T, m *member) {
	t.Helper()
	log, err := os.OpenFile(m.log, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	defer log.Close()
	m.cmd = exec.Command("java", "-Xmx128m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-cp", e.cp,
		"-Dzookeeper.log.dir="+filepath.Dir(m.log), "org.apache.zookeeper.server.quorum.QuorumPeerMain", m.cfg)
	m.cmd.Stdout, m.cmd.Stderr = log, log
	m.cmd.SysProcAttr = dieWithParent()
	if err := m.cmd.Start(); err != nil {
		t.Fatalf("starting ZooKeeper server %d: %v", m.id, err)
	}
}

// wait waits until m answers "srvr" as a serving member, until the test
// ends (a JVM on a loaded 2-core machine starts in 2..10 s; how soon is
// its business: 60 s was the bound before).
func (e *ensemble) wait(t *testing.T, m *member) {
	t.Helper()
	wait := storetest.UntilTestEnds(t)
	for mode(m) == "" {
		select {
		case <-wait.Done():
			out, _ := os.ReadFile(m.log)
			t.Fatalf("ZooKeeper server %d never served on 127.0.0.1:%d; its log ends:\n%s", m.id, m.client, tail(string(out), 2000))
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// mode is m's role as its "srvr" answer says: standalone, leader,
// follower; "" when it does not serve.
// (zk.FLWSrvr does not parse Debian's version line, "3.8.0-${mvngit.commit.id}".)
func mode(m *member) string {
	c, err := net.DialTimeout("tcp", "127.0.0.1:"+strconv.Itoa(m.client), time.Second)
	if err != nil {
		return ""
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(time.Second))
	if _, err := c.Write([]byte("srvr")); err != nil {
		return ""
	}
	out, _ := io.ReadAll(c)
	for line := range strings.Lines(string(out)) {
		if m, ok := strings.CutPrefix(line, "Mode: "); ok {
			return strings.TrimSpace(m)
		}
	}
	return ""
}

// kill ends m at once (SIGKILL: no goodbye to its clients or peers).
func (e *ensemble) kill(m *member) {
	if m.cmd == nil || m.cmd.Process == nil {
		return
	}
	_ = m.cmd.Process.Kill()
	_ = m.cmd.Wait()
	m.cmd = nil
}

// servers are the members' client addresses.
func (e *ensemble) servers() []string {
	var s []string
	for _, m := range e.members {
		s = append(s, "127.0.0.1:"+strconv.Itoa(m.client))
	}
	return s
}

func tail(s string, n int) string {
	if len(s) > n {
		return s[len(s)-n:]
	}
	return s
}

// freePorts returns n distinct loopback ports free at this moment.
func freePorts(t *testing.T, n int) []int {
	t.Helper()
	var ls []net.Listener
	var ports []int
	for range n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		ls = append(ls, l)
		ports = append(ports, l.Addr().(*net.TCPAddr).Port)
	}
	for _, l := range ls {
		l.Close()
	}
	return ports
}

// starting holds the addresses of servers a test stopped and has not yet
// seen serving again: the proxies refuse connections to them, as to a
// server whose port is closed. A JVM binds its client port before it
// serves, and a client whose connect request is accepted then and never
// answered waits 10 × 2/3 of its session timeout (go-zookeeper's
// authenticate): 100 s in the Restart case, which the suite saw in 3 of
// 16 runs.
var starting sync.Map // "host:port" -> struct{}

// proxy forwards loopback connections to a server until cut: then it
// drops those open and refuses new ones, as a network partition between
// one client and ZooKeeper would, until healed.
type proxy struct {
	l      net.Listener
	target string
	mu     sync.Mutex
	cut    bool
	conns  []net.Conn
}

func newProxy(t *testing.T, target string) *proxy {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &proxy{l: l, target: target}
	t.Cleanup(func() { l.Close(); p.setCut(true) })
	go p.serve()
	return p
}

func (p *proxy) dial(_, _ string, timeout time.Duration) (net.Conn, error) {
	return net.DialTimeout("tcp", p.l.Addr().String(), timeout)
}

func (p *proxy) serve() {
	for {
		c, err := p.l.Accept()
		if err != nil {
			return
		}
		p.mu.Lock()
		if _, down := starting.Load(p.target); p.cut || down {
			p.mu.Unlock()
			c.Close()
			continue
		}
		s, err := net.Dial("tcp", p.target)
		if err != nil {
			p.mu.Unlock()
			c.Close()
			continue
		}
		p.conns = append(p.conns, c, s)
		p.mu.Unlock()
		go pipe(c, s)
		go pipe(s, c)
	}
}

func pipe(dst, src net.Conn) {
	buf := make([]byte, 32<<10)
	for {
		n, err := src.Read(buf)
		if n > 0 {
			if _, werr := dst.Write(buf[:n]); werr != nil {
				break
			}
		}
		if err != nil {
			break
		}
	}
	dst.Close()
	src.Close()
}

// setCut cuts (true) or heals (false) the proxy.
func (p *proxy) setCut(cut bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.cut = cut
	if cut {
		for _, c := range p.conns {
			c.Close()
		}
		p.conns = nil
	}
}

func (m *member) addr() string { return "127.0.0.1:" + strconv.Itoa(m.client) }

// leader waits until a running member other than gone says it leads,
// until the test ends, and returns it.
func (e *ensemble) leader(t *testing.T, gone *member) *member {
	t.Helper()
	wait := storetest.UntilTestEnds(t)
	for {
		for _, m := range e.members {
			if m != gone && m.cmd != nil && mode(m) == "leader" {
				return m
			}
		}
		select {
		case <-wait.Done():
			t.Fatal("no ZooKeeper server ever led")
		case <-time.After(20 * time.Millisecond):
		}
	}
}
