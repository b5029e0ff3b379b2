package faults

import (
	"context"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/hex"
	"encoding/pem"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	typedcoordinationv1 "k8s.io/client-go/kubernetes/typed/coordination/v1"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
	"k8s.io/utils/ptr"
)

// kubeVersion is the kube-apiserver scripts/kube-apiserver.sh builds and
// caches; the k8s scenarios run on that binary.
const kubeVersion = "v1.37.2"

// kubeNamespace is the namespace of the k8s scenarios' Leases.
const kubeNamespace = "default"

// kubeAPIServerBin is the kube-apiserver binary: $SNOWLAB_KUBE_APISERVER,
// else where scripts/kube-apiserver.sh caches it (outside the checkout,
// keyed by version).
func kubeAPIServerBin() string {
	if p := os.Getenv("SNOWLAB_KUBE_APISERVER"); p != "" {
		return p
	}
	cache := os.Getenv("SNOWLAB_CACHE")
	if cache == "" {
		base, _ := os.UserCacheDir() // $XDG_CACHE_HOME, else ~/.cache, as the script has it
		cache = filepath.Join(base, "snowlab")
	}
	return filepath.Join(cache, "kube-apiserver-"+kubeVersion, "kube-apiserver")
}

// kubeMissing says why a kube-apiserver cannot run here, or "".
func kubeMissing() string {
	bin := kubeAPIServerBin()
	if _, err := exec.LookPath(bin); err != nil {
		return fmt.Sprintf("needs kube-apiserver %s (scripts/kube-apiserver.sh build, about 13 CPU-minutes once; or $SNOWLAB_KUBE_APISERVER): no %s", kubeVersion, bin)
	}
	return ""
}

// kubeAPI is a kube-apiserver on a loopback port over an etcd of its own,
// the store of the k8s scenarios: what scripts/kube-apiserver.sh starts,
// started by the rig so that it lives and dies with the scenario. Its
// one user, in system:masters, holds a bearer token; it serves TLS with
// a certificate of the rig's throwaway CA (certs), for 127.0.0.1.
type kubeAPI struct {
	addr  string // 127.0.0.1:PORT
	token string
	ca    string // the CA's certificate file
	etcd  *cluster
	*process
	leases typedcoordinationv1.LeaseInterface // the scenarios' namespace's
	seen   map[string]seen                    // by Lease: its version and when the lab first saw it
}

// seen is a Lease's resourceVersion and when the lab first read it.
type seen struct {
	rv string
	at time.Time
}

// startKube starts an etcd and a kube-apiserver on it under dir, and
// waits (120 s at most: it takes 4 to 20 s on 2 loaded cores) for its
// /readyz.
func startKube(dir, etcdBin string) (_ *kubeAPI, err error) {
	dir = filepath.Join(dir, "kube")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	c, err := startClusterRetrying(clusterConfig{Bin: etcdBin, Members: 1, Dir: dir})
	if err != nil {
		return nil, err
	}
	defer func() {
		if err != nil {
			c.Stop()
		}
	}()
	k := &kubeAPI{etcd: c, seen: map[string]seen{}}
	// The token file, the certificates and the service-account key; then
	// the server, on a free port.
	ct, err := newCerts(dir)
	if err != nil {
		return nil, err
	}
	k.ca = ct.CA
	b := make([]byte, 16)
	if _, err := rand.Read(b); err != nil {
		return nil, err
	}
	k.token = hex.EncodeToString(b)
	tokens := filepath.Join(dir, "tokens.csv")
	if err := os.WriteFile(tokens, []byte(k.token+`,snowlab-admin,snowlab-admin,"system:masters"`+"\n"), 0o600); err != nil {
		return nil, err
	}
	// The service-account key signs tokens and, the public half read
	// from the same file, verifies them: the kube-apiserver reads an RSA
	// private key as a public one, not a PKCS #8 EC key (tlstest's).
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		return nil, err
	}
	saKey := filepath.Join(dir, "sa.key")
	if err := os.WriteFile(saKey, pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(key)}), 0o600); err != nil {
		return nil, err
	}
	ports, err := freePorts(1)
	if err != nil {
		return nil, err
	}
	k.addr = "127.0.0.1:" + strconv.Itoa(ports[0])
	k.process = newProcess("kube-apiserver", 32<<10, kubeAPIServerBin(), "--etcd-servers="+k.etcd.Endpoints()[0], "--token-auth-file="+tokens,
		"--authorization-mode=RBAC", "--secure-port="+strconv.Itoa(ports[0]), "--bind-address=127.0.0.1",
		"--advertise-address=127.0.0.1", "--endpoint-reconciler-type=none",
		"--service-account-issuer=https://kubernetes.default.svc", "--service-account-key-file="+saKey,
		"--service-account-signing-key-file="+saKey, "--tls-cert-file="+ct.Cert, "--tls-private-key-file="+ct.Key,
		"--cert-dir="+filepath.Join(dir, "certs"), "--service-cluster-ip-range=10.96.0.0/24")
	// The lab reads a Lease every 50 ms while it waits for one to
	// expire: no client-side rate limit (QPS < 0).
	cs, err := kubernetes.NewForConfig(&rest.Config{Host: "https://" + k.addr, BearerToken: k.token, Timeout: 2 * time.Second, QPS: -1,
		TLSClientConfig: rest.TLSClientConfig{CAFile: ct.CA}})
	if err != nil {
		return nil, err
	}
	k.leases = cs.CoordinationV1().Leases(kubeNamespace)
	err = k.serve(120*time.Second, 100*time.Millisecond, func() bool {
		return cs.Discovery().RESTClient().Get().AbsPath("/readyz").Do(context.Background()).Error() == nil
	})
	return k, err
}

