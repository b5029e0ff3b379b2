package nodeid

import (
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/snowlab/snowlab"
)

// Static checks n against layout (the zero Layout is the default) and
// returns it. It is not a lease: nothing stops a second process from using
// the same id, so it suits a fleet whose ids are assigned by hand or by a
// deployment system that guarantees one holder each.
func Static(n int, layout snowlab.Layout) (int, error) {
	l := layout.OrDefault()
	if n < 0 || n > l.MaxNode() {
		return 0, fmt.Errorf("%w: node %d, want 0..%d", snowlab.ErrInvalidNode, n, l.MaxNode())
	}
	return n, nil
}

// FromEnv reads a node id from the environment variable name, as Static.
func FromEnv(name string, layout snowlab.Layout) (int, error) {
	v, ok := os.LookupEnv(name)
	if !ok {
		return 0, fmt.Errorf("%w: $%s is not set", snowlab.ErrInvalidNode, name)
	}
	n, err := strconv.Atoi(strings.TrimSpace(v))
	if err != nil {
		return 0, fmt.Errorf("%w: $%s=%q is not a number", snowlab.ErrInvalidNode, name, v)
	}
	id, err := Static(n, layout)
	if err != nil {
		return 0, fmt.Errorf("$%s: %w", name, err)
	}
	return id, nil
}

// PodIndexEnv is the variable Ordinal reads first: set it from the pod's
// apps.kubernetes.io/pod-index label through the downward API.
const PodIndexEnv = "POD_INDEX"

// Ordinal returns the Kubernetes StatefulSet ordinal plus offset: the
// pod-index label when exposed as $POD_INDEX, else the N of a "name-N"
// hostname (os.Hostname when hostname is ""). It is not a lease: after a
// forced delete, or during a node partition, two pods can briefly share an
// ordinal, and nothing here notices. Use Dir or etcdlease where that
// matters.
func Ordinal(hostname string, offset int, layout snowlab.Layout) (int, error) {
	if v, ok := os.LookupEnv(PodIndexEnv); ok {
		n, err := strconv.Atoi(strings.TrimSpace(v))
		if err != nil || n < 0 {
			return 0, fmt.Errorf("%w: $%s=%q is not an ordinal", snowlab.ErrInvalidNode, PodIndexEnv, v)
		}
		return Static(n+offset, layout)
	}
	if hostname == "" {
		h, err := os.Hostname()
		if err != nil {
			return 0, fmt.Errorf("%w: no hostname: %v", snowlab.ErrInvalidNode, err)
		}
		hostname = h
	}
	name := strings.SplitN(hostname, ".", 2)[0]
	i := strings.LastIndexByte(name, '-')
	if i < 0 || i == len(name)-1 {
		return 0, fmt.Errorf("%w: hostname %q is not a StatefulSet pod name (name-N)", snowlab.ErrInvalidNode, hostname)
	}
	n, err := strconv.Atoi(name[i+1:])
	if err != nil || n < 0 || name[i+1] == '+' {
		return 0, fmt.Errorf("%w: hostname %q does not end in an ordinal", snowlab.ErrInvalidNode, hostname)
	}
	id, err := Static(n+offset, layout)
	if err != nil {
		return 0, fmt.Errorf("ordinal %d + offset %d: %w", n, offset, err)
	}
	return id, nil
}
