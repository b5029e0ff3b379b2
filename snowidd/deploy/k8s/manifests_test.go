// Package k8s holds the example manifests for snowidd on Kubernetes
// (snowidd.yaml) and the test that a real API server accepts them.
package k8s

import (
	"bytes"
	"context"
	"os"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"sigs.k8s.io/yaml"

	"github.com/snowlab/snowlab/k8slease"
)

// resources maps the manifests' kinds to their API resources.
var resources = map[string]schema.GroupVersionResource{
	"ServiceAccount": {Version: "v1", Resource: "serviceaccounts"},
	"Service":        {Version: "v1", Resource: "services"},
	"Role":           {Group: "rbac.authorization.k8s.io", Version: "v1", Resource: "roles"},
	"RoleBinding":    {Group: "rbac.authorization.k8s.io", Version: "v1", Resource: "rolebindings"},
	"StatefulSet":    {Group: "apps", Version: "v1", Resource: "statefulsets"},
}

// TestDeployManifests: the kube-apiserver $KUBECONFIG names
// (scripts/kube-apiserver.sh) accepts every object of snowidd.yaml in a
// server-side dry run (?dryRun=All: validated and admitted, not stored).
// Without KUBECONFIG it skips, or fails under SNOWLAB_REQUIRE_K8S=1.
func TestDeployManifests(t *testing.T) {
	objs := manifests(t)
	kc := os.Getenv("KUBECONFIG")
	if kc == "" {
		if os.Getenv("SNOWLAB_REQUIRE_K8S") == "1" {
			t.Fatal("SNOWLAB_REQUIRE_K8S=1 but KUBECONFIG is not set")
		}
		t.Skip(`no KUBECONFIG: eval "$(scripts/kube-apiserver.sh start)"; make test-k8s`)
	}
	cfg, err := k8slease.RestConfig(kc)
	if err != nil {
		t.Fatal(err)
	}
	dc, err := dynamic.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for _, o := range objs {
		_, err := dc.Resource(resources[o.GetKind()]).Namespace("default").Create(ctx, o, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
		if err != nil {
			t.Errorf("%s %s: the server refused it: %v", o.GetKind(), o.GetName(), err)
		}
	}
}

// manifests reads snowidd.yaml's objects, and fails t on a kind the test
// does not map or on a file with none of the five kinds it should hold.
func manifests(t *testing.T) []*unstructured.Unstructured {
	t.Helper()
	b, err := os.ReadFile("snowidd.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var out []*unstructured.Unstructured
	for _, doc := range bytes.Split(b, []byte("\n---\n")) {
		if strings.TrimSpace(string(doc)) == "" {
			continue
		}
		o := &unstructured.Unstructured{}
		if err := yaml.Unmarshal(doc, &o.Object); err != nil {
			t.Fatalf("snowidd.yaml: %v", err)
		}
		if _, ok := resources[o.GetKind()]; !ok {
			t.Fatalf("snowidd.yaml: kind %q is not one the test maps to a resource", o.GetKind())
		}
		out = append(out, o)
	}
	if len(out) != len(resources) {
		t.Fatalf("snowidd.yaml holds %d objects, want one of each of %d kinds", len(out), len(resources))
	}
	return out
}
