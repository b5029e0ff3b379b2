package etcdlease

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"flag"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/snowlab/snowlab/nodeid"
)

// Flags are the flags of a command that takes -lease etcd:… for a
// secured etcd, named as etcdctl names them: -etcd-cacert, -etcd-cert,
// -etcd-key, -etcd-user and -etcd-password-file. The password comes from
// the file or from a variable the command names, never from the command
// line, where any user of the host could read it.
type Flags struct {
	CACert, Cert, Key, User, PasswordFile string

	passwordVar string
	getenv      func(string) (string, bool)
}

// NewFlags returns the flags, not yet on a flag set (Register).
// passwordVar is the variable the password may come from instead of
// -etcd-password-file, read through getenv (os.LookupEnv).
func NewFlags(passwordVar string, getenv func(string) (string, bool)) *Flags {
	return &Flags{passwordVar: passwordVar, getenv: getenv}
}

// Register adds the flags to fs.
func (f *Flags) Register(fs *flag.FlagSet) {
	fs.StringVar(&f.CACert, "etcd-cacert", "", "etcd: verify etcd's certificate with the CA certificates in `FILE` (PEM) rather than the system's; the endpoints must then be https:// (or HOST:PORT)")
	fs.StringVar(&f.Cert, "etcd-cert", "", "etcd: present the client certificate in `FILE` (PEM), for an etcd run with --client-cert-auth; with -etcd-key")
	fs.StringVar(&f.Key, "etcd-key", "", "etcd: the private key of -etcd-cert, in `FILE` (PEM)")
	fs.StringVar(&f.User, "etcd-user", "", "etcd: authenticate as user `NAME` (etcd auth enabled); the password comes from -etcd-password-file or $"+f.passwordVar)
	fs.StringVar(&f.PasswordFile, "etcd-password-file", "", "etcd: read -etcd-user's password from `FILE` (one trailing newline is dropped); $"+f.passwordVar+" holds it otherwise")
}

// Given reports whether any of the flags was given: a command refuses
// them when its lease is not on etcd. The password variable does not
// count: it may be set for every run of a command, not only those on
// etcd.
func (f *Flags) Given() bool {
	return f.CACert != "" || f.Cert != "" || f.Key != "" || f.User != "" || f.PasswordFile != ""
}

// Credentials reads the files the flags name. Its error is one line
// naming the flag at fault and never holds the password.
func (f *Flags) Credentials() (Credentials, error) {
	var c Credentials
	if f.Cert != "" || f.Key != "" || f.CACert != "" {
		c.TLS = &tls.Config{MinVersion: tls.VersionTLS12}
	}
	switch {
	case f.Cert != "" && f.Key == "":
		return c, errors.New("-etcd-cert without -etcd-key: give the client certificate's private key")
	case f.Key != "" && f.Cert == "":
		return c, errors.New("-etcd-key without -etcd-cert: give the client certificate")
	case f.Cert != "":
		pair, err := tls.LoadX509KeyPair(f.Cert, f.Key)
		if err != nil {
			return c, fmt.Errorf("-etcd-cert %s -etcd-key %s: %v", f.Cert, f.Key, err)
		}
		c.TLS.Certificates = []tls.Certificate{pair}
	}
	if f.CACert != "" {
		pem, err := os.ReadFile(f.CACert)
		if err != nil {
			return c, fmt.Errorf("-etcd-cacert: %v", err)
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(pem) {
			return c, fmt.Errorf("-etcd-cacert %s: no PEM certificate in it", f.CACert)
		}
		c.TLS.RootCAs = pool
	}

	password, fromVar := f.getenv(f.passwordVar)
	switch {
	case f.PasswordFile != "" && fromVar:
		return c, fmt.Errorf("-etcd-password-file and $%s are both set: give the password one way", f.passwordVar)
	case f.PasswordFile != "":
		b, err := os.ReadFile(f.PasswordFile)
		if err != nil {
			return c, fmt.Errorf("-etcd-password-file: %v", err)
		}
		password = strings.TrimSuffix(strings.TrimSuffix(string(b), "\n"), "\r")
		if password == "" {
			return c, fmt.Errorf("-etcd-password-file %s is empty", f.PasswordFile)
		}
	case fromVar && password == "":
		return c, fmt.Errorf("$%s is set but empty", f.passwordVar)
	}
	switch {
	case strings.Contains(f.User, ":"):
		// etcdctl reads --user NAME:PASSWORD; a password on a command
		// line is readable by every user of the host, so it is refused,
		// and not repeated.
		return c, fmt.Errorf("-etcd-user holds a ':' (NAME:PASSWORD?): give the name alone and the password in -etcd-password-file or $%s", f.passwordVar)
	case f.User != "" && password == "":
		return c, fmt.Errorf("-etcd-user %q without a password: give -etcd-password-file or $%s", f.User, f.passwordVar)
	case f.User == "" && password != "":
		return c, errors.New("a password without -etcd-user: name the user it is for")
	}
	c.Username, c.Password = f.User, password
	return c, nil
}

// Opener is OpenerWith for the flags' credentials, which it reads when it
// opens a store: after the command line is parsed. Its errors name the
// flag at fault, as Credentials's do.
func (f *Flags) Opener(ttl time.Duration) nodeid.Opener {
	return nodeid.OpenerFunc(func(rest string) (nodeid.Store, error) {
		c, err := f.Credentials()
		if err != nil {
			return nil, err
		}
		return OpenerWith(ttl, c).Open(rest)
	})
}
