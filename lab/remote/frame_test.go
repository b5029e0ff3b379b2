package remote

import (
	"errors"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestGRPCWebMessage: a gRPC-Web body is at most one message frame and
// then the trailer frame; what else a server or a proxy may send is an
// error saying what is wrong, a malformed body one wrapping errFrame.
func TestGRPCWebMessage(t *testing.T) {
	id := cat([]byte{0x09}, fixed(42))
	ok := webTrailer("grpc-status: 0\r\n")
	for _, tc := range []struct {
		name   string
		header http.Header
		body   []byte
		want   []byte
		err    string // "" for success
		frame  bool   // the error wraps errFrame
	}{
		{"message and trailer", nil, cat(grpcFrame(id), ok), id, "", false},
		{"empty message", nil, cat(grpcFrame(nil), ok), []byte{}, "", false},
		{"trailer unterminated, mixed case, more keys", nil, cat(grpcFrame(id), webTrailer("x-a: 1\r\nGrpc-Status: 0")), id, "", false},
		{"trailers-only error", http.Header{"Grpc-Status": {"8"}, "Grpc-Message": {"window%20exhausted"}}, nil, nil,
			"grpc-status 8: window exhausted", false},
		{"error in the trailer", nil, webTrailer("grpc-status: 3\r\ngrpc-message: count%200%3A%20want%201..100000\r\n"), nil,
			"grpc-status 3: count 0: want 1..100000", false},
		{"error after a message", nil, cat(grpcFrame(id), webTrailer("grpc-status: 14\r\ngrpc-message: lease lost")), nil,
			"grpc-status 14: lease lost", false},
		{"message undecodable escape kept", nil, webTrailer("grpc-status: 13\r\ngrpc-message: 100%"), nil, "grpc-status 13: 100%", false},
		{"trailer's status over the header's", http.Header{"Grpc-Status": {"0"}}, cat(grpcFrame(id), webTrailer("grpc-status: 2")), nil,
			"grpc-status 2", false},
		{"empty body, no status header", nil, nil, nil, "no grpc-status", false},
		{"trailer without status", nil, cat(grpcFrame(id), webTrailer("x-other: 1\r\n")), nil, "no grpc-status", false},
		{"empty trailer", nil, cat(grpcFrame(id), webTrailer("")), nil, "no grpc-status", false},
		{"missing trailer", nil, grpcFrame(id), nil, "a message and no gRPC-Web trailer frame", true},
		{"missing trailer, status header", http.Header{"Grpc-Status": {"0"}}, grpcFrame(id), nil, "no gRPC-Web trailer frame", true},
		{"status 0, no message", nil, ok, nil, "grpc-status 0 and no message frame", true},
		{"frame header short", nil, []byte{0, 0, 0}, nil, "gRPC frame truncated (3 bytes)", true},
		{"trailer header short", nil, cat(grpcFrame(id), []byte{0x80, 0, 0, 0}), nil, "gRPC frame truncated (4 bytes)", true},
		{"message length past the end", nil, cat([]byte{0, 0, 0, 0, 100}, id, ok), nil, "gRPC frame of 100 bytes, 30 follow", true},
		{"trailer length past the end", nil, cat(grpcFrame(id), ok[:8]), nil, "gRPC frame of 16 bytes, 3 follow", true},
		{"trailer not header lines", nil, cat(grpcFrame(id), webTrailer("grpc-status 0")), nil, `gRPC-Web trailer "grpc-status 0"`, true},
		{"two messages", nil, cat(grpcFrame(id), grpcFrame(id), ok), nil, "2 message frames in a unary response", true},
		{"frame after the trailer", nil, cat(ok, grpcFrame(id)), nil, "a frame after the gRPC-Web trailer", true},
		{"two trailers", nil, cat(grpcFrame(id), ok, ok), nil, "a frame after the gRPC-Web trailer", true},
		{"compressed message", nil, cat([]byte{0x01}, grpcFrame(id)[1:], ok), nil, "compressed gRPC message (flag 0x1)", true},
		{"compressed trailer", nil, cat(grpcFrame(id), []byte{0x81}, ok[1:]), nil, "compressed gRPC message (flag 0x81)", true},
		{"unknown flag", nil, cat([]byte{0x02}, grpcFrame(id)[1:], ok), nil, "gRPC frame flag 0x2", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			resp := &http.Response{StatusCode: http.StatusOK, Header: tc.header}
			if resp.Header == nil {
				resp.Header = http.Header{}
			}
			got, err := grpcWebMessage(resp, tc.body)
			if tc.err == "" {
				require.NoError(t, err)
				assert.Equal(t, tc.want, got)
				return
			}
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.err)
			assert.Equal(t, tc.frame, errors.Is(err, errFrame), "wraps errFrame: %v", err)
		})
	}
}

// TestGRPCMessage: gRPC has no trailer frame (its trailers are HTTP/2's),
// so the flag gRPC-Web gives one is an unknown flag there.
func TestGRPCMessage(t *testing.T) {
	id := cat([]byte{0x09}, fixed(42))
	resp := &http.Response{StatusCode: http.StatusOK, Header: http.Header{}, Trailer: http.Header{"Grpc-Status": {"0"}}}
	got, err := grpcMessage(resp, grpcFrame(id))
	require.NoError(t, err)
	assert.Equal(t, id, got)
	for body, want := range map[string]string{
		string(webTrailer("grpc-status: 0")):      "gRPC frame flag 0x80",
		string(cat(grpcFrame(id), grpcFrame(id))): "2 message frames",
		"": "grpc-status 0 and no message frame",
		string(cat(grpcFrame(id), []byte{0, 0, 0, 0, 9})): "gRPC frame of 9 bytes, 0 follow",
	} {
		_, err := grpcMessage(resp, []byte(body))
		require.ErrorIs(t, err, errFrame, want)
		assert.Contains(t, err.Error(), want)
	}
}

func FuzzGRPCWebMessage(f *testing.F) {
	f.Add(cat(grpcFrame([]byte{0x09, 1, 2, 3, 4, 5, 6, 7, 8}), webTrailer("grpc-status: 0\r\n")))
	f.Add(webTrailer("grpc-status: 3\r\ngrpc-message: x"))
	f.Fuzz(func(t *testing.T, body []byte) {
		_, _ = grpcWebMessage(&http.Response{StatusCode: http.StatusOK, Header: http.Header{}}, body)
	})
}
