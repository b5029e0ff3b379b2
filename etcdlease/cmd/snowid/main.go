// Snowid is the snowid command (see github.com/snowlab/snowlab/cmd/snowid)
// built with etcd leases: besides dir:PATH, gen -lease takes
// etcd:HOST:PORT[,HOST:PORT...][/PREFIX] and holds its node id in etcd for
// as long as it mints.
//
//	cd etcdlease && go run ./cmd/snowid gen -lease etcd:127.0.0.1:2379/myapp -n 10
package main

import (
	"os"
	"time"

	"github.com/snowlab/snowlab/etcdlease"
	"github.com/snowlab/snowlab/internal/snowidcli"
	"github.com/snowlab/snowlab/nodeid"
)

func main() {
	stores := map[string]nodeid.Opener{"etcd": etcdlease.Opener(10 * time.Second)}
	os.Exit(snowidcli.Run(os.Args[1:], os.Stdout, os.Stderr, stores))
}
