package leasespec_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/snowlab/snowlab/snowidd/leasespec"
)

// Every store listed is opened, and every store opened is listed: the
// openers are the extra map of nodeid.OpenStore, which opens dir: itself.
func TestOpenersMatchStores(t *testing.T) {
	var listed []string
	for _, s := range leasespec.Stores() {
		assert.True(t, strings.HasPrefix(s.Form, s.Name+":"), "%s's form %q starts with its scheme", s.Name, s.Form)
		assert.NotEmpty(t, s.Store, s.Name)
		assert.NotEmpty(t, s.What, s.Name)
		if s.Name != "dir" {
			listed = append(listed, s.Name)
		}
	}
	var opened []string
	for name := range leasespec.Openers(0, nil) {
		opened = append(opened, name)
	}
	slices.Sort(listed)
	slices.Sort(opened)
	assert.Equal(t, listed, opened)
}

func ExampleHelp() {
	fmt.Println(leasespec.Forms(leasespec.Stores()))
	fmt.Println(leasespec.Names(leasespec.Stores()))
	fmt.Println(leasespec.Expiring(leasespec.Stores()))
	// Output:
	// dir:PATH, etcd:HOST:PORT/PREFIX, pg:DSN, k8s:NAMESPACE/PREFIX or zk:HOST:PORT[,...]/PATH
	// dir:, etcd:, pg:, k8s:, zk:
	// etcd:, pg:, k8s: and zk:
}
