package snowlab

import (
	"encoding/json"
	"flag"
	"io"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestLayoutTextRoundTrip: every layout MarshalText writes reads back as
// the same layout, and the text of the default is the one documented.
func TestLayoutTextRoundTrip(t *testing.T) {
	text, err := DefaultLayout.MarshalText()
	require.NoError(t, err)
	assert.Equal(t, "41/10/12,1ms,2024-01-01T00:00:00Z", string(text))
	zero, err := Layout{}.MarshalText()
	require.NoError(t, err)
	assert.Equal(t, string(text), string(zero), "the zero Layout is written as the default")

	for _, l := range []Layout{
		DefaultLayout,
		{TimeBits: 39, NodeBits: 12, SeqBits: 12, Unit: 10 * time.Millisecond, Epoch: time.UnixMilli(1700000000000)},
		{TimeBits: 51, NodeBits: 6, SeqBits: 6, Unit: time.Microsecond, Epoch: defaultEpoch},
		{TimeBits: 35, NodeBits: 16, SeqBits: 12, Unit: 1500 * time.Microsecond,
			Epoch: time.Date(2020, 2, 3, 4, 5, 6, 7, time.FixedZone("UTC+2", 2*3600))},
		{TimeBits: 41, NodeBits: 10, SeqBits: 12, Unit: time.Millisecond, Epoch: time.UnixMilli(-86400000)},
	} {
		text, err := l.MarshalText()
		require.NoError(t, err)
		var got Layout
		require.NoError(t, got.UnmarshalText(text), "%s", text)
		assert.Equal(t, [3]uint{l.TimeBits, l.NodeBits, l.SeqBits}, [3]uint{got.TimeBits, got.NodeBits, got.SeqBits}, "%s", text)
		assert.Equal(t, l.Unit, got.Unit, "%s", text)
		assert.True(t, l.Epoch.Equal(got.Epoch), "%s: epoch %v, want %v", text, got.Epoch, l.Epoch)
		again, err := got.MarshalText()
		require.NoError(t, err)
		assert.Equal(t, string(text), string(again))
	}
}

// TestLayoutTextShortForms: a unit or an epoch left out is the default's,
// and an epoch may be Unix milliseconds.
func TestLayoutTextShortForms(t *testing.T) {
	for text, want := range map[string]Layout{
		"41/10/12":      DefaultLayout,
		"39/12/12":      {TimeBits: 39, NodeBits: 12, SeqBits: 12, Unit: time.Millisecond, Epoch: defaultEpoch},
		"39/12/12,10ms": {TimeBits: 39, NodeBits: 12, SeqBits: 12, Unit: 10 * time.Millisecond, Epoch: defaultEpoch},
		"39/12/12,10ms,1700000000000": {TimeBits: 39, NodeBits: 12, SeqBits: 12, Unit: 10 * time.Millisecond,
			Epoch: time.UnixMilli(1700000000000)},
		"41/10/12,1ms,2024-01-01T02:00:00+02:00": DefaultLayout,
	} {
		var got Layout
		require.NoError(t, got.UnmarshalText([]byte(text)), text)
		assert.Equal(t, want.Unit, got.Unit, text)
		assert.True(t, want.Epoch.Equal(got.Epoch), "%s: epoch %v", text, got.Epoch)
		assert.Equal(t, [3]uint{want.TimeBits, want.NodeBits, want.SeqBits}, [3]uint{got.TimeBits, got.NodeBits, got.SeqBits}, text)
	}
}

// TestLayoutTextErrors: text that is not a valid layout is an error
// wrapping ErrInvalidLayout that quotes it and names what is wrong, and
// leaves the layout as it was.
func TestLayoutTextErrors(t *testing.T) {
	for text, want := range map[string]string{
		"":                                  "want TIME/NODE/SEQ bits",
		"41/10":                             "want TIME/NODE/SEQ bits",
		"41/10/12/1ms":                      "want TIME/NODE/SEQ bits",
		"41/0/22":                           `"0" is not a bit count in 1..63`,
		"41/x/12":                           `"x" is not a bit count in 1..63`,
		"41/-10/12":                         `"-10" is not a bit count in 1..63`,
		"300/10/12":                         `"300" is not a bit count in 1..63`,
		"41/10/11":                          "= 62 bits, want 63",
		"41/10/12,fast":                     `unit "fast": want a duration`,
		"41/10/12,0s":                       "unit 0s is not positive",
		"51/6/6":                            "overflow a time.Duration", // 2^51 ms
		"41/10/12,1ms,yesterday":            `epoch "yesterday": want RFC 3339`,
		"41/10/12,1ms,2250-01-01Z":          `epoch "2250-01-01Z"`,
		"41/10/12,1ms,2250-01-01T00:00:00Z": "leaves the range of Unix nanoseconds",
	} {
		l := DefaultLayout
		err := l.UnmarshalText([]byte(text))
		require.ErrorIs(t, err, ErrInvalidLayout, "%q", text)
		assert.Contains(t, err.Error(), `"`+text+`"`, "the error quotes the input")
		assert.Contains(t, err.Error(), want, "%q", text)
		assert.Equal(t, DefaultLayout, l, "%q: the layout is left as it was", text)
	}
	_, err := Layout{TimeBits: 41, NodeBits: 10, SeqBits: 11}.MarshalText()
	assert.ErrorIs(t, err, ErrInvalidLayout, "an invalid layout has no text")
}

// TestLayoutTextVar: a command parses a layout with flag.TextVar, and a
// configuration file with encoding/json, in the one text form.
func TestLayoutTextVar(t *testing.T) {
	fs := flag.NewFlagSet("cmd", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	var l Layout
	fs.TextVar(&l, "layout", DefaultLayout, "the ID layout")
	require.NoError(t, fs.Parse(nil))
	assert.Equal(t, DefaultLayout, l)
	assert.Equal(t, "41/10/12,1ms,2024-01-01T00:00:00Z", fs.Lookup("layout").DefValue)

	require.NoError(t, fs.Parse([]string{"-layout", "39/12/12,10ms"}))
	assert.Equal(t, uint(39), l.TimeBits)
	assert.Equal(t, 10*time.Millisecond, l.Unit)
	// The flag package quotes the error's text but does not wrap it.
	err := fs.Parse([]string{"-layout", "41/10/11"})
	assert.ErrorContains(t, err, `invalid value "41/10/11" for flag -layout: snowlab: invalid layout "41/10/11": time 41 + node 10 + seq 11 = 62 bits, want 63`)

	var cfg struct{ Layout Layout }
	require.NoError(t, json.Unmarshal([]byte(`{"Layout":"35/16/12,1ms,2020-01-01T00:00:00Z"}`), &cfg))
	assert.Equal(t, uint(16), cfg.Layout.NodeBits)
	out, err := json.Marshal(cfg)
	require.NoError(t, err)
	assert.JSONEq(t, `{"Layout":"35/16/12,1ms,2020-01-01T00:00:00Z"}`, string(out))
}
