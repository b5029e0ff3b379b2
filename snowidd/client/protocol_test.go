package client_test

import (
	"flag"
	"fmt"
	"io"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/snowlab/snowlab/snowidd/client"
)

// TestProtocolText: every protocol's name reads back as it, through
// ParseProtocol and through a flag.TextVar; a name or number the client
// does not speak is an error wrapping ErrProtocol that names it.
func TestProtocolText(t *testing.T) {
	names := map[client.Protocol]string{client.GRPC: "grpc", client.GRPCWeb: "grpc-web",
		client.ConnectProto: "connect+proto", client.ConnectJSON: "connect+json"}
	require.Len(t, client.Protocols(), len(names))
	for _, p := range client.Protocols() {
		assert.Equal(t, names[p], p.String())
		got, err := client.ParseProtocol(p.String())
		require.NoError(t, err)
		assert.Equal(t, p, got)
		text, err := p.MarshalText()
		require.NoError(t, err)
		assert.Equal(t, names[p], string(text))

		fs := flag.NewFlagSet("test", flag.ContinueOnError)
		var q client.Protocol
		fs.TextVar(&q, "protocol", client.GRPC, "")
		require.NoError(t, fs.Parse([]string{"-protocol", names[p]}))
		assert.Equal(t, p, q)
	}
	assert.Equal(t, "grpc, grpc-web, connect+proto, connect+json", client.JoinProtocols(client.Protocols(), ", "))

	for _, bad := range []string{"soap", "", "GRPC", "connect"} {
		_, err := client.ParseProtocol(bad)
		require.ErrorIs(t, err, client.ErrProtocol, bad)
		assert.ErrorContains(t, err, `"`+bad+`" (want one of grpc, grpc-web, connect+proto, connect+json)`)
	}
	fs := flag.NewFlagSet("test", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	var q client.Protocol
	fs.TextVar(&q, "protocol", client.GRPC, "")
	assert.ErrorContains(t, fs.Parse([]string{"-protocol", "soap"}), `"soap"`)

	for _, p := range []client.Protocol{-1, 9} {
		assert.Equal(t, fmt.Sprintf("Protocol(%d)", int(p)), p.String())
		_, err := p.MarshalText()
		assert.ErrorIs(t, err, client.ErrProtocol)
		_, err = p.Options()
		assert.ErrorIs(t, err, client.ErrProtocol)
		_, err = client.New(client.Config{Targets: []string{"http://127.0.0.1:1"}, Protocol: p})
		assert.ErrorIs(t, err, client.ErrProtocol)
	}
}
