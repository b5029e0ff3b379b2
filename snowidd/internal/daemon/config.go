package daemon

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/snowlab/snowlab"
	"github.com/snowlab/snowlab/etcdlease"
	"github.com/snowlab/snowlab/nodeid"
	"github.com/snowlab/snowlab/snowidd/internal/cliflag"
	"github.com/snowlab/snowlab/snowidd/internal/peerclock"
	"github.com/snowlab/snowlab/snowidd/internal/snowidcli"
	"github.com/snowlab/snowlab/snowidd/leasespec"
	"github.com/snowlab/snowlab/snowidd/server"
)

// EnvPrefix starts the environment variable of each flag: -rewind-hold is
// SNOWIDD_REWIND_HOLD. A flag on the command line wins over its variable.
const EnvPrefix = "SNOWIDD_"

// MaxShards is the most node ids one replica holds: an etcd claim holds
// at most 64 (etcdlease.MaxCount), and more shards than cores buy nothing.
const MaxShards = 64

// options are the parsed command line.
type options struct {
	listen     string
	leaseSpec  string
	static     bool // leaseSpec is static:N, N being staticNode
	staticNode int
	policy     snowlab.Policy
	layout     snowlab.Layout
	shards     int
	maxWait    time.Duration
	window     time.Duration
	ttl        time.Duration
	// preferOrdinal asks the lease for the node id of the pod's
	// StatefulSet ordinal first, prefer.
	preferOrdinal bool
	prefer        int
	rewindHold    time.Duration
	grace         time.Duration
	// clockMaxError, above 0, holds readiness while the kernel does not
	// vouch for the clock within it.
	clockMaxError time.Duration
	// horizonWarn is how near the layout's horizon may be before the
	// start logs a warning.
	horizonWarn time.Duration
	// tls names the files to serve TLS with; Cert empty: plaintext.
	tls server.TLSFiles
	// limits bound what one client can hold of the replica.
	limits server.Limits
	// etcd are the credentials flags of an etcd lease.
	etcd *etcdlease.Flags
	// peers are the replicas whose clocks this one compares with its
	// own, every peerInterval; peerMaxOffset, above 0, holds readiness
	// while it is further than that from their median.
	peers         []string
	peerInterval  time.Duration
	peerMaxOffset time.Duration
	// version asks for the version line alone.
	version bool
}

// EtcdPasswordVar holds the password of -etcd-user when
// -etcd-password-file does not give it. It is no flag: a password on a
// command line is readable by every user of the host.
const EtcdPasswordVar = EnvPrefix + "ETCD_PASSWORD"

// DefaultHorizonWarn is how near the layout's horizon may come before
// snowidd warns at start: two years, time enough to plan a new layout or
// epoch.
const DefaultHorizonWarn = 2 * year

// year is a Gregorian year's mean length, 365.2425 days.
const year = 31_556_952 * time.Second

// envName is the variable that sets flag name.
func envName(name string) string {
	return EnvPrefix + strings.ToUpper(strings.ReplaceAll(name, "-", "_"))
}

// errHelp is what parseOptions returns after printing the usage for -h.
var errHelp = flag.ErrHelp

// errReported is what parseOptions returns after printing a bad flag's one
// line (cliflag.Parse): Run exits 2 without printing it again.
var errReported = errors.New("snowidd: the flags' error is printed")

// errVersion is what parseOptions returns for -version, which asks for
// nothing but the version.
var errVersion = errors.New("-version")

// staticScheme is snowidd's static:N, which no store opens.
var staticScheme = leasespec.Scheme{Name: "static", Form: "static:N",
	What: "node ids N.. assigned by hand: nothing stops two replicas from sharing them; a restart starts past the IDs its predecessor can have stamped, see -window"}

// leaseSchemes are the lease specs -lease takes: every store openStore
// opens, then static:N.
func leaseSchemes() []leasespec.Scheme { return append(leasespec.Stores(), staticScheme) }

