package remote

import (
	"encoding/binary"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func fixed(v uint64) []byte { return binary.LittleEndian.AppendUint64(nil, v) }

func cat(parts ...[]byte) []byte {
	var b []byte
	for _, p := range parts {
		b = append(b, p...)
	}
	return b
}

func TestVarint(t *testing.T) {
	for _, v := range []uint64{0, 1, 127, 128, 300, 100_000, 1<<63 + 5} {
		b := appendVarint(nil, v)
		got, n, err := readVarint(b)
		require.NoError(t, err, v)
		assert.Equal(t, v, got)
		assert.Equal(t, len(b), n)
	}
	_, _, err := readVarint([]byte{0x80, 0x80})
	assert.ErrorIs(t, err, errMalformed, "truncated")
	_, _, err = readVarint([]byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01})
	assert.ErrorIs(t, err, errMalformed, "over 64 bits")
}

func TestNextIDsRequest(t *testing.T) {
	assert.Equal(t, []byte{0x08, 0x0a}, nextIDsRequest(10))
	assert.Equal(t, []byte{0x08, 0xa0, 0x8d, 0x06}, nextIDsRequest(100_000))
	assert.Empty(t, nextIDsRequest(0))
}

func TestDecodeNextIDResponse(t *testing.T) {
	for _, tc := range []struct {
		name string
		msg  []byte
		want uint64
		bad  bool
	}{
		{"id", cat([]byte{0x09}, fixed(42)), 42, false},
		{"unknown field skipped", cat([]byte{0x10, 0x05, 0x09}, fixed(7)), 7, false},
		{"empty", nil, 0, false},
		{"fixed64 truncated", cat([]byte{0x09}, fixed(42)[:5]), 0, true},
		{"wrong wire type", []byte{0x08, 0x2a}, 0, true},
		{"truncated key", []byte{0x89}, 0, true},
		{"field number 0", []byte{0x01, 0, 0, 0, 0, 0, 0, 0, 0}, 0, true},
		{"wire type 7", []byte{0x0f}, 0, true},
	} {
		got, err := decodeNextIDResponse(tc.msg)
		if tc.bad {
			assert.ErrorIs(t, err, errMalformed, tc.name)
			continue
		}
		require.NoError(t, err, tc.name)
		assert.Equal(t, tc.want, got, tc.name)
	}
}

func TestDecodeNextIDsResponse(t *testing.T) {
	for _, tc := range []struct {
		name string
		msg  []byte
		want []uint64
		bad  bool
	}{
		{"packed", cat([]byte{0x0a, 16}, fixed(1), fixed(2)), []uint64{1, 2}, false},
		{"unpacked", cat([]byte{0x09}, fixed(3), []byte{0x09}, fixed(4)), []uint64{3, 4}, false},
		{"mixed", cat([]byte{0x0a, 8}, fixed(5), []byte{0x09}, fixed(6)), []uint64{5, 6}, false},
		{"empty", nil, []uint64{}, false},
		{"length past the end", cat([]byte{0x0a, 24}, fixed(1)), nil, true},
		{"packed length not 8k", cat([]byte{0x0a, 7}, fixed(1)[:7]), nil, true},
		{"wrong wire type", []byte{0x08, 0x01}, nil, true},
		{"truncated length", []byte{0x0a, 0x80}, nil, true},
		{"fixed32 truncated", []byte{0x15, 1, 2}, nil, true},
	} {
		got, err := decodeNextIDsResponse(tc.msg, 2)
		if tc.bad {
			assert.ErrorIs(t, err, errMalformed, tc.name)
			continue
		}
		require.NoError(t, err, tc.name)
		assert.Equal(t, tc.want, got, tc.name)
	}
}

func FuzzDecode(f *testing.F) {
	f.Add(cat([]byte{0x0a, 16}, fixed(1), fixed(2)))
	f.Add([]byte{0x0a, 0x80})
	f.Fuzz(func(t *testing.T, msg []byte) {
		_, _ = decodeNextIDResponse(msg)
		_, _ = decodeNextIDsResponse(msg, 1)
	})
}
