package server

import (
	"bytes"
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"net"
	"os"
	"slices"
	"sync"
	"time"
	"unicode"

	"github.com/prometheus/client_golang/prometheus"
)

// TLSFiles name the PEM files a replica serves TLS with.
type TLSFiles struct {
	// Cert is the certificate, its chain after it; Key its private key.
	Cert, Key string
	// ClientCA, when set, holds the CA certificates a client's
	// certificate must chain to, and every client must present one
	// (mutual TLS). Empty: clients are not asked for one.
	ClientCA string
	// Now is the clock a certificate's validity is judged by, the
	// server's (tests script it); nil is time.Now.
	Now func() time.Time
}

// TLSReloader serves TLS with the certificate, key and client CA of its
// files, and serves what they hold when they change, without a restart:
// before each handshake it reads them again and, when their bytes differ
// from those it serves, loads them. A change that does not load (the
// certificate written but not yet its key, a file cut short, a key that
// does not match, a certificate of the chain expired or not valid yet by
// TLSFiles.Now, a client CA file without a certificate) is reported once
// and the files' previous contents go on being served, until the next
// change loads: an expired pair written over a valid one would have every
// verifying client refused. A pair not valid yet loads at the first
// handshake after its NotBefore.
//
// A file is cut short when a reader opens it while a writer is part way
// through (an operator's cp, a tool writing in place): what is checkable
// is refused. Each file must be whole PEM: every block from its BEGIN
// line to its END line, nothing but space after the last one (a cut
// inside a block, or inside the text before one, leaves a partial block
// or trailing text; text before a block, as openssl writes, is kept), and
// every certificate must parse. The certificate file's chain must link:
// each certificate signed by the one after it. A cut between two whole
// blocks leaves whole PEM, and then only the previous files tell: a chain
// that now ends at a certificate signed by one the served chain carried
// after it, and no longer does, is refused as cut short (to stop sending
// an intermediate on purpose, restart). A client CA bundle cut between
// two certificates is the bundle without the later ones, the same bytes
// as a bundle an operator removed a CA from, and loads.
//
// Reading three small files costs some microseconds, a share of a handshake's signature; comparing
// their bytes, not their modification times, sees a change however soon
// it follows the last one (a file system's times are coarser than two
// writes by a script).
type TLSReloader struct {
	files  TLSFiles
	report func(leaf *x509.Certificate, err error)

	mu     sync.Mutex
	served fileContents
	cfg    *tls.Config
	leaf   *x509.Certificate
	// refused is the error of the last change that did not load, and
	// refusedFiles what the files held then.
	refused      string
	refusedFiles fileContents

	reloads *prometheus.CounterVec
}

// fileContents are the bytes of the three files.
type fileContents struct{ cert, key, ca []byte }

func (a fileContents) equal(b fileContents) bool {
	return bytes.Equal(a.cert, b.cert) && bytes.Equal(a.key, b.key) && bytes.Equal(a.ca, b.ca)
}

// ErrTLSFiles is wrapped by the error for TLS files that do not load.
var ErrTLSFiles = errors.New("snowidd: TLS files")

// NewTLSReloader loads files, or fails saying which file is at fault
// (wrapping ErrTLSFiles), a certificate not valid by files.Now among
// them. report, when not nil, is called after each change: with the new
// certificate when it loaded, with the error when it did not (the
// previous one still served).
func NewTLSReloader(files TLSFiles, report func(leaf *x509.Certificate, err error)) (*TLSReloader, error) {
	if files.Cert == "" || files.Key == "" {
		return nil, fmt.Errorf("%w: a certificate and its key are both needed", ErrTLSFiles)
	}
	if files.Now == nil {
		files.Now = time.Now
	}
	r := &TLSReloader{files: files, report: report,
		reloads: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "snowidd_tls_reloads_total",
			Help: "Changes of the TLS files seen before a handshake, by result: loaded (served from then on) or refused (the previous files still served).",
		}, []string{"result"}),
	}
	c, err := files.read()
	if err != nil {
		return nil, err
	}
	cfg, leaf, err := files.load(c)
	if err != nil {
		return nil, err
	}
	r.served, r.cfg, r.leaf = c, cfg, leaf
	return r, nil
}