// parseOptions reads the flags from args and, for those not given there,
// from the SNOWIDD_* variables getenv returns.
func parseOptions(args []string, getenv func(string) (string, bool), stderr io.Writer) (options, error) {
	var o options
	fs, raw := o.flags(getenv, stderr)
	if err := setFromEnv(fs, getenv); err != nil {
		return o, err
	}
	if stop, ok := cliflag.Parse(fs, args); stop {
		if ok {
			return o, errHelp
		}
		return o, errReported
	}
	if o.version {
		return o, errVersion
	}
	if fs.NArg() > 0 {
		return o, fmt.Errorf("unexpected argument %q", nodeid.Redact(fs.Arg(0)))
	}
	if err := o.resolve(raw); err != nil {
		return o, err
	}
	if err := o.check(); err != nil {
		return o, err
	}
	if err := o.resolvePeers(*raw.peers); err != nil {
		return o, err
	}
	if err := o.checkLimits(); err != nil {
		return o, err
	}
	o.limits.TLS = o.tls.Cert != ""
	if err := o.resolveStatic(); err != nil {
		return o, err
	}
	if err := o.resolveOrdinal(); err != nil {
		return o, err
	}
	return o, nil
}

// rawFlags are the flags parsed into something else than an option.
type rawFlags struct {
	policy *string
	layout *snowidcli.LayoutFlags
	peers  *string
}

