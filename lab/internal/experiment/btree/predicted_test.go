package btree

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestPredicted checks each key kind gets its class's figures: the
// documents' 1.8x and 40.8 B a row for UUIDv4, 1.4x and 31.3 B for the
// time-ordered 16-byte keys, 1x and 22.4 B for the 8-byte ones.
func TestPredicted(t *testing.T) {
	tests := []struct {
		k           keyKind
		ratio, size float64
	}{
		{sequence, 1, 22.4},
		{snowlabKey, 1, 22.4},
		{uuidV7, 1.4, 31.3},
		{ulidKey, 1.4, 31.3},
		{uuidV4, 1.8, 40.8},
	}
	for _, tt := range tests {
		t.Run(string(tt.k), func(t *testing.T) {
			assert.Equal(t, tt.ratio, predictedRatio(tt.k))
			assert.Equal(t, tt.size, predictedBytesPerRow(tt.k))
		})
	}
}