// Config is the tls.Config to serve with: each handshake gets the one the
// files hold then.
func (r *TLSReloader) Config() *tls.Config {
	return &tls.Config{
		MinVersion: tls.VersionTLS12,
		NextProtos: nextProtos,
		GetConfigForClient: func(*tls.ClientHelloInfo) (*tls.Config, error) {
			return r.current(), nil
		},
	}
}

// Certificate is the leaf certificate served now.
func (r *TLSReloader) Certificate() *x509.Certificate {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.leaf
}

// Collectors are the reloader's series: snowidd_tls_reloads_total and
// snowidd_tls_certificate_not_after_seconds (when the served certificate
// expires), for a Server's Registry.
func (r *TLSReloader) Collectors() []prometheus.Collector {
	return []prometheus.Collector{r.reloads,
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Name: "snowidd_tls_certificate_not_after_seconds",
			Help: "When the certificate served expires, Unix seconds.",
		}, func() float64 { return float64(r.Certificate().NotAfter.Unix()) }),
	}
}

// nextProtos are the protocols offered by ALPN: HTTP/2, which gRPC needs,
// then HTTP/1.1.
var nextProtos = []string{"h2", "http/1.1"}

// current is the config for a handshake starting now, after loading the
// files if they changed.
func (r *TLSReloader) current() *tls.Config {
	cfg, leaf, changed, err := r.reload()
	if changed && r.report != nil {
		r.report(leaf, err)
	}
	return cfg
}

// reload loads the files if they changed and returns the config to serve;
// changed says whether they did, and err why they did not load.
func (r *TLSReloader) reload() (cfg *tls.Config, leaf *x509.Certificate, changed bool, err error) {
	c, err := r.files.read()
	r.mu.Lock()
	defer r.mu.Unlock()
	if err == nil && c.equal(r.served) {
		return r.cfg, r.leaf, false, nil
	}
	if err == nil {
		cfg, leaf, err = r.files.load(c)
	}
	if err == nil {
		err = r.files.checkNotCut(r.cfg, cfg)
	}
	if err != nil {
		// Reported once for the same contents and the same error, and
		// looked at again before the next handshake.
		msg := err.Error()
		if msg == r.refused && c.equal(r.refusedFiles) {
			return r.cfg, r.leaf, false, nil
		}
		r.refused, r.refusedFiles = msg, c
		r.reloads.WithLabelValues("refused").Inc()
		return r.cfg, nil, true, err
	}
	r.served, r.cfg, r.leaf = c, cfg, leaf
	r.refused, r.refusedFiles = "", fileContents{}
	r.reloads.WithLabelValues("loaded").Inc()
	return cfg, leaf, true, nil
}

// read reads the files.
func (f TLSFiles) read() (fileContents, error) {
	var c fileContents
	var err error
	if c.cert, err = os.ReadFile(f.Cert); err != nil {
		return c, fmt.Errorf("%w: certificate: %w", ErrTLSFiles, err)
	}
	if c.key, err = os.ReadFile(f.Key); err != nil {
		return c, fmt.Errorf("%w: key: %w", ErrTLSFiles, err)
	}
	if f.ClientCA != "" {
		if c.ca, err = os.ReadFile(f.ClientCA); err != nil {
			return c, fmt.Errorf("%w: client CA: %w", ErrTLSFiles, err)
		}
	}
	return c, nil
}