// flags is snowidd's flag set, parsing into o and the raw flags.
func (o *options) flags(getenv func(string) (string, bool), stderr io.Writer) (*flag.FlagSet, rawFlags) {
	var raw rawFlags
	fs := flag.NewFlagSet("snowidd", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&o.listen, "listen", "127.0.0.1:8080", "`address` to serve gRPC, gRPC-Web, Connect and HTTP on (one port)")
	fs.StringVar(&o.leaseSpec, "lease", "", "the lease `SPEC` the node ids come from (required): "+leasespec.Help(leaseSchemes()))
	raw.policy = fs.String("policy", "strict", "`policy` when the clock gives no fresh tick: strict (refuse a rewind past -max-wait, never stamp a time ahead of the clock) or monotonic (carry on from the last tick)")
	raw.layout = snowidcli.AddLayoutFlags(fs)
	fs.IntVar(&o.shards, "shards", 1, fmt.Sprintf("node ids to hold and mint on, one per shard (1..%d): above 1, a node-per-shard generator passes one node id's 4,096 IDs per ms", MaxShards))
	fs.DurationVar(&o.maxWait, "max-wait", snowlab.DefaultMaxWait, "largest clock rewind a strict generator waits out before refusing (Unavailable); negative refuses every rewind")
	fs.DurationVar(&o.window, "window", nodeid.DefaultWindow, "lease reservation kept ahead of the clock: a replica cut off from its store mints for at most this long, a successor after a crash waits at most this long; with static:N and -policy monotonic, how far IDs may run ahead of the clock, at most 100ms (nodeid.StaticMaxLead): every replica started on static:N, whatever its -policy and -window, starts 100ms ahead of the clock, past every ID a predecessor can have served (a strict one waits 100ms first)")
	fs.DurationVar(&o.ttl, "ttl", 10*time.Second, "how long a crashed or frozen replica keeps its node ids from others: the lease's TTL on "+leasespec.Expiring(leaseSchemes())+" (on zk:, the session timeout)")
	fs.BoolVar(&o.preferOrdinal, "prefer-ordinal", false, "ask the lease store for the node id of this pod's StatefulSet ordinal first ($POD_INDEX, else the N of a hostname NAME-N): a hint, the store still decides, so two pods with one ordinal (a force-deleted pod still running, kubernetes #54368) get different node ids; refused with static:N, where nothing would check it")
	fs.DurationVar(&o.rewindHold, "rewind-hold", server.DefaultRewindHold, "how long the replica reports not ready after refusing a clock rewind")
	fs.DurationVar(&o.grace, "grace", 10*time.Second, "on SIGTERM, how long calls in flight get to finish before the lease is released")
	fs.DurationVar(&o.clockMaxError, "clock-max-error", 0, "not ready while the kernel reports the clock unsynchronized or its maximum error above `D` (Linux adjtimex, read only); 0 is off")
	fs.DurationVar(&o.horizonWarn, "horizon-warn", DefaultHorizonWarn, "log a warning at start when the layout's horizon, the end of its IDs, is less than `D` away (17531h38m24s is 2 years)")
	fs.StringVar(&o.tls.Cert, "tls-cert", "", "serve TLS (HTTP/2 by ALPN, and HTTP/1.1) with the certificate in `FILE` (PEM, its chain after it), with -tls-key; read again before each handshake, so a new one is served without a restart")
	fs.StringVar(&o.tls.Key, "tls-key", "", "the private key of -tls-cert, in `FILE` (PEM)")
	fs.StringVar(&o.tls.ClientCA, "tls-client-ca", "", "mutual TLS: refuse every client without a certificate signed by a CA in `FILE` (PEM); needs -tls-cert")
	fs.DurationVar(&o.limits.ReadHeaderTimeout, "read-header-timeout", server.DefaultReadHeaderTimeout, "close a connection whose request headers (TLS handshake included) take longer than `D` to arrive")
	fs.DurationVar(&o.limits.ReadTimeout, "read-timeout", server.DefaultReadTimeout, "give up on a request whose whole body takes longer than `D` to arrive (per HTTP/2 stream)")
	fs.DurationVar(&o.limits.IdleTimeout, "idle-timeout", server.DefaultIdleTimeout, "close a connection idle for `D`")
	fs.IntVar(&o.limits.MaxHeaderBytes, "max-header-bytes", server.DefaultMaxHeaderBytes, "refuse a request whose headers are larger than `N` bytes (431)")
	fs.IntVar(&o.limits.MaxConcurrentStreams, "max-concurrent-streams", server.DefaultMaxConcurrentStreams, "requests in flight on one HTTP/2 connection, at most `N` (more are refused: a client opens another connection)")
	fs.IntVar(&o.limits.MaxConns, "max-conns", server.DefaultMaxConns, "client connections open at once, at most `N`: one past it is closed at once, and its client tries another replica")
	o.etcd = etcdlease.NewFlags(EtcdPasswordVar, getenv)
	o.etcd.Register(fs)
	raw.peers = fs.String("peers", "", "comma list of other replicas' base `URLs` (http://HOST:PORT) whose clocks this one compares with its own (GET /clock), exported as snowidd_clock_peer_offset_seconds")
	fs.DurationVar(&o.peerInterval, "peer-interval", peerclock.DefaultInterval, "how often -peers are asked for their clocks")
	fs.BoolVar(&o.version, "version", false, "print the module version and VCS revision snowidd was built from, as snowid version does, and exit")
	fs.DurationVar(&o.peerMaxOffset, "peer-max-offset", 0, "not ready while this replica's clock is further than `D` from the median of its -peers' and its own, beyond the estimate's error (half a round trip); 0 is off")
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "usage: snowidd -lease SPEC [flags]\n\nEach flag can also be set with %sNAME (-rewind-hold: %s). The password of -etcd-user comes from -etcd-password-file or $%s.\n\n", EnvPrefix, envName("rewind-hold"), EtcdPasswordVar)
		fs.PrintDefaults()
	}
	return fs, raw
}

// setFromEnv sets every flag whose SNOWIDD_* variable getenv returns.
func setFromEnv(fs *flag.FlagSet, getenv func(string) (string, bool)) error {
	var envErr error
	fs.VisitAll(func(f *flag.Flag) {
		if v, ok := getenv(envName(f.Name)); ok && envErr == nil {
			if err := fs.Set(f.Name, v); err != nil {
				envErr = fmt.Errorf("$%s=%q: %v", envName(f.Name), nodeid.Redact(v), err)
			}
		}
	})
	return envErr
}

