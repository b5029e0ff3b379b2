package nodeid_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/snowlab/snowlab/nodeid"
)

// TestOpenStoreInvalidSpecs: a spec that can never work is ErrInvalidSpec
// at once, one line naming the spec as Redact describes it, and an Opener's error is wrapped the
// same way.
func TestOpenStoreInvalidSpecs(t *testing.T) {
	file := filepath.Join(t.TempDir(), "plain-file")
	require.NoError(t, os.WriteFile(file, nil, 0o644))
	refuse := func(rest string) (nodeid.Store, error) {
		return nil, errors.New("mock: location " + rest + " does not parse")
	}
	extra := map[string]nodeid.Opener{"mock": nodeid.OpenerFunc(refuse)}
	for _, tt := range []struct {
		spec string
		want []string // in the message besides the spec
	}{
		{"", []string{"want scheme:location"}},
		{"bogus", []string{"want scheme:location"}},
		{":x", []string{"want scheme:location"}},
		{"dir:", []string{"want scheme:location"}},
		{"bogus:x", []string{`unknown scheme "bogus"`, "dir, mock"}},
		{"dir:" + filepath.Join(file, "ids"), []string{"cannot be created", "not a directory"}},
		{"dir:" + file, []string{"cannot be created"}},
		{"etcd:127.0.0.1:2379/x", []string{"etcdlease module"}},
		{"pg:postgres://u@127.0.0.1:5432/db", []string{"pglease module"}},
		{"mock:y/z", []string{"mock: location y/z does not parse"}},
	} {
		t.Run(tt.spec, func(t *testing.T) {
			_, err := nodeid.OpenStore(tt.spec, extra)
			require.ErrorIs(t, err, nodeid.ErrInvalidSpec)
			msg := err.Error()
			assert.Contains(t, msg, `"`+nodeid.Redact(tt.spec)+`"`)
			assert.NotContains(t, msg, "\n")
			for _, w := range tt.want {
				assert.Contains(t, msg, w)
			}
			// AcquireSpec fails the same way, before any store is asked.
			_, err = nodeid.AcquireSpec(context.Background(), tt.spec, extra, nodeid.Options{})
			assert.ErrorIs(t, err, nodeid.ErrInvalidSpec)
		})
	}
}

// TestOpenStoreDir: dir: creates the folder it names, nested, and the
// store leases from it.
func TestOpenStoreDir(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "a", "b")
	st, err := nodeid.OpenStore("dir:"+dir, nil)
	require.NoError(t, err)
	info, err := os.Stat(dir)
	require.NoError(t, err)
	assert.True(t, info.IsDir())
	l, err := nodeid.Acquire(context.Background(), st, nodeid.Options{})
	require.NoError(t, err)
	assert.Equal(t, 0, l.Node())
	require.NoError(t, l.Release(context.Background()))

	// An Opener's store is returned as built.
	var got string
	mock := func(rest string) (nodeid.Store, error) { got = rest; return nodeid.Dir(dir), nil }
	_, err = nodeid.OpenStore("mock:loc:with:colons", map[string]nodeid.Opener{"mock": nodeid.OpenerFunc(mock)})
	require.NoError(t, err)
	assert.Equal(t, "loc:with:colons", got, "what the Opener is given: the spec after the first colon")
}
