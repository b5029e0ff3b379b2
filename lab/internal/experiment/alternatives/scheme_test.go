package alternatives

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestSchemeNamesRoundTrip(t *testing.T) {
	for _, s := range DefaultSchemes() {
		back, err := ParseScheme(s.Name())
		require.NoError(t, err, s.Name())
		assert.Equal(t, s, back)
	}
	all, err := ParseSchemes("all")
	require.NoError(t, err)
	assert.Equal(t, DefaultSchemes(), all)
	got, err := ParseSchemes("snowlab, block/500+double,sequence/cache-10,snowidd,snowidd/100000,snowidd/100@2.5ms")
	require.NoError(t, err)
	assert.Equal(t, []Scheme{{Kind: Snowlab}, {Kind: Block, Size: 500, DoubleBuffer: true}, {Kind: Sequence, Size: 10},
		{Kind: Snowidd}, {Kind: Snowidd, Size: 100_000}, {Kind: Snowidd, Size: 100, MaxAge: 2500 * time.Microsecond}}, got)
	assert.Equal(t, "snowidd/1000@10ms", Scheme{Kind: Snowidd, Size: 1000, MaxAge: DefaultMaxAge}.Name())
	assert.False(t, Scheme{Kind: Snowidd}.Database())
	assert.True(t, Scheme{Kind: Stride}.Database())
}

func TestParseSchemeRefuses(t *testing.T) {
	for _, spec := range []string{"uuid", "ticket/5", "block", "block/0", "block/-3", "block/x", "sequence/10",
		"series/1000000000", "ticket,ticket", "stride,", "block/24+single", "snowidd/0", "snowidd/100001", "snowidd/x",
		"snowidd,snowidd", "snowidd/10@", "snowidd/10@0s", "snowidd/10@-1ms", "snowidd/10@2m", "snowidd/10@soon", "snowidd@1ms"} {
		_, err := ParseSchemes(spec)
		assert.ErrorIs(t, err, ErrOptions, spec)
	}
	_, err := ParseSchemes("block/0")
	assert.ErrorContains(t, err, `"0"`, "the error names the bad value")
	_, err = ParseSchemes("snowidd/100001")
	assert.ErrorContains(t, err, `size "100001": want 1 to 100000`, "a NextIDs call asks for at most client.MaxBatch")
	_, err = ParseSchemes("snowidd/10@2m")
	assert.ErrorContains(t, err, `age "2m": want a duration above 0, at most 1m0s`)
}

func TestClockOffset(t *testing.T) {
	assert.Equal(t, time.Duration(0), ClockOffset(0, 1, 5*time.Millisecond))
	var offs []time.Duration
	for i := range 5 {
		offs = append(offs, ClockOffset(i, 5, 4*time.Millisecond))
	}
	assert.Equal(t, []time.Duration{-4 * time.Millisecond, -2 * time.Millisecond, 0, 2 * time.Millisecond, 4 * time.Millisecond}, offs)
	assert.Equal(t, 11*time.Millisecond, SkewBound(5*time.Millisecond))
}

func TestValidate(t *testing.T) {
	assert.NoError(t, Options{}.Validate(), "the zero value takes the defaults")
	for _, o := range []Options{
		{Clients: []int{0}}, {Clients: []int{MaxClients + 1}}, {Duration: -time.Second}, {Duration: MaxDuration + 1},
		{Demand: 2 * MaxDemand}, {MaxIDs: -1}, {Skew: 2 * MaxSkew}, {CrashClients: -1}, {FsyncSeconds: MaxFsyncSecond + 1},
		{Schemes: []Scheme{{Kind: Block, Size: -1}}}, {Schemes: []Scheme{{Kind: Snowidd, Size: 100_001}}},
		{Snowidd: "127.0.0.1:8080"}, {Snowidd: "grpc://127.0.0.1:8080"},
	} {
		assert.ErrorIs(t, o.Validate(), ErrOptions, "%+v", o)
	}
	assert.ErrorContains(t, Options{Clients: []int{1, 999}}.Validate(), "999")
	assert.ErrorContains(t, Options{Snowidd: "grpc://h:1"}.Validate(), `"grpc://h:1"`)
	assert.NoError(t, Options{Snowidd: "http://127.0.0.1:8080"}.Validate())
}
