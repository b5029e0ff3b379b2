package daemon

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/snowlab/snowlab"
	"github.com/snowlab/snowlab/atomicgen"
	"github.com/snowlab/snowlab/clocksrc"
	"github.com/snowlab/snowlab/etcdlease"
	"github.com/snowlab/snowlab/nodeid"
	"github.com/snowlab/snowlab/shardedgen"
	"github.com/snowlab/snowlab/snowidd/internal/cliflag"
	"github.com/snowlab/snowlab/snowidd/internal/peerclock"
	"github.com/snowlab/snowlab/snowidd/leasespec"
	"github.com/snowlab/snowlab/snowidd/server"
)

// Exit codes.
const (
	exitOK    = 0
	exitFail  = 1
	exitUsage = 2
)

// Run runs snowidd with the command line args (without the program name)
// until ctx ends (the command cancels it on SIGTERM or SIGINT), then
// drains and returns the exit code. getenv reads the SNOWIDD_* variables
// (os.LookupEnv); the log goes to stderr.
func Run(ctx context.Context, args []string, getenv func(string) (string, bool), stderr io.Writer) int {
	return run(ctx, args, getenv, stderr, systemHooks())
}

// hooks are what run reads of the system, which tests script: the
// kernel's clock discipline and the clock the replica mints, leases and
// judges readiness by. A build with the snowidd_faults tag (the fault
// lab's) puts a clock there that its lab steps, over an endpoint that
// wrap mounts.
type hooks struct {
	readKernel func() clocksrc.Kernel
	clock      clocksrc.Clock                  // nil: clocksrc.Default()
	wrap       func(http.Handler) http.Handler // nil: the server's handler as it is
	note       string                          // logged at start when set
	readyEvery time.Duration                   // how often readiness is read for the log; 0: readyEvery
	// store wraps the lease store (a fault-injection build records its
	// operations); nil: the store as it is.
	store func(nodeid.Store) (nodeid.Store, error)
	// stdout receives -version's line; nil: os.Stdout.
	stdout io.Writer
}

// readyEvery is how often the replica reads its readiness to log each
// change: within a second of a window closing or a clock losing the
// kernel's word, at the cost of a clock reading (and with
// -clock-max-error, an adjtimex call) a second.
const readyEvery = time.Second

// run is Run on the system as h has it.
func run(ctx context.Context, args []string, getenv func(string) (string, bool), stderr io.Writer, h hooks) int {
	if h.clock == nil {
		h.clock = clocksrc.Default()
	}
	if h.readyEvery == 0 {
		h.readyEvery = readyEvery
	}
	o, err := parseOptions(args, getenv, stderr)
	if errors.Is(err, errHelp) {
		return exitOK
	}
	if errors.Is(err, errReported) {
		return exitUsage
	}
	if errors.Is(err, errVersion) {
		if h.stdout == nil {
			h.stdout = os.Stdout
		}
		fmt.Fprintln(h.stdout, cliflag.Version("snowidd", cliflag.BuildInfo()))
		return exitOK
	}
	if err != nil {
		fmt.Fprintf(stderr, "snowidd: %v\n", err)
		return exitUsage
	}
	r, err := newReplica(o, h, stderr)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return exitUsage
	}
	ln, err := net.Listen("tcp", o.listen)
	if err != nil {
		fmt.Fprintf(stderr, "snowidd: -listen %q: %v\n", nodeid.Redact(o.listen), err)
		return exitFail
	}
	return r.serve(ctx, ln, stderr)
}

// replica is what run sets up before it listens: the options, the
// store node ids are leased from (nil for static ones), the log, and the
// servers.
type replica struct {
	o         options
	h         hooks
	store     nodeid.Store
	log       *slog.Logger
	tlsConfig *tls.Config // nil: plaintext
	srv       *server.Server
	hs        *http.Server
	peers     *peerclock.Poller // nil without -peers
}

