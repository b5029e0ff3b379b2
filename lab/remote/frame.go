package remote

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"net/http"
	"net/textproto"
	"net/url"
)

// gRPC and gRPC-Web carry each message in a frame: one flag byte, a
// big-endian 32-bit length, the bytes. gRPC-Web, made for HTTP/1.1 where
// a browser cannot read trailers, sends the trailers as one more frame at
// the end of the body, flagged frameTrailer, holding HTTP/1 header lines.
const (
	frameHeader     = 5
	frameCompressed = 0x01
	frameTrailer    = 0x80
)

// errFrame is wrapped by every error about a body that is not a sequence
// of frames as the protocol writes them.
var errFrame = errors.New("malformed frame")

// grpcFrame is msg as one uncompressed message frame: a request body.
func grpcFrame(msg []byte) []byte {
	frame := make([]byte, frameHeader, frameHeader+len(msg))
	binary.BigEndian.PutUint32(frame[1:], uint32(len(msg)))
	return append(frame, msg...)
}

// cutFrame splits the frame at the front of body from what follows it.
func cutFrame(body []byte) (flag byte, payload, rest []byte, err error) {
	if len(body) < frameHeader {
		return 0, nil, nil, fmt.Errorf("%w: gRPC frame truncated (%d bytes)", errFrame, len(body))
	}
	n := binary.BigEndian.Uint32(body[1:frameHeader])
	if uint64(n) > uint64(len(body)-frameHeader) {
		return 0, nil, nil, fmt.Errorf("%w: gRPC frame of %d bytes, %d follow", errFrame, n, len(body)-frameHeader)
	}
	end := frameHeader + int(n)
	return body[0], body[frameHeader:end], body[end:], nil
}

// grpcStatusError is the error for a gRPC status: nil for "0", else one
// naming grpc-status and grpc-message (percent-decoded, as the spec has the
// server encode it).
func grpcStatusError(status, message string) error {
	switch status {
	case "0":
		return nil
	case "":
		return errors.New("no grpc-status")
	}
	if m, err := url.PathUnescape(message); err == nil {
		message = m
	}
	return &StatusError{Code: grpcCodeName(status), Message: message, grpcStatus: status}
}

// parseWebTrailer reads a gRPC-Web trailer frame's payload: "key: value"
// lines separated by CRLF, the last not terminated.
func parseWebTrailer(payload []byte) (http.Header, error) {
	r := textproto.NewReader(bufio.NewReader(bytes.NewReader(append(payload[:len(payload):len(payload)], "\r\n\r\n"...))))
	h, err := r.ReadMIMEHeader()
	if err != nil {
		return nil, fmt.Errorf("%w: gRPC-Web trailer %q: %v", errFrame, payload, err)
	}
	return http.Header(h), nil
}

// unaryFrames splits a unary response body into its message frame and,
// for gRPC-Web (web), its trailer frame's payload (nil when it has none).
// messages is how many message frames there were: a unary call answers
// one, or none with an error status.
func unaryFrames(body []byte, web bool) (msg, trailer []byte, messages int, err error) {
	for len(body) > 0 {
		flag, payload, rest, err := cutFrame(body)
		switch {
		case err != nil:
			return nil, nil, 0, err
		case trailer != nil:
			return nil, nil, 0, fmt.Errorf("%w: a frame after the gRPC-Web trailer", errFrame)
		case flag == frameTrailer && web:
			trailer = payload
		case flag == 0:
			if messages++; messages > 1 {
				return nil, nil, 0, fmt.Errorf("%w: %d message frames in a unary response", errFrame, messages)
			}
			msg = payload
		case flag&frameCompressed != 0:
			return nil, nil, 0, fmt.Errorf("%w: compressed gRPC message (flag %#x), not asked for", errFrame, flag)
		default:
			return nil, nil, 0, fmt.Errorf("%w: gRPC frame flag %#x", errFrame, flag)
		}
		body = rest
	}
	return msg, trailer, messages, nil
}

// grpcMessage reads a gRPC unary response: its status from the HTTP/2
// trailers (or the headers, for a trailers-only error), then its one
// message.
func grpcMessage(resp *http.Response, body []byte) ([]byte, error) {
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("HTTP %d", resp.StatusCode)
	}
	status, message := resp.Trailer.Get("Grpc-Status"), resp.Trailer.Get("Grpc-Message")
	if status == "" {
		status, message = resp.Header.Get("Grpc-Status"), resp.Header.Get("Grpc-Message")
	}
	if err := grpcStatusError(status, message); err != nil {
		return nil, err
	}
	msg, _, n, err := unaryFrames(body, false)
	if err == nil && n == 0 {
		err = fmt.Errorf("%w: grpc-status 0 and no message frame", errFrame)
	}
	return msg, err
}

// grpcWebMessage reads a gRPC-Web unary response: its message frame, then
// its status from the trailer frame that ends the body, or from the
// headers for a trailers-only error (a body with no frames).
func grpcWebMessage(resp *http.Response, body []byte) ([]byte, error) {
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("HTTP %d", resp.StatusCode)
	}
	msg, raw, n, err := unaryFrames(body, true)
	if err != nil {
		return nil, err
	}
	trailer := resp.Header
	switch {
	case raw != nil:
		if trailer, err = parseWebTrailer(raw); err != nil {
			return nil, err
		}
	case n > 0:
		return nil, fmt.Errorf("%w: a message and no gRPC-Web trailer frame", errFrame)
	}
	if err := grpcStatusError(trailer.Get("Grpc-Status"), trailer.Get("Grpc-Message")); err != nil {
		return nil, err
	}
	if n == 0 {
		return nil, fmt.Errorf("%w: grpc-status 0 and no message frame", errFrame)
	}
	return msg, nil
}
