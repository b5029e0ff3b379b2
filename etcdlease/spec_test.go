package etcdlease

import (
	"context"
	"fmt"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/snowlab/snowlab"
	"github.com/snowlab/snowlab/nodeid"
	"github.com/snowlab/snowlab/nodeid/storetest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestOpenerSpecs: an etcd spec that does not parse is nodeid.ErrInvalidSpec,
// one line naming it (and never a password put in an endpoint); one that
// parses opens at once, without asking etcd anything.
func TestOpenerSpecs(t *testing.T) {
	stores := map[string]nodeid.Opener{"etcd": Opener(time.Second)}
	for _, tt := range []struct{ spec, want string }{
		{"etcd:", "want scheme:location"},
		{"etcd:/prefix-only", "endpoint 1: empty"},
		{"etcd:127.0.0.1", "not HOST:PORT"},
		{"etcd:127.0.0.1:99x/x", "not a number"},
		{"etcd::2379/x", "names no host"},
		{"etcd:a:1,,b:2", "endpoint 2: empty"},
		{"etcd:ftp://a:1/p", `scheme "ftp://"`},
	} {
		_, err := nodeid.OpenStore(tt.spec, stores)
		require.ErrorIs(t, err, nodeid.ErrInvalidSpec, tt.spec)
		assert.Contains(t, err.Error(), fmt.Sprintf("%q", nodeid.Redact(tt.spec)))
		assert.Contains(t, err.Error(), tt.want, tt.spec)
		assert.NotContains(t, err.Error(), "\n", tt.spec)
	}

	_, err := Opener(time.Second).Open("http://user:s3cret@127.0.0.1:2379/x")
	require.Error(t, err)
	assert.Contains(t, err.Error(), "user information")
	assert.NotContains(t, err.Error(), "s3cret")

	st, err := nodeid.OpenStore("etcd:http://"+closedPort(t)+"/x", stores)
	require.NoError(t, err, "opening does not reach etcd")
	assert.NotNil(t, st)
}

func TestParseSpec(t *testing.T) {
	for _, tt := range []struct {
		spec   string
		eps    []string
		prefix string
	}{
		{"127.0.0.1:2379", []string{"127.0.0.1:2379"}, DefaultPrefix},
		{"127.0.0.1:2379/myapp", []string{"127.0.0.1:2379"}, "/myapp"},
		{"127.0.0.1:2379/myapp/", []string{"127.0.0.1:2379"}, "/myapp"},
		{"127.0.0.1:2379/a/b", []string{"127.0.0.1:2379"}, "/a/b"},
		{"http://127.0.0.1:2379/myapp", []string{"http://127.0.0.1:2379"}, "/myapp"},
		{"https://etcd.example:2379", []string{"https://etcd.example:2379"}, DefaultPrefix},
		{"http://a:1,b:2,https://c:3/p", []string{"http://a:1", "b:2", "https://c:3"}, "/p"},
		{"a:1, b:2/p", []string{"a:1", "b:2"}, "/p"},
	} {
		eps, prefix, err := parseSpec(tt.spec)
		require.NoError(t, err, tt.spec)
		assert.Equal(t, tt.eps, eps, tt.spec)
		assert.Equal(t, tt.prefix, prefix, tt.spec)
	}
	for _, bad := range []string{"", "/prefix-only", "http://", "http:///p", "a:1,/p", "a:1,,b:2", "unix:///tmp/etcd.sock", "ftp://a:1/p"} {
		_, _, err := parseSpec(bad)
		assert.Error(t, err, "%q", bad)
	}
}

// closedPort is a loopback HOST:PORT that nothing listens on: a port the
// kernel handed out a moment ago and that is closed again.
func closedPort(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := ln.Addr().String()
	require.NoError(t, ln.Close())
	return addr
}

// silentPort is a loopback HOST:PORT that accepts connections and never
// answers on them, as a host does whose etcd is hung; they are closed when
// the test ends.
func silentPort(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	var mu sync.Mutex
	var conns []net.Conn
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, c)
			mu.Unlock()
		}
	}()
	t.Cleanup(func() {
		_ = ln.Close()
		<-done
		mu.Lock()
		defer mu.Unlock()
		for _, c := range conns {
			_ = c.Close()
		}
	})
	return ln.Addr().String()
}

// gaveUpByItself fails the test unless err is the store's ErrUnreachable
// and ctx, the caller's, was not done when the store returned it: a store
// that waited for the caller's context returns the context's error (see
// TestAcquireCallerGaveUp) once it is done.
func gaveUpByItself(t *testing.T, ctx context.Context, err error) {
	t.Helper()
	require.NoError(t, ctx.Err(), "the caller's context ended before the store gave up: it waited for it (%v)", err)
	require.ErrorIs(t, err, ErrUnreachable)
	require.NotErrorIs(t, err, context.DeadlineExceeded)
	require.NotErrorIs(t, err, context.Canceled)
}

