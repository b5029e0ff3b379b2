package subject

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestID128OrdersAsBytes(t *testing.T) {
	tests := []struct {
		name string
		a, b [16]byte
	}{
		{"last byte", [16]byte{15: 1}, [16]byte{15: 2}},
		{"high half decides", [16]byte{7: 1, 8: 0xff}, [16]byte{7: 2}},
		{"first byte outweighs the rest", [16]byte{0: 1}, [16]byte{0: 2, 15: 0}},
		{"top bit is unsigned", [16]byte{0: 0x7f, 15: 0xff}, [16]byte{0: 0x80}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, b := ID128(tt.a), ID128(tt.b)
			assert.True(t, a.Less(b))
			assert.False(t, b.Less(a))
			assert.Equal(t, tt.a, a.Bytes128(), "Bytes128 inverts ID128")
			assert.Equal(t, tt.b, b.Bytes128(), "Bytes128 inverts ID128")
		})
	}
}
