package redact

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestString(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"postgres://user:S3cretPass@host/db", "postgres://user:xxxxx@host/db"},
		{"postgresql://user:S3cret@Pass@host:5432/db?sslmode=disable", "postgresql://user:xxxxx@host:5432/db?sslmode=disable"},
		{"postgres://user@host/db", "postgres://user@host/db"},
		{"postgres://host/db?user=u&password=S3cret&sslmode=off", "postgres://host/db?user=u&password=xxxxx&sslmode=off"},
		{"host=h user=u password=S3cret dbname=d", "host=h user=u password=xxxxx dbname=d"},
		{"host=h password='S3 cr\\'et' dbname=d", "host=h password=xxxxx dbname=d"},
		{"host=h PASSWORD = S3cret", "host=h PASSWORD = xxxxx"},
		{"-pg=postgres://u:S3cret@h/d", "-pg=postgres://u:xxxxx@h/d"},
		{"PG_DSN=postgres://u:S3cret@h/d", "PG_DSN=postgres://u:xxxxx@h/d"},
		{`failed to connect to "postgres://u:S3cret@h:1/d": refused`, `failed to connect to "postgres://u:xxxxx@h:1/d": refused`},
		{"dir:/tmp/lease", "dir:/tmp/lease"},
		{"http://example.com/a:b@c", "http://example.com/a:b@c"}, // a path, not user information
		{"", ""},
	} {
		got := String(tc.in)
		assert.Equal(t, tc.want, got, tc.in)
		assert.NotContains(t, got, "S3cret", tc.in)
	}
}

func TestArgs(t *testing.T) {
	assert.Nil(t, Args(nil))
	in := []string{"loadgen", "btree", "-pg", "postgres://u:S3cret@h/d"}
	out := Args(in)
	assert.Equal(t, []string{"loadgen", "btree", "-pg", "postgres://u:xxxxx@h/d"}, out)
	assert.Equal(t, "postgres://u:S3cret@h/d", in[3], "the caller's slice is not changed")
}