// newReplica opens the store, loads the TLS files, checks the clock and
// makes the servers. Its errors are whole lines of usage errors: a
// replica that cannot work is refused before serving.
func newReplica(o options, h hooks, stderr io.Writer) (*replica, error) {
	// A layout whose window does not hold the clock would refuse every
	// call (FailedPrecondition) for as long as it runs: a typo in
	// -epoch, or a horizon passed.
	now := time.Unix(0, h.clock.UnixNano())
	if err := server.CheckWindow(o.layout, now); err != nil {
		l := o.layout
		return nil, fmt.Errorf("snowidd: -layout %d/%d/%d -unit %v -epoch %s: %v",
			l.TimeBits, l.NodeBits, l.SeqBits, l.Unit, l.Epoch.UTC().Format(time.RFC3339Nano), err)
	}
	store, err := openStore(o)
	if err != nil {
		return nil, err
	}
	if store != nil && h.store != nil {
		if store, err = h.store(store); err != nil {
			return nil, err
		}
	}
	// TLS files that do not load are refused like a lease spec that
	// can never work; once serving, a change that does not load is
	// logged and the previous files go on being served.
	log := slog.New(slog.NewTextHandler(stderr, nil))
	files := o.tls
	files.Now = func() time.Time { return time.Unix(0, h.clock.UnixNano()) } // a certificate is judged by the replica's clock
	tlsConfig, tlsCollectors, err := loadTLS(files, log)
	if err != nil {
		return nil, err // "snowidd: TLS files: …", naming the file at fault
	}
	// A clock check that can never pass on this system is refused like
	// a lease spec that can never work.
	kernel := h.readKernel()
	if o.clockMaxError > 0 && !kernel.Known {
		return nil, fmt.Errorf("snowidd: -clock-max-error %v: the kernel does not report its clock discipline here (%s)", o.clockMaxError, kernel.Reason)
	}
	logClock(log, kernel, o.clockMaxError)
	warnHorizon(log, o.layout, now, o.horizonWarn)

	if h.note != "" {
		log.Warn(h.note)
	}
	r := &replica{o: o, h: h, store: store, log: log, tlsConfig: tlsConfig}
	if err := r.newServers(tlsCollectors); err != nil {
		return nil, err
	}
	return r, nil
}

// openStore opens the store of a lease spec, nil for static node ids. A
// lease spec that can never work is refused before serving: a replica
// retrying it would be a silent outage. Opening a store asks it nothing,
// so a store that is merely down is found, and retried, by hold.
func openStore(o options) (nodeid.Store, error) {
	if o.static {
		return nil, nil
	}
	if _, err := o.etcd.Credentials(); err != nil {
		return nil, fmt.Errorf("snowidd: %v", err)
	}
	stores := leasespec.Openers(o.ttl, o.etcd)
	store, err := nodeid.OpenStore(o.leaseSpec, stores)
	if err != nil {
		hint := ""
		if scheme, _, _ := strings.Cut(o.leaseSpec, ":"); scheme != "dir" && stores[scheme] == nil {
			hint = "; snowidd also takes static:N (node ids assigned by hand)"
		}
		return nil, fmt.Errorf("snowidd: -lease: %v%s", err, hint)
	}
	return store, nil
}

// newServers makes the ID server, with its peers' poller, and the HTTP
// server that serves it.
func (r *replica) newServers(tlsCollectors []prometheus.Collector) error {
	o, h := r.o, r.h
	now := func() time.Time { return time.Unix(0, h.clock.UnixNano()) }
	cfg := server.Config{Layout: o.layout, RewindHold: o.rewindHold, Now: now,
		ReadKernel: h.readKernel, ClockMaxError: o.clockMaxError, PeerMaxOffset: o.peerMaxOffset}
	if len(o.peers) > 0 {
		peers, err := peerclock.New(peerclock.Config{Peers: o.peers, Now: h.clock.UnixNano, Interval: o.peerInterval})
		if err != nil {
			return fmt.Errorf("snowidd: -peers: %v", err)
		}
		r.peers, cfg.Peers = peers, peers
	}
	srv, err := server.New(cfg)
	if err != nil {
		return fmt.Errorf("snowidd: %v", err)
	}
	handler := srv.Handler()
	if h.wrap != nil {
		handler = h.wrap(handler)
	}
	hs, err := server.NewHTTPServer(o.listen, handler, o.limits)
	if err != nil {
		return fmt.Errorf("snowidd: %v", err)
	}
	srv.Registry().MustRegister(tlsCollectors...)
	// What the HTTP server logs (a failed TLS handshake, an HTTP/2
	// client's protocol error) goes to the log with the rest.
	hs.ErrorLog = slog.NewLogLogger(r.log.Handler(), slog.LevelWarn)
	r.srv, r.hs = srv, hs
	return nil
}

