package alternatives

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestSchemeNamesRoundTrip(t *testing.T) {
	for _, s := range defaultSchemes() {
		back, err := parseScheme(s.name())
		require.NoError(t, err, s.name())
		assert.Equal(t, s, back)
	}
	all, err := parseSchemes("all")
	require.NoError(t, err)
	assert.Equal(t, defaultSchemes(), all)
	got, err := parseSchemes("snowlab, block/500+double,sequence/cache-10,snowidd,snowidd/100000,snowidd/100@2.5ms")
	require.NoError(t, err)
	assert.Equal(t, []schemeSpec{{Kind: snowlabScheme}, {Kind: block, Size: 500, DoubleBuffer: true}, {Kind: sequence, Size: 10},
		{Kind: snowidd}, {Kind: snowidd, Size: 100_000}, {Kind: snowidd, Size: 100, MaxAge: 2500 * time.Microsecond}}, got)
	assert.Equal(t, "snowidd/1000@10ms", schemeSpec{Kind: snowidd, Size: 1000, MaxAge: defaultMaxAge}.name())
	assert.False(t, schemeSpec{Kind: snowidd}.database())
	assert.True(t, schemeSpec{Kind: stride}.database())
}

func TestParseSchemeRefuses(t *testing.T) {
	for _, spec := range []string{"uuid", "ticket/5", "block", "block/0", "block/-3", "block/x", "sequence/10",
		"series/1000000000", "ticket,ticket", "stride,", "block/24+single", "snowidd/0", "snowidd/100001", "snowidd/x",
		"snowidd,snowidd", "snowidd/10@", "snowidd/10@0s", "snowidd/10@-1ms", "snowidd/10@2m", "snowidd/10@soon", "snowidd@1ms"} {
		_, err := parseSchemes(spec)
		assert.ErrorIs(t, err, errOptions, spec)
	}
	_, err := parseSchemes("block/0")
	assert.ErrorContains(t, err, `"0"`, "the error names the bad value")
	_, err = parseSchemes("snowidd/100001")
	assert.ErrorContains(t, err, `size "100001": want 1 to 100000`, "a NextIDs call asks for at most client.MaxBatch")
	_, err = parseSchemes("snowidd/10@2m")
	assert.ErrorContains(t, err, `age "2m": want a duration above 0, at most 1m0s`)
}

func TestClockOffset(t *testing.T) {
	assert.Equal(t, time.Duration(0), clockOffset(0, 1, 5*time.Millisecond))
	var offs []time.Duration
	for i := range 5 {
		offs = append(offs, clockOffset(i, 5, 4*time.Millisecond))
	}
	assert.Equal(t, []time.Duration{-4 * time.Millisecond, -2 * time.Millisecond, 0, 2 * time.Millisecond, 4 * time.Millisecond}, offs)
	assert.Equal(t, 11*time.Millisecond, skewBound(5*time.Millisecond))
}

func TestValidate(t *testing.T) {
	assert.NoError(t, options{}.validate(), "the zero value takes the defaults")
	for _, o := range []options{
		{Clients: []int{0}}, {Clients: []int{maxClients + 1}}, {Duration: -time.Second}, {Duration: maxDuration + 1},
		{Demand: 2 * maxDemand}, {MaxIDs: -1}, {Skew: 2 * maxSkew}, {CrashClients: -1}, {FsyncSeconds: maxFsyncSecond + 1},
		{Schemes: []schemeSpec{{Kind: block, Size: -1}}}, {Schemes: []schemeSpec{{Kind: snowidd, Size: 100_001}}},
		{Snowidd: "127.0.0.1:8080"}, {Snowidd: "grpc://127.0.0.1:8080"},
	} {
		assert.ErrorIs(t, o.validate(), errOptions, "%+v", o)
	}
	assert.ErrorContains(t, options{Clients: []int{1, 999}}.validate(), "999")
	assert.ErrorContains(t, options{Snowidd: "grpc://h:1"}.validate(), `"grpc://h:1"`)
	assert.NoError(t, options{Snowidd: "http://127.0.0.1:8080"}.validate())
}
