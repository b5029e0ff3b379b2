package snowlab

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

func TestPolicyString(t *testing.T) {
	tests := []struct {
		p    Policy
		want string
	}{
		{Strict, "strict"},
		{Monotonic, "monotonic"},
		{Policy(0), "strict"},
		{Policy(1), "monotonic"},
		{Policy(2), "Policy(2)"},
		{Policy(-1), "Policy(-1)"},
		{Policy(math.MaxInt), fmt.Sprintf("Policy(%d)", math.MaxInt)},
	}
	for _, tt := range tests {
		t.Run(tt.want, func(t *testing.T) {
			assert.Equal(t, tt.want, tt.p.String())
			assert.Equal(t, tt.want, fmt.Sprint(tt.p), "fmt uses String")
			assert.Equal(t, tt.want, fmt.Sprintf("%v", tt.p))
		})
	}
}

// TestPolicyText: each policy's text is its String, read back as the same
// policy, so that flag.TextVar and encoding/json take the names; an
// unnamed policy does not marshal, and text that names none is refused
// with ErrInvalidConfig, the policy left as it was.
func TestPolicyText(t *testing.T) {
	for _, p := range []Policy{Strict, Monotonic} {
		text, err := p.MarshalText()
		if assert.NoError(t, err) {
			assert.Equal(t, p.String(), string(text))
		}
		var got Policy = 7
		assert.NoError(t, got.UnmarshalText(text))
		assert.Equal(t, p, got)
	}
	for _, p := range []Policy{Policy(2), Policy(-1)} {
		_, err := p.MarshalText()
		assert.ErrorIs(t, err, ErrInvalidConfig, "%v", p)
	}
	for _, bad := range []string{"", "Strict", "MONOTONIC", "lenient", "Policy(2)", "strict "} {
		got := Monotonic
		err := got.UnmarshalText([]byte(bad))
		assert.ErrorIs(t, err, ErrInvalidConfig, "%q", bad)
		assert.ErrorContains(t, err, fmt.Sprintf("%q", bad))
		assert.Equal(t, Monotonic, got, "%q leaves the policy as it was", bad)
	}

	fs := flag.NewFlagSet("t", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	var p Policy
	fs.TextVar(&p, "policy", Strict, "")
	assert.NoError(t, fs.Parse([]string{"-policy", "monotonic"}))
	assert.Equal(t, Monotonic, p)
	// The flag package prints the error rather than wrapping it.
	assert.ErrorContains(t, fs.Parse([]string{"-policy", "lazy"}), `policy "lazy": want strict or monotonic`)

	var cfg struct{ Policy Policy }
	assert.NoError(t, json.Unmarshal([]byte(`{"Policy":"monotonic"}`), &cfg))
	assert.Equal(t, Monotonic, cfg.Policy)
	b, err := json.Marshal(cfg)
	assert.NoError(t, err)
	assert.JSONEq(t, `{"Policy":"monotonic"}`, string(b))
}

func TestStatsAdd(t *testing.T) {
	tests := []struct {
		name string
		a, b Stats
		want Stats
	}{
		{"zero", Stats{}, Stats{}, Stats{}},
		{"zero is identity", Stats{1, 2, 3, 4}, Stats{}, Stats{1, 2, 3, 4}},
		{"field by field", Stats{1, 2, 3, 4}, Stats{10, 20, 30, 40}, Stats{11, 22, 33, 44}},
		{"fields do not mix", Stats{CASRetries: 5}, Stats{RewindRefusals: 7}, Stats{CASRetries: 5, RewindRefusals: 7}},
		{"each field alone",
			Stats{TickWaits: 1, RewindWaits: 2},
			Stats{TickWaits: 3, RewindWaits: 4},
			Stats{TickWaits: 4, RewindWaits: 6}},
		{"large", Stats{CASRetries: math.MaxUint64 - 1}, Stats{CASRetries: 1}, Stats{CASRetries: math.MaxUint64}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, tt.a.Add(tt.b))
			assert.Equal(t, tt.want, tt.b.Add(tt.a), "Add is commutative")
		})
	}

	t.Run("operands unchanged", func(t *testing.T) {
		a, b := Stats{1, 2, 3, 4}, Stats{5, 6, 7, 8}
		_ = a.Add(b)
		assert.Equal(t, Stats{1, 2, 3, 4}, a)
		assert.Equal(t, Stats{5, 6, 7, 8}, b)
	})

	t.Run("associative", func(t *testing.T) {
		a, b, c := Stats{1, 0, 2, 0}, Stats{0, 3, 0, 4}, Stats{5, 6, 7, 8}
		assert.Equal(t, a.Add(b).Add(c), a.Add(b.Add(c)))
	})
}

func TestConfigZeroValue(t *testing.T) {
	var c Config
	assert.Equal(t, 0, c.Node)
	assert.True(t, c.Layout.IsZero())
	assert.Equal(t, DefaultLayout, c.Layout.OrDefault())
	assert.Nil(t, c.Clock)
	assert.Equal(t, Strict, c.Policy)
	assert.Zero(t, c.MaxWait)
	assert.Zero(t, c.MaxLead)
	assert.Equal(t, 5*time.Millisecond, DefaultMaxWait)
}

func TestErrorsAreDistinct(t *testing.T) {
	all := []error{ErrClockBackwards, ErrOverflow, ErrInvalidNode, ErrInvalidLayout, ErrInvalidID}
	for i, a := range all {
		assert.True(t, strings.HasPrefix(a.Error(), "snowlab: "), a.Error())
		for j, b := range all {
			assert.Equal(t, i == j, errors.Is(a, b), "%v vs %v", a, b)
		}
	}
}