// load makes the config that serves c, refusing a file that is not whole
// PEM, a chain that does not link, and a certificate of the chain that is
// not valid now (by f.Now).
func (f TLSFiles) load(c fileContents) (*tls.Config, *x509.Certificate, error) {
	if _, err := wholePEM(c.cert); err != nil {
		return nil, nil, fmt.Errorf("%w: certificate %s: %w", ErrTLSFiles, f.Cert, err)
	}
	if _, err := wholePEM(c.key); err != nil {
		// The error names lines and block types, never what the key holds.
		return nil, nil, fmt.Errorf("%w: key %s: %w", ErrTLSFiles, f.Key, err)
	}
	pair, err := tls.X509KeyPair(c.cert, c.key)
	if err != nil {
		// The parse error says what is wrong, never what the key holds.
		return nil, nil, fmt.Errorf("%w: certificate %s and key %s: %w", ErrTLSFiles, f.Cert, f.Key, err)
	}
	chain, err := f.chain(pair)
	if err != nil {
		return nil, nil, err
	}
	if err := f.checkValidity(chain, f.Now()); err != nil {
		return nil, nil, err
	}
	cfg := &tls.Config{
		MinVersion:   tls.VersionTLS12,
		NextProtos:   nextProtos,
		Certificates: []tls.Certificate{pair},
	}
	if f.ClientCA != "" {
		pool, err := f.clientCAs(c.ca)
		if err != nil {
			return nil, nil, err
		}
		cfg.ClientCAs, cfg.ClientAuth = pool, tls.RequireAndVerifyClientCert
	}
	return cfg, pair.Leaf, nil
}

// chain parses the pair's certificates, the leaf first, and refuses a
// chain in which a certificate is not signed by the one after it: a
// client checks the chain by those links, and a certificate file whose
// chain does not link was not written whole, or not in order.
func (f TLSFiles) chain(pair tls.Certificate) ([]*x509.Certificate, error) {
	chain := make([]*x509.Certificate, len(pair.Certificate))
	for i, der := range pair.Certificate {
		if i == 0 && pair.Leaf != nil {
			chain[i] = pair.Leaf
			continue
		}
		cert, err := x509.ParseCertificate(der)
		if err != nil {
			return nil, fmt.Errorf("%w: certificate %s: certificate %d of the chain: %w", ErrTLSFiles, f.Cert, i+1, err)
		}
		chain[i] = cert
	}
	for i := 1; i < len(chain); i++ {
		if err := chain[i-1].CheckSignatureFrom(chain[i]); err != nil {
			return nil, fmt.Errorf("%w: certificate %s: certificate %d of the chain (%q) is not signed by certificate %d (%q): %w",
				ErrTLSFiles, f.Cert, i, chain[i-1].Subject.CommonName, i+1, chain[i].Subject.CommonName, err)
		}
	}
	return chain, nil
}

// clientCAs is the pool of the client CA file's certificates, each of
// which must parse (x509.CertPool's AppendCertsFromPEM passes over one
// that does not).
func (f TLSFiles) clientCAs(data []byte) (*x509.CertPool, error) {
	blocks, err := wholePEM(data)
	if err != nil && !errors.Is(err, errNoPEM) {
		return nil, fmt.Errorf("%w: client CA %s: %w", ErrTLSFiles, f.ClientCA, err)
	}
	pool := x509.NewCertPool()
	n := 0
	for _, b := range blocks {
		if b.Type != "CERTIFICATE" {
			continue
		}
		cert, err := x509.ParseCertificate(b.Bytes)
		if err != nil {
			return nil, fmt.Errorf("%w: client CA %s: certificate %d: %w", ErrTLSFiles, f.ClientCA, n+1, err)
		}
		pool.AddCert(cert)
		n++
	}
	if n == 0 {
		return nil, fmt.Errorf("%w: client CA %s holds no PEM certificate", ErrTLSFiles, f.ClientCA)
	}
	return pool, nil
}

// checkNotCut refuses a new certificate file that ends at a certificate
// signed by one the served chain carried and the new one does not: the
// file cut between two whole blocks, the rest of its chain not written
// yet (see TLSReloader). served is the config served so far.
func (f TLSFiles) checkNotCut(served, next *tls.Config) error {
	old, now := served.Certificates[0].Certificate, next.Certificates[0].Certificate
	top, err := x509.ParseCertificate(now[len(now)-1])
	if err != nil {
		return fmt.Errorf("%w: certificate %s: %w", ErrTLSFiles, f.Cert, err)
	}
	for _, der := range old[1:] {
		if slices.ContainsFunc(now, func(d []byte) bool { return bytes.Equal(d, der) }) {
			continue
		}
		signer, err := x509.ParseCertificate(der)
		if err != nil {
			continue // it was served: it parsed then
		}
		if top.CheckSignatureFrom(signer) == nil {
			return fmt.Errorf("%w: certificate %s ends with %q, signed by %q, which the chain served so far carries after it: the file looks cut short (write the whole chain; to stop sending %q, restart)",
				ErrTLSFiles, f.Cert, top.Subject.CommonName, signer.Subject.CommonName, signer.Subject.CommonName)
		}
	}
	return nil
}

