// Snowid decodes, mints and describes snowlab IDs from the command line,
// with every lease store:
//
//	go install github.com/snowlab/snowlab/snowidd/cmd/snowid@latest
//
// Usage (the usage "snowid help" prints, and each command's -h, say the
// same):
//
//	snowid decode [-json] [layout flags] ID...
//	snowid gen [-node N | -lease SPEC [-prefer-ordinal]] [-n K] [-policy strict|monotonic] [-max-lead D] [-format dec|base32|json] [layout flags]
//	snowid layout [layout flags]
//	snowid range [layout flags] FROM TO
//	snowid partitions -table T -from FROM -to TO -every D [layout flags]
//	snowid plan -processes N -surge X -burst B [-rate R] [-years Y] [-unit D] [-epoch E]
//	snowid clock [-json] [-watch D]
//	snowid mask [-key-file FILE] [-key-version V] ID...
//	snowid unmask [-key-file FILE] [-key-version V] STRING...
//	snowid version
//	snowid help [COMMAND]
//
// Decode takes each ID apart and prints its decimal and base32 forms, the
// start of its tick in UTC and in the local time zone (RFC 3339, with
// milliseconds when the layout's unit allows), its Unix milliseconds, node
// and sequence. With -json it prints one JSON object per ID, with the fields
// id (a string, as snowlab.ID marshals it), base32, time_utc, time_local,
// unix_ms, node and seq. An ID is written in decimal, or as 13 characters of
// Crockford base32 (either case; I, L and O read as 1, 1 and 0), or after a
// prefix that says which: "dec:" and a decimal, or "b32:" and 1 to 13
// characters of base32 (a shorter one is read as if padded with leading
// zeros). Thirteen digits are both, when the first is 0 to 7: if the two
// readings are different IDs (0312345678901 is decimal 312345678901 and
// base32 109286101259396097, and ID.Base32 prints such strings) the argument
// is refused, exit 2, in a line giving both ways to write it:
// dec:0312345678901 or 312345678901 for the decimal, b32:0312345678901 for
// the base32. A bad argument is reported and the others are still decoded.
//
// Gen mints K IDs for node N with an atomicgen generator on the default
// clock and prints one per line, as decimal (the default), base32, or the
// JSON objects decode -json prints. Node defaults to 0 (said on stderr) and
// K to 1. On -node N (or -lease static:N) a run starts past every ID any
// earlier run on N can have printed, whatever its -policy and -max-lead
// (nodeid.StaticConfig): no run on a static node id leads the clock by
// more than 100 ms (-max-lead, 100 ms by default, is refused above it), so
// every run starts 100 ms ahead: a strict one waits 100 ms and a tick
// before its first ID, a monotonic one starts there at once. With -lease
// SPEC it takes its node id from a lease store instead (-node with -lease
// is refused), says on stderr which node id it holds before the first ID
// (stdout holds only IDs), holds it for as long as it mints and releases
// it on exit, so repeated runs never mint the same ID. The lease specs,
// every store in this one command:
//
//	dir:PATH                  a nodeid lock folder shared by the processes of one host
//	static:N                  node id N assigned by hand, as -node N: no store
//	etcd:HOST:PORT/PREFIX     etcd; several endpoints comma-separated, each HOST:PORT,
//	                          http://HOST:PORT or https://HOST:PORT (TLS)
//	pg:DSN                    a PostgreSQL table (a postgres:// URL or a key=value
//	                          string; snowlab_table=NAME picks the table, created when
//	                          absent); the DSN's password is masked in every line printed
//	k8s:NAMESPACE/PREFIX      Kubernetes Lease objects PREFIX-N in NAMESPACE (the API
//	                          server from the pod's service account, else $KUBECONFIG
//	                          or ~/.kube/config)
//	zk:HOST:PORT[,...]/PATH   ZooKeeper znodes under PATH (an ephemeral claim znode and
//	                          a persistent reservation per node id)
//
// Killed by SIGINT or SIGTERM, gen -lease stops minting (the IDs printed
// are whole lines), releases its lease, so that the next holder takes the
// node id at once instead of waiting for its TTL or reservation, and then
// dies of that signal, as a command without a lease to give back would:
// its parent sees a process killed by the signal (a shell's $? is 130 or
// 143), so a shell loop or make stops as it does on any Ctrl-C. A reader
// that goes away (snowid gen -lease … | head) ends it the same way, with
// SIGPIPE and no error line.
//
// A store serves one layout, recorded by the first run on it: a run with
// other layout flags is refused, exit 2, in one line naming both layouts
// (node 0 of 41/8/14 mints the IDs of nodes 0..3 of 41/10/12).
//
// A secured etcd takes etcdctl's flag names: -etcd-cacert, -etcd-cert and
// -etcd-key for TLS and client certificates, -etcd-user for etcd's auth,
// with the password in -etcd-password-file or $SNOWID_ETCD_PASSWORD (never
// on the command line):
//
//	SNOWID_ETCD_PASSWORD=… snowid gen -lease etcd:https://10.0.0.1:2379/myapp \
//		-etcd-cacert ca.crt -etcd-cert client.crt -etcd-key client.key -etcd-user myapp
//
// A clock outside the layout's window (an epoch ahead of it, a horizon
// passed) mints nothing: one line says so, exit 2.
//
// Layout describes a layout: the bits and shift of each field, the largest
// node and sequence, how many IDs one node can mint per tick and per second,
// the horizon (the first instant the layout cannot encode) and the years
// left until it, or, with an epoch ahead of the clock, that none are left
// yet since nothing can be minted before the epoch.
//
// Range prints the IDs [lo, hi) of the time interval [FROM, TO) (RFC 3339,
// or a date for midnight UTC) and the SQL predicate id >= lo AND id < hi:
// an ID is inside exactly when its decoded time lies in the interval, so a
// bound inside a tick rounds up to the next tick (snowlab.Layout.Range).
//
// Partitions prints PostgreSQL's CREATE TABLE … PARTITION OF T FOR VALUES
// FROM (lo) TO (hi) statements for a parent T partitioned BY RANGE (id),
// one partition per -every from -from to -to, each named T_ and its start
// in UTC (T_20250101 for days). T is read as SQL reads a name (unquoted
// parts fold to lower case; "quoted" ones keep theirs) and printed quoted.
// An -every that is not a whole number of ticks, a -from inside a tick, a
// -to that is not -from plus whole partitions, more than 10,000 partitions,
// or a name PostgreSQL would cut short is refused.
//
// Clock prints the kernel's clock discipline (synchronized, a leap second
// armed, the estimated and maximum error; "unknown" where the system does
// not say) and what a Default clock (clocksrc.Default) saw while it read
// it for -watch; -json prints it as one object.
//
// Version prints the version of the module snowid was built from, its
// VCS revision and the Go version, as go version -m shows them (snowidd
// -version prints the same line for snowidd).
//
// Plan sizes a layout for a fleet of N processes that each hold a node id,
// X node ids per process during a rollout (2 for blue-green), a burst of B
// IDs within one tick, an optional sustained rate R (IDs per second) and at
// least Y years left (10 by default). It prints what each field needs, one
// fitting layout per node width, the 12 narrowest (node ids, processes they
// hold at the surge, the per-node ceiling, the nodes the burst needs,
// horizon and years left), why narrower fields do not fit, and whether the
// default layout does. Years left count from now, or from the epoch when it
// is ahead of the clock, which a line then says.
//
// Mask prints the public form of each ID (written as decode reads them), one
// per line: 17 characters of lower-case Crockford base32, a keyed
// permutation of the ID (package mask: FF1 over AES) that shows neither its
// time, nor its node, nor its order. Unmask prints the decimal
// ID of each such string, read in either case (as decode reads base32:
// a string that passed through something that upper-cases it still
// unmasks, though the public form itself is lower case). The key comes from -key-file F, or else from
// $SNOWID_MASK_KEY, in one of two forms: 32, 48 or 64 hex digits (either
// case; surrounding whitespace such as a final newline is ignored) for a key
// of 16, 24 or 32 bytes, or exactly 16, 24 or 32 raw bytes. Content that is
// mostly hex digits (3/4 of what is not whitespace) is never read as raw
// bytes: a hex key with a typo (O for 0), which at 32 characters would
// otherwise be a 32-byte key nobody holds, is refused in a line naming the
// form it looked like and the first character out of place ("looks like a
// 32-digit hex key but character 17 is not a hex digit"), as is hex of
// another length. -key-version V (0 to 31, default 0) names the key, and is
// the strings' last character. A string that was changed, or made under
// another key, is an error line and exit 2; the key is never printed, in
// whole or in part.
//
// Every command reads the default layout (41/10/12 bits of 1 ms ticks since
// 2024-01-01T00:00:00Z) unless told otherwise: -layout gives the time, node
// and sequence bits, -unit the tick (a Go duration such as 1ms or 100us)
// and -epoch the instant the time field counts from, in RFC 3339, as a
// date (midnight UTC, as range and partitions read their bounds) or in
// Unix milliseconds; -layout also takes the whole layout in
// snowlab.Layout's text form, 41/10/12,1ms,2024-01-01T00:00:00Z (a unit
// or epoch given there and in -unit or -epoch too is refused). The result
// must pass snowlab.Layout.Validate. Flags may come before or after the
// IDs; "--" ends the flags.
//
// Snowid exits 0 on success, 2 on a bad argument or a usage error (one line
// on stderr naming the argument, or a short usage; a lease spec that can
// never work is one), and 1 when a valid request fails while running (the
// clock refused a generator, the lease store is down or full, or writing the
// output failed).
package main