// resolve turns the raw layout and policy into options, and checks
// -listen.
func (o *options) resolve(raw rawFlags) error {
	var err error
	if o.layout, err = raw.layout.Layout(); err != nil {
		return err
	}
	if err := o.policy.UnmarshalText([]byte(*raw.policy)); err != nil {
		return fmt.Errorf("-policy %q: want strict or monotonic", *raw.policy)
	}
	if err := checkListen(o.listen); err != nil {
		return fmt.Errorf("-listen %q: %v", nodeid.Redact(o.listen), err)
	}
	return nil
}

// check refuses the flags out of their range, or that do not go
// together, the first one first.
func (o *options) check() error {
	switch {
	case o.leaseSpec == "":
		return errors.New("-lease is required: " + leasespec.Forms(leaseSchemes()))
	case o.shards < 1 || o.shards > MaxShards:
		return fmt.Errorf("-shards %d: want 1..%d", o.shards, MaxShards)
	case o.shards > o.layout.MaxNode()+1:
		return fmt.Errorf("-shards %d: the layout has %d node ids", o.shards, o.layout.MaxNode()+1)
	case o.rewindHold < 0:
		return fmt.Errorf("-rewind-hold %v: want 0 or more", o.rewindHold)
	case o.grace < 0:
		return fmt.Errorf("-grace %v: want 0 or more", o.grace)
	case o.window < nodeid.MinWindow:
		return fmt.Errorf("-window %v: want at least %v", o.window, nodeid.MinWindow)
	case o.ttl <= 0:
		return fmt.Errorf("-ttl %v: want more than 0", o.ttl)
	case o.clockMaxError < 0:
		return fmt.Errorf("-clock-max-error %v: want 0 (off) or more", o.clockMaxError)
	case o.horizonWarn < 0:
		return fmt.Errorf("-horizon-warn %v: want 0 or more", o.horizonWarn)
	case (o.tls.Cert == "") != (o.tls.Key == ""):
		return errors.New("-tls-cert and -tls-key go together: give both to serve TLS, or neither")
	case o.tls.ClientCA != "" && o.tls.Cert == "":
		return fmt.Errorf("-tls-client-ca %s: mutual TLS needs -tls-cert and -tls-key as well", o.tls.ClientCA)
	case o.etcd.Given() && !strings.HasPrefix(o.leaseSpec, "etcd:"):
		return fmt.Errorf("-lease %q: the -etcd-* flags are for an etcd: lease", nodeid.Redact(o.leaseSpec))
	case o.peerInterval <= 0:
		return fmt.Errorf("-peer-interval %v: want more than 0", o.peerInterval)
	case o.peerMaxOffset < 0:
		return fmt.Errorf("-peer-max-offset %v: want 0 (off) or more", o.peerMaxOffset)
	}
	return nil
}

// resolveOrdinal reads the pod's ordinal for -prefer-ordinal. An ordinal
// is only a hint to a lease store: with static:N nothing would stop two
// pods from minting on it, so the two are refused together.
func (o *options) resolveOrdinal() error {
	if !o.preferOrdinal {
		return nil
	}
	if o.static {
		return fmt.Errorf("-prefer-ordinal needs a lease store (%s): with static:N nothing stops two pods with one ordinal (a force-deleted pod still running, kubernetes #54368) from minting on one node id", leasespec.Names(leasespec.Stores()))
	}
	n, err := nodeid.Ordinal("", 0, o.layout)
	if err != nil {
		return fmt.Errorf("-prefer-ordinal: %v", err)
	}
	if n+o.shards-1 > o.layout.MaxNode() {
		return fmt.Errorf("-prefer-ordinal: ordinal %d with -shards %d passes the layout's last node id %d", n, o.shards, o.layout.MaxNode())
	}
	o.prefer = n
	return nil
}