// serve serves on ln and holds the node ids until ctx ends, then drains;
// it returns the exit code.
func (r *replica) serve(ctx context.Context, ln net.Listener, stderr io.Writer) int {
	o, log := r.o, r.log
	if o.static {
		// Built before serving: its start waits for the fence's floor
		// (up to nodeid.StaticMaxLead and a tick, a strict one), and the
		// calls that come meanwhile wait in the listener's queue rather
		// than meet a replica with no generator.
		gen, cfg, err := newStaticGenerator(o, r.h.clock)
		if err != nil {
			fmt.Fprintf(stderr, "snowidd: -lease %q: %v\n", nodeid.Redact(o.leaseSpec), err)
			_ = ln.Close()
			return exitUsage
		}
		r.srv.Use(gen, cfg, nil, o.shards)
	}
	served := make(chan error, 1)
	go func() { served <- r.hs.Serve(r.srv.Listener(ln, o.limits, r.tlsConfig)) }()
	r.logServing(ln)

	holdCtx, stopHolding := context.WithCancel(context.Background())
	go r.srv.WatchReady(holdCtx, r.h.readyEvery, r.logReadiness)
	if r.peers != nil {
		go r.peers.Run(holdCtx)
		log.Info("comparing clocks with peers", "peers", nodeid.Redact(strings.Join(o.peers, ",")), "every", o.peerInterval, "max_offset", o.peerMaxOffset)
	}
	held := make(chan *nodeid.Lease, 1)
	refused := make(chan error, 1) // the store refused the credentials, or the layout
	if o.static {
		log.Warn("static node ids: nothing stops another process from minting on them", "first", o.staticNode, "count", o.shards)
		held <- nil
	} else {
		go func() { held <- hold(holdCtx, o, r.store, r.srv, log, refused, r.h.clock) }()
	}

	select {
	case <-ctx.Done():
	case err := <-served:
		log.Error("serving stopped", "err", err)
		stopHolding()
		release(<-held, log)
		return exitFail
	case err := <-refused:
		// A mistake asking again cannot mend: stop, as for a lease spec
		// that can never work.
		if errors.Is(err, nodeid.ErrLayout) {
			log.Error("the lease store serves another layout: give this layout a store of its own (another prefix, table, path or folder), or run with the store's", "err", err)
		} else {
			log.Error("the lease store refused the credentials: fix them (-etcd-user, its password, -etcd-cert) or the user's roles", "err", err)
		}
		_ = r.hs.Close()
		stopHolding()
		<-held
		return exitUsage
	}
	return r.drain(stopHolding, held)
}

// logServing logs the line that says where the replica serves. Tests and
// scripts read it for the port. A pg: spec's DSN may hold a password: the
// log has it masked.
func (r *replica) logServing(ln net.Listener) {
	scheme, mtls := "http", "off"
	if r.tlsConfig != nil {
		scheme, mtls = "https", "off (no -tls-client-ca)"
		if r.o.tls.ClientCA != "" {
			mtls = "on: every client presents a certificate signed by " + r.o.tls.ClientCA
		}
	}
	r.log.Info("serving gRPC, gRPC-Web and Connect", "url", scheme+"://"+ln.Addr().String(), "lease", nodeid.Redact(r.o.leaseSpec), "mutual_tls", mtls)
}

// logReadiness logs a change of readiness (server.WatchReady's report):
// why the replica stopped being ready, an error when the layout's window
// is closed (nothing but a new layout mends it), or that it is ready.
func (r *replica) logReadiness(cause, why string) {
	switch cause {
	case "":
		r.log.Info("ready: serving calls")
	case server.CauseWindow:
		r.log.Error("not ready: the clock is outside the layout's window, every call fails (FailedPrecondition); pick a later epoch or more time bits", "cause", cause, "why", why)
	default:
		r.log.Warn("not ready", "cause", cause, "why", why)
	}
}

