package k8slease

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/snowlab/snowlab/nodeid"
)

// ErrNoConfig: neither an in-cluster service account nor a kubeconfig.
var ErrNoConfig = errors.New("k8slease: no Kubernetes client configuration")

// requestTimeout bounds each request, so that an API server that accepts
// connections but does not answer is an error rather than a hang.
const requestTimeout = 10 * time.Second

// RestConfig finds the API server and credentials: the kubeconfig file
// when one is named; else the pod's service account (in-cluster: the
// KUBERNETES_SERVICE_HOST variables and
// /var/run/secrets/kubernetes.io/serviceaccount); else $KUBECONFIG (a
// list of files, as kubectl reads it), else ~/.kube/config, with its
// current context. Requests time out after 10 s, and the client's rate
// limit is raised to 50 per second (burst 100) from client-go's 5: a
// fleet's claims at start are short bursts of list and update.
func RestConfig(kubeconfig string) (*rest.Config, error) {
	var cfg *rest.Config
	var err error
	switch {
	case kubeconfig != "":
		cfg, err = clientcmd.BuildConfigFromFlags("", kubeconfig)
	default:
		if cfg, err = rest.InClusterConfig(); err == nil {
			break
		}
		rules := clientcmd.NewDefaultClientConfigLoadingRules()
		cfg, err = clientcmd.NewNonInteractiveDeferredLoadingClientConfig(rules, &clientcmd.ConfigOverrides{}).ClientConfig()
	}
	if err != nil {
		return nil, fmt.Errorf("%w: %s", ErrNoConfig, noConfig(kubeconfig, err))
	}
	cfg.Timeout = requestTimeout
	cfg.QPS, cfg.Burst = 50, 100
	return cfg, nil
}

// noConfig says where RestConfig looked for a configuration, which err
// refused. It names what the caller can change, the file it named or
// $KUBECONFIG, and never a flag: commands name their own (snowid and
// snowidd have no -kubeconfig), and client-go's word for an empty
// configuration sends the reader to KUBERNETES_MASTER, which nothing here
// reads.
func noConfig(kubeconfig string, err error) string {
	empty := clientcmd.IsEmptyConfig(err)
	switch env := os.Getenv(clientcmd.RecommendedConfigPathEnvVar); {
	case kubeconfig != "":
		return fmt.Sprintf("the kubeconfig %q: %v", kubeconfig, err)
	case env != "" && empty:
		return fmt.Sprintf("not in a pod, and $KUBECONFIG (%s) names no kubeconfig", env)
	case env != "":
		return fmt.Sprintf("not in a pod, and the kubeconfig $KUBECONFIG names (%s) is not usable: %v", env, err)
	case empty:
		return fmt.Sprintf("not in a pod, $KUBECONFIG is not set, and there is no %s", clientcmd.RecommendedHomeFile)
	}
	return fmt.Sprintf("not in a pod, and %s is not usable: %v", clientcmd.RecommendedHomeFile, err)
}

// Dial returns a Store (as New) on the cluster RestConfig(kubeconfig)
// finds. It does not reach the API server: one that is not there is the
// first Acquire's error. Close the store when done.
func Dial(kubeconfig, namespace, prefix string, ttl time.Duration) (*Store, error) {
	if prefix == "" {
		prefix = DefaultPrefix
	}
	if err := checkNames(namespace, prefix); err != nil {
		return nil, err
	}
	cfg, err := RestConfig(kubeconfig)
	if err != nil {
		return nil, err
	}
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrNoConfig, err)
	}
	return New(cs, namespace, prefix, ttl)
}

// Opener returns the nodeid.Opener for "k8s:" lease specs:
// "k8s:NAMESPACE[/PREFIX]", Leases PREFIX-N (DefaultPrefix when none) in
// NAMESPACE: k8s:default/snowidd. The store is Dial's with no kubeconfig
// named (in-cluster, then $KUBECONFIG, then ~/.kube/config); its Leases
// last ttl. Pass it to nodeid.OpenStore as extra["k8s"]. Its error is a
// spec that does not parse or no configuration; an API server that is not
// there is the store's Acquire's error. The store stays open for the life
// of the process.
func Opener(ttl time.Duration) nodeid.Opener { return OpenerWith(ttl, "") }

// OpenerWith is Opener with the kubeconfig file named (none: as Opener).
func OpenerWith(ttl time.Duration, kubeconfig string) nodeid.Opener {
	return nodeid.OpenerFunc(func(rest string) (nodeid.Store, error) {
		ns, prefix, err := parseSpec(rest)
		if err != nil {
			return nil, err
		}
		return Dial(kubeconfig, ns, prefix, ttl)
	})
}

// parseSpec splits "NAMESPACE[/PREFIX]".
func parseSpec(rest string) (ns, prefix string, err error) {
	ns, prefix, _ = strings.Cut(rest, "/")
	if prefix == "" {
		prefix = DefaultPrefix
	}
	if err := checkNames(ns, prefix); err != nil {
		return "", "", fmt.Errorf("%w (want NAMESPACE/PREFIX, e.g. default/snowidd)", err)
	}
	return ns, prefix, nil
}
