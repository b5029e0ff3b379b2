// Snowid is the snowid command (see github.com/snowlab/snowlab/cmd/snowid)
// built with etcd leases: besides dir:PATH, gen -lease takes
// etcd:ENDPOINT[,ENDPOINT...][/PREFIX] (ENDPOINT HOST:PORT, http://HOST:PORT
// or https://HOST:PORT) and holds its node id in etcd for as long as it
// mints.
//
//	eval "$(scripts/etcd.sh start)"   # export ETCD_ENDPOINTS=http://127.0.0.1:PORT
//	cd etcdlease && go run ./cmd/snowid gen -lease "etcd:$ETCD_ENDPOINTS/myapp" -n 10
//
// A secured etcd takes etcdctl's flag names: -etcd-cacert, -etcd-cert and
// -etcd-key for TLS and client certificates, -etcd-user for etcd's auth,
// with the password in -etcd-password-file or $SNOWID_ETCD_PASSWORD
// (never on the command line):
//
//	SNOWID_ETCD_PASSWORD=… snowid gen -lease etcd:https://10.0.0.1:2379/myapp \
//		-etcd-cacert ca.crt -etcd-cert client.crt -etcd-key client.key -etcd-user myapp
package main

import (
	"flag"
	"io"
	"os"
	"time"

	"github.com/snowlab/snowlab/cmd/snowid/cli"
	"github.com/snowlab/snowlab/etcdlease"
	"github.com/snowlab/snowlab/nodeid"
)

// passwordVar holds the etcd user's password when -etcd-password-file
// does not: the command's own variable, not etcdctl's ETCDCTL_PASSWORD,
// so that a shell set up for etcdctl as another user does not lend snowid
// that user.
const passwordVar = "SNOWID_ETCD_PASSWORD"

func main() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr, os.LookupEnv)) }

// run is the command with its arguments, output and environment.
func run(args []string, stdout, stderr io.Writer, getenv func(string) (string, bool)) int {
	etcd := etcdlease.NewFlags(passwordVar, getenv)
	leases := cli.Leases{
		Scheme:   "etcd",
		Stores:   map[string]nodeid.Opener{"etcd": etcd.Opener(10 * time.Second)},
		AddFlags: func(fs *flag.FlagSet) func() bool { etcd.Register(fs); return etcd.Given },
	}
	return cli.RunLeases(args, stdout, stderr, leases)
}
