package resultdir

import (
	"errors"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// marker is the password the tests hide.
const marker = "Zq9Mark"

func TestRedactArgs(t *testing.T) {
	assert.Nil(t, RedactArgs(nil))
	in := []string{"loadgen", "btree", "-pg", "postgres://u:Zq9Mark@h/d", "-pg=host=h password='a Zq9Mark'", "PG_DSN=postgres://u:Zq9Mark@h/d", "-n", "5"}
	out := RedactArgs(in)
	assert.Equal(t, []string{"loadgen", "btree", "-pg", "postgres://u:xxxxx@h/d", "-pg=host=h password=xxxxx", "PG_DSN=xxxxx", "-n", "5"}, out)
	assert.Equal(t, "postgres://u:Zq9Mark@h/d", in[3], "the caller's slice is not changed")
}

// TestRedactError: pgx's parse errors, which quote the DSN or a piece of it,
// hold no piece of the marker password once through Error; other errors
// pass as they are.
func TestRedactError(t *testing.T) {
	for _, dsn := range []string{
		"postgres://u:Zq9Mark@h:notaport/d",
		"postgres://u:a b:Zq9Mark@h/d",
		"host=h password=a Zq9Mark c=d",
		"host=h password=a Zq9Mark",
		"host=h password='Zq9Mark",
		`host=h password="a Zq9Mark"`,
	} {
		_, err := pgx.ParseConfig(dsn)
		require.Error(t, err, dsn)
		got := RedactError(err)
		assert.NotContains(t, got.Error(), marker, dsn)
		assert.NotContains(t, got.Error(), "Zq9", dsn)
		assert.Contains(t, got.Error(), "the DSN does not parse", dsn)
		assert.ErrorIs(t, got, err)
	}
	other := errors.New("refused")
	assert.Same(t, other, RedactError(other))
}