// wholePEM decodes data as PEM that was written whole: every block from
// its BEGIN line to its END line, and nothing but space after the last
// one. Text before a block is allowed (openssl writes a certificate's
// subject and issuer there). encoding/pem alone passes over a block that
// does not decode and ignores what follows the last one that does, so a
// file cut short inside a block, or inside the text before one, decodes
// as the blocks before the cut. Errors name lines and block types, never
// a block's content (the key file's is a secret).
func wholePEM(data []byte) ([]*pem.Block, error) {
	var blocks []*pem.Block
	begin := []byte("-----BEGIN ")
	rest := data
	for {
		at := bytes.Index(rest, begin)
		if at < 0 {
			break
		}
		from := rest[at:]
		block, after := pem.Decode(from)
		// The block decoded must be the one at this BEGIN: pem.Decode
		// passes over one that does not decode to the next that does.
		if block == nil || bytes.Contains(from[1:len(from)-len(after)], begin) {
			return nil, fmt.Errorf("the PEM block at line %d is cut short or malformed", line(data, rest[at:]))
		}
		blocks = append(blocks, block)
		rest = after
	}
	if len(blocks) == 0 {
		return nil, errNoPEM
	}
	if t := bytes.TrimLeftFunc(rest, unicode.IsSpace); len(t) > 0 {
		return nil, fmt.Errorf("text after the last PEM block, at line %d: the file is cut short or has trailing data", line(data, t))
	}
	return blocks, nil
}

// errNoPEM is wholePEM's error for data without a PEM block.
var errNoPEM = errors.New("holds no PEM block")

// line is the line of data at which its tail sub begins.
func line(data, sub []byte) int {
	return bytes.Count(data[:len(data)-len(sub)], []byte("\n")) + 1
}

// checkValidity refuses a chain with a certificate, the leaf or one
// after it, that is not valid at now: NotBefore <= now < NotAfter. A
// client refuses such a chain in every handshake, so serving the previous
// pair instead loses nothing.
func (f TLSFiles) checkValidity(chain []*x509.Certificate, now time.Time) error {
	for i, cert := range chain {
		which := "the certificate"
		if i > 0 {
			which = fmt.Sprintf("certificate %d of the chain", i+1)
		}
		// The message leaves the clock out: the same files refused again
		// are reported once, by their message.
		switch {
		case now.Before(cert.NotBefore):
			return fmt.Errorf("%w: certificate %s: %s (%q, serial %x) is not valid before %s",
				ErrTLSFiles, f.Cert, which, cert.Subject.CommonName, cert.SerialNumber, cert.NotBefore.UTC().Format(time.RFC3339))
		case !now.Before(cert.NotAfter):
			return fmt.Errorf("%w: certificate %s: %s (%q, serial %x) expired at %s",
				ErrTLSFiles, f.Cert, which, cert.Subject.CommonName, cert.SerialNumber, cert.NotAfter.UTC().Format(time.RFC3339))
		}
	}
	return nil
}

// NewTLSListener is NewListener's coalescing listener with TLS over it,
// configured by cfg (a TLSReloader's Config): serve it with an
// http.Server of NewHTTPServer whose Limits.TLS is set. The coalescing is
// below TLS, on the encrypted records: an HTTP/2 answer's frames then
// leave as several TLS records in one system call, where the system calls
// were the cost (one per frame). Coalescing above TLS would also save the
// records' headers and seals, a few dozen bytes and well under a
// microsecond each, but would hide the *tls.Conn that net/http needs to
// negotiate HTTP/2 by ALPN.
func NewTLSListener(ln net.Listener, cfg *tls.Config) net.Listener {
	return tls.NewListener(NewListener(ln), cfg)
}
