package etcdtest

import (
	"context"
	"crypto/rand"
	"crypto/tls"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"

	"github.com/snowlab/snowlab/etcdlease/tlstest"
)

// Secure is the material for an etcd that demands client certificates:
// a CA, the server's certificate for 127.0.0.1, a client certificate for
// the stores under test and one for etcd's root user, as files in one
// folder (what etcd and a command line read) and as tls.Configs.
type Secure struct {
	CA     *tlstest.CA
	CAFile string
	// ServerCert and ServerKey are etcd's.
	ServerCert, ServerKey string
	// ClientCert and ClientKey are a client certificate with the common
	// name ClientName: -etcd-cert and -etcd-key.
	ClientCert, ClientKey string
	// Root presents a certificate with the common name root, which etcd
	// run with --client-cert-auth takes as its root user once auth is
	// enabled: what EnableAuth and the health checks use.
	Root *tls.Config
}

// ClientName is the common name of Secure's client certificate.
const ClientName = "snowlab-client"

// NewSecure makes the certificates and writes their files into dir.
func NewSecure(dir string) (*Secure, error) {
	ca, err := tlstest.NewCA("etcdtest CA")
	if err != nil {
		return nil, err
	}
	s := &Secure{CA: ca}
	if s.CAFile, err = ca.WriteCert(dir, "ca.crt"); err != nil {
		return nil, err
	}
	srv, err := ca.Server("127.0.0.1", "localhost")
	if err != nil {
		return nil, err
	}
	if s.ServerCert, s.ServerKey, err = srv.Write(dir, "etcd"); err != nil {
		return nil, err
	}
	cli, err := ca.Client(ClientName)
	if err != nil {
		return nil, err
	}
	if s.ClientCert, s.ClientKey, err = cli.Write(dir, "client"); err != nil {
		return nil, err
	}
	root, err := ca.Client("root")
	if err != nil {
		return nil, err
	}
	s.Root = tlstest.ClientConfig(ca, root)
	return s, nil
}

// TLS is what StartTLS takes to run etcd with these certificates and
// --client-cert-auth.
func (s *Secure) TLS() TLS {
	return TLS{CertFile: s.ServerCert, KeyFile: s.ServerKey, TrustedCAFile: s.CAFile, Client: s.Root}
}

// EnableAuth turns etcd's auth on at endpoints, connecting as root with
// the root certificate: it adds the root user (with a random password
// nobody needs: root's certificate is enough), adds user with password
// and a role that may read and write every key under prefix, and enables
// auth. From then on a request needs a user: a password's, or a client
// certificate's common name.
func EnableAuth(endpoints []string, root *tls.Config, user, password, prefix string) error {
	cli, err := clientv3.New(clientv3.Config{Endpoints: endpoints, TLS: root, DialTimeout: 5 * time.Second, Logger: zap.NewNop()})
	if err != nil {
		return fmt.Errorf("etcdtest: connect as root: %w", err)
	}
	defer cli.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	secret := make([]byte, 16)
	_, _ = rand.Read(secret)
	role := user + "-rw"
	for _, step := range []struct {
		what string
		do   func() error
	}{
		{"add root", func() error { _, err := cli.UserAdd(ctx, "root", hex.EncodeToString(secret)); return err }},
		{"grant root the root role", func() error { _, err := cli.UserGrantRole(ctx, "root", "root"); return err }},
		{"add user " + user, func() error { _, err := cli.UserAdd(ctx, user, password); return err }},
		{"add role " + role, func() error { _, err := cli.RoleAdd(ctx, role); return err }},
		{"grant " + role + " " + prefix, func() error {
			_, err := cli.RoleGrantPermission(ctx, role, prefix, clientv3.GetPrefixRangeEnd(prefix), clientv3.PermissionType(clientv3.PermReadWrite))
			return err
		}},
		{"grant " + user + " " + role, func() error { _, err := cli.UserGrantRole(ctx, user, role); return err }},
		{"enable auth", func() error { _, err := cli.AuthEnable(ctx); return err }},
	} {
		if err := step.do(); err != nil {
			return fmt.Errorf("etcdtest: %s: %w", step.what, err)
		}
	}
	return nil
}

// StartSecured starts an etcd in dir that demands TLS and a client
// certificate (NewSecure's, written to dir) and has auth enabled with user
// and password allowed under prefix only (EnableAuth): the rig of every
// test of a secured cluster. The caller stops the server.
func StartSecured(dir, user, password, prefix string) (*Server, *Secure, error) {
	sec, err := NewSecure(dir)
	if err != nil {
		return nil, nil, err
	}
	data := filepath.Join(dir, "data")
	if err := os.Mkdir(data, 0o700); err != nil {
		return nil, nil, err
	}
	srv, err := StartTLS(data, sec.TLS())
	if err != nil {
		return nil, nil, err
	}
	if err := EnableAuth(srv.Endpoints(), sec.Root, user, password, prefix); err != nil {
		srv.Stop()
		return nil, nil, err
	}
	return srv, sec, nil
}