// resolvePeers parses -peers and checks that -peer-max-offset has some.
func (o *options) resolvePeers(peers string) error {
	var err error
	if o.peers, err = parsePeers(peers); err != nil {
		return fmt.Errorf("-peers %q: %v", nodeid.Redact(peers), err)
	}
	if o.peerMaxOffset > 0 && len(o.peers) == 0 {
		return fmt.Errorf("-peer-max-offset %v needs -peers to compare with", o.peerMaxOffset)
	}
	return nil
}

// checkLimits refuses a limit of 0 or less.
func (o *options) checkLimits() error {
	for _, l := range []struct {
		name string
		v    int64
		show string
	}{
		{"read-header-timeout", int64(o.limits.ReadHeaderTimeout), o.limits.ReadHeaderTimeout.String()},
		{"read-timeout", int64(o.limits.ReadTimeout), o.limits.ReadTimeout.String()},
		{"idle-timeout", int64(o.limits.IdleTimeout), o.limits.IdleTimeout.String()},
		{"max-header-bytes", int64(o.limits.MaxHeaderBytes), strconv.Itoa(o.limits.MaxHeaderBytes)},
		{"max-concurrent-streams", int64(o.limits.MaxConcurrentStreams), strconv.Itoa(o.limits.MaxConcurrentStreams)},
		{"max-conns", int64(o.limits.MaxConns), strconv.Itoa(o.limits.MaxConns)},
	} {
		if l.v <= 0 {
			return fmt.Errorf("-%s %s: want more than 0", l.name, l.show)
		}
	}
	return nil
}

// resolveStatic reads a static:N lease spec: N and the shards after it
// must be node ids of the layout.
func (o *options) resolveStatic() error {
	if rest, ok := strings.CutPrefix(o.leaseSpec, "static:"); ok {
		n, err := strconv.Atoi(rest)
		if err != nil {
			return fmt.Errorf("-lease %q: static:N wants a node id", nodeid.Redact(o.leaseSpec))
		}
		if _, err := nodeid.Static(n, o.layout); err != nil {
			return fmt.Errorf("-lease %q: %w", nodeid.Redact(o.leaseSpec), err)
		}
		if _, err := nodeid.Static(n+o.shards-1, o.layout); err != nil {
			return fmt.Errorf("-lease %q -shards %d: the last shard's %w", nodeid.Redact(o.leaseSpec), o.shards, err)
		}
		o.static, o.staticNode = true, n
	}
	return nil
}

// parsePeers reads -peers: base URLs, http:// or https:// with a host
// and nothing after the port: no user information, path, query or
// fragment, so that what is logged and labels a metric holds no
// credential. A refusal describes the URL as nodeid.Redact does.
func parsePeers(list string) ([]string, error) {
	if strings.TrimSpace(list) == "" {
		return nil, nil
	}
	var out []string
	for _, s := range strings.Split(list, ",") {
		s = strings.TrimSuffix(strings.TrimSpace(s), "/")
		u, err := url.Parse(s)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.Path != "" || u.User != nil ||
			u.RawQuery != "" || u.ForceQuery || u.Fragment != "" {
			return nil, fmt.Errorf("peer %q: want http://HOST:PORT or https://HOST:PORT", nodeid.Redact(s))
		}
		out = append(out, s)
	}
	return out, nil
}

// checkListen accepts what net.Listen("tcp", addr) can parse: HOST:PORT,
// the host possibly empty (every interface) and the port a number or a
// service name. Whether the host resolves and the port is free is for
// Listen to say: those can change, a malformed address cannot.
func checkListen(addr string) error {
	_, port, err := net.SplitHostPort(addr)
	if err != nil {
		return errors.New("want HOST:PORT, e.g. 127.0.0.1:8080 (:PORT for every interface)")
	}
	if _, err := net.LookupPort("tcp", port); err != nil {
		return fmt.Errorf("port %q: want a number in 0..65535 or a service name", port)
	}
	return nil
}