// drain stops the replica: not ready and no new mints at once, the calls
// in flight finish, then the lease goes back with the end of the last
// tick used. It returns the exit code.
func (r *replica) drain(stopHolding func(), held <-chan *nodeid.Lease) int {
	r.srv.Drain()
	r.log.Info("draining", "grace", r.o.grace)
	sctx, cancel := context.WithTimeout(context.Background(), r.o.grace)
	err := r.hs.Shutdown(sctx)
	cancel()
	code := exitOK
	if err != nil {
		r.log.Error("calls still in flight after the grace period", "err", err)
		_ = r.hs.Close()
		code = exitFail
	}
	stopHolding()
	if !release(<-held, r.log) {
		code = exitFail
	}
	return code
}

// loadTLS loads the files to serve TLS with (none: nil, plaintext) and
// returns the config that serves what they hold at each handshake, and
// its metrics; a change that does not load is logged.
func loadTLS(files server.TLSFiles, log *slog.Logger) (*tls.Config, []prometheus.Collector, error) {
	if files.Cert == "" {
		return nil, nil, nil
	}
	reloader, err := server.NewTLSReloader(files, func(leaf *x509.Certificate, err error) {
		if err != nil {
			log.Warn("the TLS files changed but do not load: serving the previous certificate", "err", err)
			return
		}
		log.Info("the TLS files changed: serving the new certificate", "subject", leaf.Subject.String(), "not_after", leaf.NotAfter.UTC())
	})
	if err != nil {
		return nil, nil, err
	}
	return reloader.Config(), reloader.Collectors(), nil
}

// logClock says at start what the kernel says of the clock, a warning
// when it does not vouch for it.
func logClock(log *slog.Logger, k clocksrc.Kernel, maxError time.Duration) {
	check := "off"
	if maxError > 0 {
		check = "not ready while unsynchronized or the maximum error is above " + maxError.String()
	}
	switch {
	case !k.Known:
		log.Info("the kernel's clock discipline is unknown", "why", k.Reason)
	case !k.Synchronized:
		log.Warn("the kernel reports the clock unsynchronized: nothing is correcting it", "state", k.State, "status", k.Status, "max_error", k.MaxError, "clock_check", check)
	default:
		log.Info("the kernel reports the clock synchronized", "max_error", k.MaxError, "est_error", k.EstError, "leap", k.Leap, "clock_check", check)
	}
	if k.LeapPending() {
		log.Warn("a leap second is armed or under way: the kernel steps the wall clock back 1 s; snowidd's clock slews it off and refuses nothing, its IDs running up to 1 s ahead of UTC for about 33 minutes", "leap", k.Leap)
	}
}

// warnHorizon warns when the layout's horizon, the first instant its IDs
// cannot encode, is less than within after now (and not passed: that is
// refused at start).
func warnHorizon(log *slog.Logger, l snowlab.Layout, now time.Time, within time.Duration) {
	left := l.TimeLeft(now)
	if left >= within {
		return
	}
	horizon := l.Horizon().UTC().Format(time.RFC3339)
	log.Warn("the layout's horizon is near: after it no ID can be minted; plan a new epoch or layout",
		"horizon", horizon, "years_left", fmt.Sprintf("%.2f", left.Seconds()/year.Seconds()), "warn_within", within)
}