import (
	"flag"
	"io"
	"os"

	"github.com/snowlab/snowlab/etcdlease"
	"github.com/snowlab/snowlab/snowidd/internal/snowidcli"
	"github.com/snowlab/snowlab/snowidd/leasespec"
)

// passwordVar holds the etcd user's password when -etcd-password-file
// does not: the command's own variable, not etcdctl's ETCDCTL_PASSWORD,
// so that a shell set up for etcdctl as another user does not lend snowid
// that user.
const passwordVar = "SNOWID_ETCD_PASSWORD"

func main() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr, os.LookupEnv)) }

// run is the command with its arguments, output and environment.
func run(args []string, stdout, stderr io.Writer, getenv func(string) (string, bool)) int {
	return snowidcli.RunLeases(args, stdout, stderr, leases(getenv))
}

// leases are every lease store leasespec lists, each with its default TTL,
// and the -etcd-* flags.
func leases(getenv func(string) (string, bool)) snowidcli.Leases {
	etcd := etcdlease.NewFlags(passwordVar, getenv)
	return snowidcli.Leases{
		Scheme:   "etcd",
		Stores:   leasespec.Openers(0, etcd),
		AddFlags: func(fs *flag.FlagSet) func() bool { etcd.Register(fs); return etcd.Given },
	}
}
