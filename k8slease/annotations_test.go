package k8slease

import (
	"errors"
	"strings"
	"testing"

	coordv1 "k8s.io/api/coordination/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TestAnnotations: a Lease's reserved-until and token are read as written,
// a missing reserved-until (a holder that never reserved) is 0, and a
// Lease this version did not write so is ErrCorrupt naming it, never a
// reservation of 0.
func TestAnnotations(t *testing.T) {
	lease := func(ann map[string]string) *coordv1.Lease {
		return &coordv1.Lease{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "snowlab-4", Annotations: ann}}
	}
	for _, tc := range []struct {
		ann             map[string]string
		reserved, token int64
	}{
		{map[string]string{ReservedAnnotation: "1893456000000000000", TokenAnnotation: "3"}, 1893456000000000000, 3},
		{map[string]string{TokenAnnotation: "3"}, 0, 3},
	} {
		r, tok, err := annotations(lease(tc.ann))
		if err != nil || r != tc.reserved || tok != tc.token {
			t.Errorf("annotations(%v) = %d, %d, %v; want %d, %d", tc.ann, r, tok, err, tc.reserved, tc.token)
		}
	}
	for _, ann := range []map[string]string{
		{ReservedAnnotation: "1893456000000000000"},                                  // no token: not this version's
		{"snowlab.io/reserved-until-ns": "1893456000000000000", TokenAnnotation: ""}, // a token that is no number
		{ReservedAnnotation: "1893456000000000000 ", TokenAnnotation: "3"},
		{ReservedAnnotation: "2030-01-01T00:00:00Z", TokenAnnotation: "3"},
		{ReservedAnnotation: "1", TokenAnnotation: "-3"},
		nil,
	} {
		r, tok, err := annotations(lease(ann))
		if !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), "Lease ns/snowlab-4") {
			t.Errorf("annotations(%v) = %d, %d, %v; want ErrCorrupt naming Lease ns/snowlab-4", ann, r, tok, err)
		}
	}
}
