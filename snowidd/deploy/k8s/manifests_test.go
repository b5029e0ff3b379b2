// Package k8s holds the manifests for snowidd on Kubernetes (snowidd.yaml,
// and kustomization.yaml, which pins the image make image built by its
// digest) and the tests that what `kubectl apply -k` deploys is pinned and
// that a real API server accepts it.
package k8s

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"sigs.k8s.io/yaml"

	"github.com/snowlab/snowlab/k8slease"
	"github.com/snowlab/snowlab/snowidd/internal/testend"
)

// resources maps the manifests' kinds to their API resources.
var resources = map[string]schema.GroupVersionResource{
	"ServiceAccount": {Version: "v1", Resource: "serviceaccounts"},
	"Service":        {Version: "v1", Resource: "services"},
	"Role":           {Group: "rbac.authorization.k8s.io", Version: "v1", Resource: "roles"},
	"RoleBinding":    {Group: "rbac.authorization.k8s.io", Version: "v1", Resource: "rolebindings"},
	"StatefulSet":    {Group: "apps", Version: "v1", Resource: "statefulsets"},
}

// pinned is an image reference pinned by digest alone: a repository, no
// tag, @sha256: and 64 hex digits.
var pinned = regexp.MustCompile(`^[a-z0-9][a-z0-9._/:-]*/[a-z0-9._-]+@sha256:[0-9a-f]{64}$`)

// TestManifestsPinned: what kubectl apply -k deploys (kustomize build of
// this folder) runs every container from an image pinned by digest, sets
// no namespace on any object (kubectl's -n picks it; the RoleBinding's
// subject, without one, is the ServiceAccount of the binding's own
// namespace) and governs the StatefulSet with a headless Service, which
// gives each pod its DNS name.
func TestManifestsPinned(t *testing.T) {
	objs := manifests(t)
	for _, o := range objs {
		if ns := o.GetNamespace(); ns != "" {
			t.Errorf("%s %s is pinned to namespace %q: kubectl -n could not move it", o.GetKind(), o.GetName(), ns)
		}
	}
	sts := only(t, objs, "StatefulSet")
	containers, _, err := unstructured.NestedSlice(sts.Object, "spec", "template", "spec", "containers")
	if err != nil || len(containers) == 0 {
		t.Fatalf("StatefulSet %s: no containers (%v)", sts.GetName(), err)
	}
	for _, c := range containers {
		image, _, _ := unstructured.NestedString(c.(map[string]any), "image")
		if !pinned.MatchString(image) {
			t.Errorf("container image %q is not pinned by digest (want REPOSITORY@sha256:HEX, no tag)", image)
		}
	}
	governing, _, _ := unstructured.NestedString(sts.Object, "spec", "serviceName")
	found := false
	for _, o := range objs {
		if o.GetKind() == "Service" && o.GetName() == governing {
			found = true
			if ip, _, _ := unstructured.NestedString(o.Object, "spec", "clusterIP"); ip != "None" {
				t.Errorf("Service %s governs the StatefulSet but is not headless (clusterIP %q, want None)", governing, ip)
			}
		}
	}
	if !found {
		t.Errorf("the StatefulSet's serviceName %q names no Service of the manifests", governing)
	}
	rb := only(t, objs, "RoleBinding")
	subjects, _, _ := unstructured.NestedSlice(rb.Object, "subjects")
	for _, s := range subjects {
		if ns, ok := s.(map[string]any)["namespace"]; ok {
			t.Errorf("RoleBinding %s: subject %v names namespace %v: in any other namespace the pods could not take their Leases", rb.GetName(), s, ns)
		}
	}
}

// testNamespace is where TestDeployManifests applies the manifests: not
// "default", so that an object or subject tied to default shows.
const testNamespace = "snowidd-manifests"

