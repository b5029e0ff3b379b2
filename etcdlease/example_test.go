package etcdlease_test

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"log"
	"os"
	"strings"
	"time"

	"github.com/snowlab/snowlab"
	"github.com/snowlab/snowlab/atomicgen"
	"github.com/snowlab/snowlab/etcdlease"
	"github.com/snowlab/snowlab/nodeid"
)

// A node id leased from etcd. It needs a server, so it is compiled but not
// run: eval "$(scripts/etcd.sh start)" sets ETCD_ENDPOINTS to one.
func ExampleDial() {
	endpoints := strings.Split(os.Getenv("ETCD_ENDPOINTS"), ",") // e.g. http://127.0.0.1:2379
	store, closeStore, err := etcdlease.Dial(endpoints, "/myapp", etcdlease.DefaultTTL)
	if err != nil {
		log.Fatal(err)
	}
	defer closeStore()

	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	lease, err := nodeid.Acquire(ctx, store, nodeid.Options{})
	if err != nil {
		log.Fatal(err) // nodeid.ErrNoFreeNode when all 1,024 ids are held
	}
	defer lease.Release(context.Background())

	gen, err := atomicgen.New(lease.Config(snowlab.Config{}))
	if err != nil {
		log.Fatal(err)
	}
	id, err := gen.NextID() // snowlab.ErrNoReservation once the lease is lost: see <-lease.Lost()
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(id, "node", lease.Node())
}

// The same from a lease spec, as snowid gen -lease takes it: an etcd that
// cannot be reached is one error within etcdlease.ReachTimeout.
func ExampleOpener() {
	spec := "etcd:" + os.Getenv("ETCD_ENDPOINTS") + "/myapp" // etcd:http://127.0.0.1:2379/myapp
	stores := map[string]nodeid.Opener{"etcd": etcdlease.Opener(etcdlease.DefaultTTL)}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	lease, err := nodeid.AcquireSpec(ctx, spec, stores, nodeid.Options{})
	if err != nil {
		log.Fatal(err)
	}
	defer lease.Release(context.Background())
	fmt.Println("node", lease.Node())
}

// A secured etcd: its CA, a client certificate (for --client-cert-auth)
// and a user's password read from a file, never from the command line.
// Compiled, not run: it needs such a server.
func ExampleDialWith() {
	pair, err := tls.LoadX509KeyPair("client.crt", "client.key")
	if err != nil {
		log.Fatal(err)
	}
	caPEM, err := os.ReadFile("ca.crt")
	if err != nil {
		log.Fatal(err)
	}
	roots := x509.NewCertPool()
	roots.AppendCertsFromPEM(caPEM)
	password, err := os.ReadFile("/run/secrets/etcd-password")
	if err != nil {
		log.Fatal(err)
	}
	cred := etcdlease.Credentials{
		TLS:      &tls.Config{RootCAs: roots, Certificates: []tls.Certificate{pair}, MinVersion: tls.VersionTLS12},
		Username: "myapp",
		Password: strings.TrimSuffix(string(password), "\n"),
	}
	store, closeStore, err := etcdlease.DialWith([]string{"https://10.0.0.1:2379"}, "/myapp", etcdlease.DefaultTTL, cred)
	if err != nil {
		log.Fatal(err)
	}
	defer closeStore()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	lease, err := nodeid.Acquire(ctx, store, nodeid.Options{})
	if errors.Is(err, etcdlease.ErrAuth) {
		log.Fatalf("fix the credentials or the user's roles: %v (%v)", err, cred) // cred prints without its password
	}
	if err != nil {
		log.Fatal(err)
	}
	defer lease.Release(context.Background())
	fmt.Println("node", lease.Node())
}
