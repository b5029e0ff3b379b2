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
// at once, one line naming the spec, and an Opener's error is wrapped the
// same way.
func TestOpenStoreInvalidSpecs(t *testing.T) {
	file := filepath.Join(t.TempDir(), "plain-file")
	require.NoError(t, os.WriteFile(file, nil, 0o644))
	refuse := func(rest string) (nodeid.Store, error) {
		return nil, errors.New("mock: location " + rest + " does not parse")
	}
	extra := map[string]nodeid.Opener{"mock": refuse}
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
		{"mock:y", []string{"mock: location y does not parse"}},
	} {
		t.Run(tt.spec, func(t *testing.T) {
			_, err := nodeid.OpenStore(tt.spec, extra)
			require.ErrorIs(t, err, nodeid.ErrInvalidSpec)
			msg := err.Error()
			assert.Contains(t, msg, `"`+tt.spec+`"`)
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

// TestOpenStoreRedacts: a password in a spec, or in what an Opener's error
// quotes of it, never reaches OpenStore's error; the user name does.
func TestOpenStoreRedacts(t *testing.T) {
	echo := func(rest string) (nodeid.Store, error) {
		return nil, errors.New("mock: cannot use " + rest)
	}
	extra := map[string]nodeid.Opener{"mock": echo}
	for _, spec := range []string{
		"pg:postgres://snow:S3cret@127.0.0.1:5432/db",
		"pg:host=127.0.0.1 user=snow password=S3cret dbname=db",
		"mock:postgres://snow:S3cret@127.0.0.1/db",
		"mock:host=h user=snow password='S3cret' dbname=db",
		"nosuch:postgres://snow:S3cret@h/db",
	} {
		_, err := nodeid.OpenStore(spec, extra)
		require.ErrorIs(t, err, nodeid.ErrInvalidSpec, spec)
		assert.NotContains(t, err.Error(), "S3cret", spec)
		assert.Contains(t, err.Error(), "snow", spec)
		assert.Contains(t, err.Error(), "xxxxx", spec)
	}
}

func TestRedact(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"pg:postgres://user:S3cretPass@host/db", "pg:postgres://user:xxxxx@host/db"},
		{"pg:postgresql://user:S3cret@Pass@host:5432/db?sslmode=disable", "pg:postgresql://user:xxxxx@host:5432/db?sslmode=disable"},
		{"pg:postgres://user@host/db", "pg:postgres://user@host/db"},
		{"pg:postgres://user:S3c/ret@host/db", "pg:postgres://user:xxxxx@host/db"},
		{"pg:postgres://host/db?user=u&password=S3cret&sslmode=off", "pg:postgres://host/db?user=u&password=xxxxx&sslmode=off"},
		{"pg:host=h user=u password=S3cret dbname=d", "pg:host=h user=u password=xxxxx dbname=d"},
		{"pg:host=h password='S3 cr\\'et' dbname=d", "pg:host=h password=xxxxx dbname=d"},
		{"host=h PASSWORD = S3cret", "host=h PASSWORD = xxxxx"},
		{`failed to connect to "postgres://u:S3cret@h:1/d": refused`, `failed to connect to "postgres://u:xxxxx@h:1/d": refused`},
		{"etcd:http://127.0.0.1:2379/app", "etcd:http://127.0.0.1:2379/app"},
		{"dir:/tmp/lease", "dir:/tmp/lease"},
		{"http://example.com/a:b@c", "http://example.com/a:b@c"}, // a path, not user information
		{"", ""},
	} {
		got := nodeid.Redact(tc.in)
		assert.Equal(t, tc.want, got, tc.in)
		assert.NotContains(t, got, "S3cret", tc.in)
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
	_, err = nodeid.OpenStore("mock:loc:with:colons", map[string]nodeid.Opener{"mock": mock})
	require.NoError(t, err)
	assert.Equal(t, "loc:with:colons", got, "what the Opener is given: the spec after the first colon")
}