// TestDeployManifests: the kube-apiserver $KUBECONFIG names
// (scripts/kube-apiserver.sh) accepts every object kustomize renders in a
// server-side dry run (?dryRun=All: validated and admitted, not stored),
// in a namespace other than default; and with the Role and RoleBinding
// created there, RBAC lets that namespace's ServiceAccount snowidd update
// Leases there, and the one of the same name in default not.
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
	ctx := testend.Context(t)
	ns := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "Namespace", "metadata": map[string]any{"name": testNamespace}}}
	if _, err := dc.Resource(schema.GroupVersionResource{Version: "v1", Resource: "namespaces"}).Create(ctx, ns, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatal(err)
	}
	// The Role and RoleBinding an earlier run left (they are created
	// below) would make the dry run's create say AlreadyExists.
	rbac := []*unstructured.Unstructured{only(t, objs, "Role"), only(t, objs, "RoleBinding")}
	remove := func() {
		for _, o := range rbac {
			err := dc.Resource(resources[o.GetKind()]).Namespace(testNamespace).Delete(context.Background(), o.GetName(), metav1.DeleteOptions{})
			if err != nil && !apierrors.IsNotFound(err) {
				t.Error(err)
			}
		}
	}
	remove()
	t.Cleanup(remove)
	for _, o := range objs {
		_, err := dc.Resource(resources[o.GetKind()]).Namespace(testNamespace).Create(ctx, o, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
		if err != nil {
			t.Errorf("%s %s: the server refused it: %v", o.GetKind(), o.GetName(), err)
		}
	}
	for _, o := range rbac {
		if _, err := dc.Resource(resources[o.GetKind()]).Namespace(testNamespace).Create(ctx, o, metav1.CreateOptions{}); err != nil {
			t.Fatalf("%s %s: %v", o.GetKind(), o.GetName(), err)
		}
	}
	sa := only(t, objs, "ServiceAccount").GetName()
	for _, c := range []struct {
		saNamespace string
		want        bool
	}{{testNamespace, true}, {"default", false}} {
		user := fmt.Sprintf("system:serviceaccount:%s:%s", c.saNamespace, sa)
		allowed, err := mayUpdateLeases(ctx, dc, user)
		if err != nil {
			t.Fatal(err)
		}
		if allowed != c.want {
			t.Errorf("%s may update Leases in %s: %v, want %v", user, testNamespace, allowed, c.want)
		}
	}
}

// mayUpdateLeases asks the API server (a SubjectAccessReview) whether user
// may update Leases in testNamespace.
func mayUpdateLeases(ctx context.Context, dc dynamic.Interface, user string) (bool, error) {
	sar := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "authorization.k8s.io/v1",
		"kind":       "SubjectAccessReview",
		"spec": map[string]any{
			"user":   user,
			"groups": []any{"system:serviceaccounts", "system:authenticated"},
			"resourceAttributes": map[string]any{
				"namespace": testNamespace, "verb": "update", "group": "coordination.k8s.io", "resource": "leases",
			},
		},
	}}
	got, err := dc.Resource(schema.GroupVersionResource{Group: "authorization.k8s.io", Version: "v1", Resource: "subjectaccessreviews"}).
		Create(ctx, sar, metav1.CreateOptions{})
	if err != nil {
		return false, err
	}
	allowed, _, err := unstructured.NestedBool(got.Object, "status", "allowed")
	return allowed, err
}

// only returns the one object of kind in objs, failing t unless there is
// exactly one.
func only(t *testing.T, objs []*unstructured.Unstructured, kind string) *unstructured.Unstructured {
	t.Helper()
	var out []*unstructured.Unstructured
	for _, o := range objs {
		if o.GetKind() == kind {
			out = append(out, o)
		}
	}
	if len(out) != 1 {
		t.Fatalf("the manifests hold %d objects of kind %s, want 1", len(out), kind)
	}
	return out[0]
}

// manifests returns what kustomize renders from this folder, as kubectl
// apply -k would apply it: kustomize v5, a Go tool of snowidd/tools.mod,
// run outside the workspace (which -modfile cannot be used in). It fails t
// on a kind the tests do not map to a resource, and on a missing kind.
func manifests(t *testing.T) []*unstructured.Unstructured {
	t.Helper()
	modfile, err := filepath.Abs(filepath.Join("..", "..", "tools.mod"))
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("go", "tool", "-modfile="+modfile, "kustomize", "build", ".")
	cmd.Env = append(os.Environ(), "GOWORK=off")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	b, err := cmd.Output()
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			t.Fatalf("kustomize build: %v\n%s", err, stderr.String())
		}
		t.Fatalf("go tool kustomize: %v", err)
	}
	var out []*unstructured.Unstructured
	kinds := map[string]bool{}
	for _, doc := range bytes.Split(b, []byte("\n---\n")) {
		if strings.TrimSpace(string(doc)) == "" {
			continue
		}
		o := &unstructured.Unstructured{}
		if err := yaml.Unmarshal(doc, &o.Object); err != nil {
			t.Fatalf("kustomize build: %v", err)
		}
		if _, ok := resources[o.GetKind()]; !ok {
			t.Fatalf("kustomize build: kind %q is not one the tests map to a resource", o.GetKind())
		}
		kinds[o.GetKind()] = true
		out = append(out, o)
	}
	if len(kinds) != len(resources) {
		t.Fatalf("kustomize build: %d kinds of object, want the %d the tests map", len(kinds), len(resources))
	}
	return out
}
