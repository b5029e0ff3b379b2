package client

import (
	"errors"
	"fmt"
	"strings"

	"connectrpc.com/connect"
)

// Protocol is the wire protocol the client speaks; every replica serves
// them all on one port. Its text (String, MarshalText, ParseProtocol, so
// that flag.TextVar reads one) is the protocol's name as its content
// types spell it: grpc, grpc-web, connect+proto, connect+json.
type Protocol int

const (
	// GRPC is gRPC over HTTP/2 (the zero value).
	GRPC Protocol = iota
	// ConnectProto is the Connect protocol with binary protobuf.
	ConnectProto
	// ConnectJSON is the Connect protocol with JSON, as curl speaks it.
	ConnectJSON
	// GRPCWeb is gRPC-Web with binary protobuf, as a browser speaks it:
	// the status comes in a frame at the end of the body, since a browser
	// cannot read HTTP trailers.
	GRPCWeb
)

// Protocols returns every protocol: gRPC's two, then Connect's two.
func Protocols() []Protocol { return []Protocol{GRPC, GRPCWeb, ConnectProto, ConnectJSON} }

// ErrProtocol is wrapped by the error for a protocol name or number the
// client does not speak.
var ErrProtocol = errors.New("snowidd client: unknown protocol")

// String is the protocol's name, or Protocol(N) for a number it does not
// know.
func (p Protocol) String() string {
	switch p {
	case GRPC:
		return "grpc"
	case ConnectProto:
		return "connect+proto"
	case ConnectJSON:
		return "connect+json"
	case GRPCWeb:
		return "grpc-web"
	}
	return fmt.Sprintf("Protocol(%d)", int(p))
}

// ParseProtocol reads a Protocol's String.
func ParseProtocol(s string) (Protocol, error) {
	for _, p := range Protocols() {
		if p.String() == s {
			return p, nil
		}
	}
	return 0, fmt.Errorf("%w %q (want one of %s)", ErrProtocol, s, JoinProtocols(Protocols(), ", "))
}

// JoinProtocols is the names of ps separated by sep, as a comma list of
// them on a command line is written.
func JoinProtocols(ps []Protocol, sep string) string {
	names := make([]string, len(ps))
	for i, p := range ps {
		names[i] = p.String()
	}
	return strings.Join(names, sep)
}

// MarshalText is the protocol's name; a number it does not know is an
// error wrapping ErrProtocol, not a name ParseProtocol would refuse.
func (p Protocol) MarshalText() ([]byte, error) {
	if !p.valid() {
		return nil, fmt.Errorf("%w %d", ErrProtocol, int(p))
	}
	return []byte(p.String()), nil
}

// UnmarshalText reads a name as ParseProtocol does.
func (p *Protocol) UnmarshalText(text []byte) error {
	q, err := ParseProtocol(string(text))
	if err != nil {
		return err
	}
	*p = q
	return nil
}

func (p Protocol) valid() bool { return p >= GRPC && p <= GRPCWeb }

// Options are the connect client options that select p.
func (p Protocol) Options() ([]connect.ClientOption, error) {
	switch p {
	case GRPC:
		return []connect.ClientOption{connect.WithGRPC()}, nil
	case ConnectProto:
		return nil, nil
	case ConnectJSON:
		return []connect.ClientOption{connect.WithProtoJSON()}, nil
	case GRPCWeb:
		return []connect.ClientOption{connect.WithGRPCWeb()}, nil
	}
	return nil, fmt.Errorf("%w %d", ErrProtocol, int(p))
}