// Stop ends the server (SIGTERM, SIGKILL after 5 s), then its etcd.
func (k *kubeAPI) Stop() {
	k.stop(5 * time.Second)
	k.etcd.Stop()
}

// leaseName is node id n's Lease in scenario: PREFIX-N (kubePrefix).
func leaseName(scenario string, n int) string { return kubePrefix(scenario) + "-" + strconv.Itoa(n) }

// lease is a k8s scenario's replicas' -lease: the link is in the
// replica's KUBECONFIG (storeEnv), not in it.
func (k *kubeAPI) lease(scenario string, _ []string) string {
	return "k8s:" + kubeNamespace + "/" + kubePrefix(scenario)
}

func (k *kubeAPI) Logs() string { return k.logs(32<<10) + "\n" + k.etcd.Logs() }

// held reports whether node id n is held as the Lease API defines it,
// judged by the lab as a claimant would (k8slease's observer): a holder
// named, and the Lease seen changed within its leaseDurationSeconds, on
// the lab's clock, from when the lab first read its current version. The
// API server expires nothing.
func (k *kubeAPI) held(ctx context.Context, scenario string, n int) (bool, error) {
	name := leaseName(scenario, n)
	l, err := k.leases.Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return false, err
	}
	if ptr.Deref(l.Spec.HolderIdentity, "") == "" {
		return false, nil
	}
	now := time.Now()
	if e, ok := k.seen[name]; !ok || e.rv != l.ResourceVersion {
		k.seen[name] = seen{l.ResourceVersion, now}
	}
	return now.Sub(k.seen[name].at) < time.Duration(ptr.Deref(l.Spec.LeaseDurationSeconds, 0))*time.Second, nil
}

// reserved is node id n's reserved-until, the Lease's
// snowlab.io/reserved-until annotation (k8slease.ReservedAnnotation).
func (k *kubeAPI) reserved(ctx context.Context, scenario string, n int) (time.Time, error) {
	l, err := k.leases.Get(ctx, leaseName(scenario, n), metav1.GetOptions{})
	if err != nil {
		return time.Time{}, fmt.Errorf("reading node id %d's Lease: %v", n, err)
	}
	v := l.Annotations["snowlab.io/reserved-until"]
	ns, err := strconv.ParseInt(v, 10, 64)
	if err != nil {
		return time.Time{}, fmt.Errorf("node id %d's reservation %q: %v", n, v, err)
	}
	return time.Unix(0, ns), nil
}

// kubeconfig writes replica r's kubeconfig: the server is r's link to the
// kube-apiserver, https://127.0.0.1:LINKPORT. TLS is verified against the
// rig's CA (no insecure-skip-verify): the link relays
// bytes, and the certificate names 127.0.0.1, the address dialled, so
// no tls-server-name is needed either.
func (k *kubeAPI) kubeconfig(dir string, r int, link string) (string, error) {
	u, err := url.Parse(link)
	if err != nil {
		return "", err
	}
	p := filepath.Join(dir, fmt.Sprintf("r%d.kubeconfig", r))
	return p, clientcmd.WriteToFile(clientcmdapi.Config{
		Clusters:       map[string]*clientcmdapi.Cluster{"faults": {Server: "https://" + u.Host, CertificateAuthority: k.ca}},
		AuthInfos:      map[string]*clientcmdapi.AuthInfo{"snowlab-admin": {Token: k.token}},
		Contexts:       map[string]*clientcmdapi.Context{"faults": {Cluster: "faults", AuthInfo: "snowlab-admin", Namespace: kubeNamespace}},
		CurrentContext: "faults",
	}, p)
}

// kubePrefix is the Lease name prefix of a k8s scenario's replicas.
func kubePrefix(scenario string) string { return "faults-" + scenario }

// storeEnv is replica r's environment for the store: in a k8s scenario,
// KUBECONFIG naming r's link to the kube-apiserver.
func (s *stage) storeEnv(r int) ([]string, error) {
	kube, ok := s.store.(*kubeAPI)
	if !ok {
		return nil, nil
	}
	eps, err := s.links.For(r)
	if err != nil {
		return nil, err
	}
	p, err := kube.kubeconfig(s.dir, r, eps[0])
	if err != nil {
		return nil, err
	}
	return []string{"KUBECONFIG=" + p}, nil
}

// kubeLayout is replica-cut-off-k8s's layout: 4 node ids, all held by its
// 4 replicas. The Lease API expires nothing: a successor takes a Lease
// only once it has itself seen it unchanged for its duration, counted
// from when it started watching, so a successor started with an id free
// would take that one at once; with none free it waits (snowidd asks the
// store again, 100 ms to 2 s apart) and takes the cut-off replica's.
const kubeLayout = "41/2/20"

// makeRoom, before the cut-off replica is healed, lets it find a node id
// to take in place of its own, now the successor's: in a k8s scenario,
// whose layout its replicas fill, the last replica stops (SIGTERM), which
// releases its Lease. Other stores have ids to spare.
func (s *stage) makeRoom() error {
	if s.sc.Store != "k8s" {
		return nil
	}
	last := len(s.sc.Replicas) - 1
	k, err := s.reps[last].Node()
	if err != nil {
		return err
	}
	s.role(last, "stopped before the heal, releasing its node id for the cut-off replica")
	if err := s.reps[last].Stop(); err != nil {
		return err
	}
	s.mark("r%d stopped (SIGTERM), releasing node id %d: the one the cut-off replica can take when healed", last, k)
	return nil
}