// TestAcquireUnreachable: the README's snippet (Dial, then nodeid.Acquire
// with a long context) against a port nothing listens on fails at once
// with ErrUnreachable naming the endpoint, and so does the lease spec
// (snowidd/cmd/snowid's tests run snowid gen on it: exit 1): at once, that
// is without waiting for the caller's context, which lasts as long as the
// test.
func TestAcquireUnreachable(t *testing.T) {
	addr := closedPort(t)
	check := func(t *testing.T, ctx context.Context, err error) {
		t.Helper()
		gaveUpByItself(t, ctx, err)
		msg := err.Error()
		assert.Contains(t, msg, "no etcd at http://"+addr)
		assert.Contains(t, msg, "connection refused")
		assert.NotContains(t, msg, "\n")
	}
	t.Run("Dial", func(t *testing.T) {
		store, closeStore, err := Dial([]string{"http://" + addr}, "/myapp", DefaultTTL)
		require.NoError(t, err)
		defer closeStore()
		ctx := storetest.UntilTestEnds(t)
		_, err = nodeid.Acquire(ctx, store, nodeid.Options{})
		check(t, ctx, err)
	})
	t.Run("spec", func(t *testing.T) {
		ctx := storetest.UntilTestEnds(t)
		_, err := nodeid.AcquireSpec(ctx, "etcd:http://"+addr+"/myapp", map[string]nodeid.Opener{"etcd": Opener(DefaultTTL)}, nodeid.Options{})
		check(t, ctx, err)
		assert.NotErrorIs(t, err, nodeid.ErrInvalidSpec, "the spec is right")
	})
}

// TestAcquireSilent: an endpoint that accepts connections but never
// answers is ErrUnreachable after the store's reach timeout, not after the
// caller's context, which lasts as long as the test; several endpoints
// are all named.
func TestAcquireSilent(t *testing.T) {
	silent, closed := silentPort(t), closedPort(t)
	store, closeStore, err := Dial([]string{closed, "http://" + silent}, "/myapp", DefaultTTL)
	require.NoError(t, err)
	defer closeStore()
	const short = 200 * time.Millisecond
	store.(*Store).reachTimeout = short
	ctx := storetest.UntilTestEnds(t)
	_, err = nodeid.Acquire(ctx, store, nodeid.Options{})
	gaveUpByItself(t, ctx, err)
	assert.Contains(t, err.Error(), "no etcd answered at "+closed+",http://"+silent+" within "+short.String())
	assert.NotContains(t, err.Error(), "\n")
}

// TestAcquireCallerGaveUp: when the caller's context ends first, the error
// is the context's, not ErrUnreachable: nothing was learnt about etcd.
func TestAcquireCallerGaveUp(t *testing.T) {
	store, closeStore, err := Dial([]string{silentPort(t)}, "/myapp", DefaultTTL)
	require.NoError(t, err)
	defer closeStore()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err = store.Acquire(ctx, snowlab.Layout{}, 1, 1023)
	require.ErrorIs(t, err, context.Canceled)
	assert.NotErrorIs(t, err, ErrUnreachable)
}

// TestEndpointNames: an error names an endpoint by scheme and address,
// whatever user information a client was given in it.
func TestEndpointNames(t *testing.T) {
	for _, tt := range []struct{ ep, network, addr, name string }{
		{"127.0.0.1:2379", "tcp", "127.0.0.1:2379", "127.0.0.1:2379"},
		{"http://127.0.0.1:2379", "tcp", "127.0.0.1:2379", "http://127.0.0.1:2379"},
		{"https://u:s3cret@etcd.example:2379/", "tcp", "etcd.example:2379", "https://etcd.example:2379"},
		{"[::1]:2379", "tcp", "[::1]:2379", "[::1]:2379"},
		{"unix:///run/etcd.sock", "unix", "/run/etcd.sock", "unix:///run/etcd.sock"},
	} {
		network, addr := endpointAddr(tt.ep)
		assert.Equal(t, tt.network, network, tt.ep)
		assert.Equal(t, tt.addr, addr, tt.ep)
		assert.Equal(t, tt.name, endpointName(tt.ep), tt.ep)
	}
}

// TestSpecRefusalsHidePasswords: an etcd spec that does not parse is
// refused without the marker password, wherever it sits: user
// information (refused whole), user:password without an '@', a scheme.
func TestSpecRefusalsHidePasswords(t *testing.T) {
	const marker = "Zq9Mark"
	extra := map[string]nodeid.Opener{"etcd": Opener(time.Second)}
	for _, spec := range []string{
		"etcd:http://bob:pw?" + marker + "@h:2379/app",
		"etcd:http://bob:" + marker + "@h:2379,http://h2:2379/app",
		"etcd:bob:" + marker + "/app",
		"etcd:bob:" + marker + "@h:2379/app",
		"etcd:u:" + marker + "@ftp://h:2379/app",
		"etcd:h:2379,bob:" + marker,
	} {
		_, err := nodeid.OpenStore(spec, extra)
		require.ErrorIs(t, err, nodeid.ErrInvalidSpec, spec)
		assert.NotContains(t, err.Error(), marker, spec)
		t.Log(err)
	}
}