// release gives the lease back (nil: none held) and says whether that went
// well.
func release(l *nodeid.Lease, log *slog.Logger) bool {
	if l == nil {
		return true
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	first, count := l.Nodes()
	if err := l.Release(ctx); err != nil {
		log.Error("lease release failed: the successor waits for the whole reservation", "first", first, "count", count, "err", err)
		return false
	}
	log.Info("lease released", "first", first, "count", count, "last_tick_end", time.Unix(0, l.Fence().LastEnd()).UTC())
	return true
}

// newGenerator builds the generator for cfg: atomicgen for one node id, a
// node-per-shard shardedgen for more.
func newGenerator(o options, cfg snowlab.Config) (snowlab.Generator, snowlab.Config, error) {
	cfg.Layout, cfg.Policy, cfg.MaxWait = o.layout, o.policy, o.maxWait
	var g snowlab.Generator
	var err error
	if o.shards == 1 {
		g, err = atomicgen.New(cfg)
	} else {
		g, err = shardedgen.New(shardedgen.Config{Config: cfg, Shards: o.shards, Mode: shardedgen.NodePerShard})
	}
	return g, cfg, err
}

// newStaticGenerator builds the generator of static node ids on a fence
// (nodeid.StaticConfig) whose floor is past every tick any replica killed
// on them can have stamped, whatever its -policy and -window: without it,
// a monotonic replica ran 6.4 s ahead of the clock after 2 s at 17 M
// IDs/s, and its restart minted those IDs again. A monotonic replica's
// lead is bounded by -window, as a lease's reservation bounds it, and by
// nodeid.StaticMaxLead (100 ms), the bound every run on a static id
// shares: a restart starts 100 ms ahead of the clock, a strict one after
// waiting that long, so a replica restarted with a shorter -window or
// another -policy never reaches into its predecessor's IDs.
func newStaticGenerator(o options, clock clocksrc.Clock) (snowlab.Generator, snowlab.Config, error) {
	cfg := snowlab.Config{Node: o.staticNode, Clock: clock, Layout: o.layout, Policy: o.policy}
	if o.policy == snowlab.Monotonic {
		cfg.MaxLead = min(o.window, nodeid.StaticMaxLead)
	}
	cfg, err := nodeid.StaticConfig(cfg, o.shards)
	if err != nil {
		return nil, cfg, err
	}
	return newGenerator(o, cfg)
}

// hold keeps the server supplied with a lease on store and a generator on
// it until ctx ends, and returns the lease then held (nil if none). A
// store that fails (down, or every node id held) is asked again; a lost
// lease is replaced. The server is not ready meanwhile and its calls are
// refused.
//
// A store that refuses the credentials (etcdlease.ErrAuth), or that
// serves another layout (nodeid.ErrLayout), is not asked again: the error
// goes to refused and hold returns.
func hold(ctx context.Context, o options, store nodeid.Store, srv *server.Server, log *slog.Logger, refused chan<- error, clock clocksrc.Clock) *nodeid.Lease {
	opts := nodeid.Options{Count: o.shards, Layout: o.layout, Window: o.window, Clock: clock, Preferred: o.preferOrdinal, Prefer: o.prefer}
	wait := 100 * time.Millisecond
	retry := func(why string, err error) bool {
		srv.Unuse(fmt.Sprintf("%s: %v", why, err))
		log.Warn(why, "err", err, "retry_in", wait)
		t := time.NewTimer(wait)
		defer t.Stop()
		wait = min(2*wait, 2*time.Second)
		select {
		case <-ctx.Done():
			return false
		case <-t.C:
			return true
		}
	}
	for ctx.Err() == nil {
		actx, cancel := context.WithTimeout(ctx, 10*time.Second)
		lease, err := nodeid.Acquire(actx, store, opts)
		cancel()
		if errors.Is(err, etcdlease.ErrAuth) || errors.Is(err, nodeid.ErrLayout) {
			srv.Unuse(fmt.Sprintf("acquiring a lease: %v", err))
			refused <- err
			return nil
		}
		if err != nil {
			if ctx.Err() != nil || !retry("acquiring a lease", err) {
				return nil
			}
			continue
		}
		first, count := lease.Nodes()
		gen, cfg, err := newGenerator(o, lease.Config(snowlab.Config{}))
		if err != nil {
			release(lease, log)
			if !retry("building a generator on the lease", err) {
				return nil
			}
			continue
		}
		srv.Use(gen, cfg, lease, count)
		wait = 100 * time.Millisecond
		log.Info("lease acquired", "first", first, "count", count, "token", lease.Token(),
			"reserved_until", lease.ReservedUntil().UTC())
		select {
		case <-ctx.Done():
			return lease
		case <-lease.Lost():
		}
		srv.Unuse(fmt.Sprintf("the lease on node ids %d..%d was lost (%v): acquiring another", first, first+count-1, lease.Err()))
		log.Warn("lease lost: minting stopped, acquiring another", "first", first, "count", count, "err", lease.Err())
		// Stops the refresher; the store refuses the release itself (the
		// claim is gone), which says nothing new.
		rctx, cancel := context.WithTimeout(context.Background(), time.Second)
		_ = lease.Release(rctx)
		cancel()
	}
	return nil
}

// Main is cmd/snowidd's main (and the fleet test's replicas'): Run with
// the process's arguments and environment until SIGTERM or SIGINT.
func Main() int {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	defer stop()
	return Run(ctx, os.Args[1:], os.LookupEnv, os.Stderr)
}
