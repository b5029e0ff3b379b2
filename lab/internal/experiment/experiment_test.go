package experiment

import (
	"bytes"
	"errors"
	"io/fs"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestUsage: a usage error reads as the error it marks and is both it and
// ErrUsage to errors.Is; an unmarked error is not ErrUsage.
func TestUsage(t *testing.T) {
	err := Usage(fs.ErrNotExist)
	assert.Equal(t, fs.ErrNotExist.Error(), err.Error())
	assert.ErrorIs(t, err, ErrUsage)
	assert.ErrorIs(t, err, fs.ErrNotExist)
	assert.NotErrorIs(t, errors.New("x"), ErrUsage)
}

// TestProgress: one line per message, none under -q.
func TestProgress(t *testing.T) {
	var buf bytes.Buffer
	Env{Stderr: &buf}.Progress()("step 1")
	assert.Equal(t, "step 1\n", buf.String())
	assert.Nil(t, Env{Stderr: &buf, Quiet: true}.Progress())
}
