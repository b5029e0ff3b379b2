// Snowid is the snowid command (see github.com/snowlab/snowlab/cmd/snowid)
// built with etcd leases: besides dir:PATH, gen -lease takes
// etcd:ENDPOINT[,ENDPOINT...][/PREFIX] (ENDPOINT HOST:PORT, http://HOST:PORT
// or https://HOST:PORT) and holds its node id in etcd for as long as it
// mints.
//
//	eval "$(scripts/etcd.sh start)"   # export ETCD_ENDPOINTS=http://127.0.0.1:PORT
//	cd etcdlease && go run ./cmd/snowid gen -lease "etcd:$ETCD_ENDPOINTS/myapp" -n 10
package main

import (
	"os"
	"time"

	"github.com/snowlab/snowlab/cmd/snowid/cli"
	"github.com/snowlab/snowlab/etcdlease"
	"github.com/snowlab/snowlab/nodeid"
)

func main() {
	stores := map[string]nodeid.Opener{"etcd": etcdlease.Opener(10 * time.Second)}
	os.Exit(cli.Run(os.Args[1:], os.Stdout, os.Stderr, stores))
}
