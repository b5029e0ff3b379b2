package redact

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestArgs(t *testing.T) {
	assert.Nil(t, Args(nil))
	in := []string{"loadgen", "btree", "-pg", "postgres://u:S3cret@h/d", "-lease", "pg:host=h password=S3cret"}
	got := Args(in)
	assert.Equal(t, []string{"loadgen", "btree", "-pg", "postgres://u:xxxxx@h/d", "-lease", "pg:host=h password=xxxxx"}, got)
	assert.Equal(t, "postgres://u:S3cret@h/d", in[3], "the caller's slice is left alone")
}
