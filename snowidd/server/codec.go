package server

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strings"

	"connectrpc.com/connect"
	"github.com/prometheus/client_golang/prometheus"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	snowlabv1 "github.com/snowlab/snowlab/snowidd/gen/snowlab/v1"
	"github.com/snowlab/snowlab/snowidd/internal/idtext"
)

// codecOptions are the codecs a method's handler reads and writes with,
// in place of connect-go's. Connect's write JSON without the fields that
// hold their zero value (a Decode of node 0 lost its "node" key, which a
// client in another language then has to default), and their read errors
// name the Go type the body was read into ("unmarshal into
// *snowlabv1.NextIDsRequest"), which means nothing to a caller. These
// write every field and say what is wrong in the caller's terms: the
// field and the value it sent. A body that cannot be read is answered
// InvalidArgument before the interceptor sees the call, so they count it
// themselves, under the method's invalid_argument series.
func (m *metrics) codecOptions(spec connect.Spec) []connect.HandlerOption {
	refused := m.requests.WithLabelValues(methodName(spec.Procedure), connect.CodeInvalidArgument.String())
	return []connect.HandlerOption{
		connect.WithCodec(&protoCodec{refused: refused}),
		// Connect registers JSON under both names a Content-Type may
		// carry; each must be replaced.
		connect.WithCodec(&jsonCodec{name: "json", refused: refused, timeFormat: m.timeFormat}),
		connect.WithCodec(&jsonCodec{name: "json; charset=utf-8", refused: refused, timeFormat: m.timeFormat}),
	}
}

// errNotMessage is what a codec answers for a value that is not a
// protobuf message, which no handler of the service hands it.
var errNotMessage = errors.New("snowidd: codec given a value that is not a protobuf message")

// protoCodec is protobuf binary, as connect-go's, with errors that name
// the message by its protobuf name.
type protoCodec struct{ refused prometheus.Counter }

func (*protoCodec) Name() string { return "proto" }

func (c *protoCodec) Marshal(v any) ([]byte, error) { return c.MarshalAppend(nil, v) }

// MarshalAppend lets connect-go marshal into its pooled buffers.
func (*protoCodec) MarshalAppend(dst []byte, v any) ([]byte, error) {
	m, ok := v.(proto.Message)
	if !ok {
		return nil, errNotMessage
	}
	return proto.MarshalOptions{}.MarshalAppend(dst, m)
}

func (c *protoCodec) Unmarshal(data []byte, v any) error {
	m, ok := v.(proto.Message)
	if !ok {
		return errNotMessage
	}
	if err := proto.Unmarshal(data, m); err != nil {
		c.refused.Inc()
		return fmt.Errorf("snowidd: the body is not a %s in protobuf binary: %w", m.ProtoReflect().Descriptor().FullName(), err)
	}
	return nil
}

// jsonCodec is protojson with every field written, zero ones too, and
// read errors that name the field and the value at fault. Decode's JSON
// is snowid's: its time in timeFormat (protojson writes a Timestamp
// with 0, 3, 6 or 9 fractional digits, whichever is shortest, so a whole
// second lost the ".000" snowid decode -json prints), and its id in any
// form snowid decode takes (idtext.Parse; protojson reads only decimal).
type jsonCodec struct {
	name       string
	refused    prometheus.Counter
	timeFormat string
}

// jsonWrite writes every scalar and list field, zero ones too: a client
// in another language reads the key it expects whatever the value.
// (EmitUnpopulated would also write an unset message field as null.)
var jsonWrite = protojson.MarshalOptions{EmitDefaultValues: true}

// jsonRead refuses a field it does not know, where connect-go's codec
// ignores it: {"cuont":3} was read as {} and answered "count 0 is out of
// range", sending the caller to the value, not the name. JSON callers
// are mostly hand-written (curl, fetch), where a misspelt key is likelier
// than a client of a newer contract, and refusing is the proto3 JSON
// mapping's default; protobuf binary still keeps unknown fields, the
// path the generated clients' forward compatibility rests on.
var jsonRead = protojson.UnmarshalOptions{}

func (c *jsonCodec) Name() string { return c.name }

func (c *jsonCodec) Marshal(v any) ([]byte, error) { return c.MarshalAppend(nil, v) }

// MarshalAppend lets connect-go marshal into its pooled buffers.
func (c *jsonCodec) MarshalAppend(dst []byte, v any) ([]byte, error) {
	m, ok := v.(proto.Message)
	if !ok {
		return nil, errNotMessage
	}
	if d, ok := m.(*snowlabv1.DecodeResponse); ok {
		js, err := jsonWrite.Marshal(d)
		if err != nil {
			return nil, err
		}
		return withTime(dst, js, d.GetTime().AsTime().UTC().Format(c.timeFormat))
	}
	return jsonWrite.MarshalAppend(dst, m)
}

// withTime appends js, a JSON object, to dst with the value of its key
// "time" replaced by the string t, every other key and value as they are
// and in their order.
func withTime(dst, js []byte, t string) ([]byte, error) {
	dec := json.NewDecoder(bytes.NewReader(js))
	if _, err := dec.Token(); err != nil { // {
		return nil, err
	}
	dst = append(dst, '{')
	for i := 0; dec.More(); i++ {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		var value json.RawMessage
		if err := dec.Decode(&value); err != nil {
			return nil, err
		}
		key, _ := tok.(string)
		if key == "time" {
			value, _ = json.Marshal(t) // a string: cannot fail
		}
		if i > 0 {
			dst = append(dst, ',')
		}
		quoted, _ := json.Marshal(key)
		dst = append(append(append(dst, quoted...), ':'), value...)
	}
	return append(dst, '}'), nil
}

func (c *jsonCodec) Unmarshal(data []byte, v any) error {
	m, ok := v.(proto.Message)
	if !ok {
		return errNotMessage
	}
	err := jsonRead.Unmarshal(data, m)
	if err == nil {
		return nil
	}
	if req, ok := m.(*snowlabv1.DecodeRequest); ok {
		err = readDecodeID(data, req, err)
	} else {
		err = jsonProblem(data, m.ProtoReflect().Type(), err)
	}
	if err != nil {
		c.refused.Inc()
	}
	return err
}

// readDecodeID reads a DecodeRequest whose id protojson refused (perr):
// a JSON string is then read as snowid decode reads an argument
// (idtext.Parse: base32 of either case, dec: or b32: first, decimal with
// leading zeros, 13 digits refused when they read two ways). A decimal
// string protojson reads stays its decimal, as the contract says, 13
// digits without a leading zero too. Anything else is jsonProblem's
// error.
func readDecodeID(data []byte, req *snowlabv1.DecodeRequest, perr error) error {
	problem := func() error { return jsonProblem(data, req.ProtoReflect().Type(), perr) }
	var body map[string]json.RawMessage
	if json.Unmarshal(data, &body) != nil || len(body) != 1 {
		return problem()
	}
	raw, ok := body["id"]
	var s string
	if !ok || json.Unmarshal(raw, &s) != nil {
		return problem()
	}
	id, err := idtext.Parse(s)
	if err != nil {
		return fmt.Errorf("snowidd: id: %w", err)
	}
	req.Id = uint64(id)
	return nil
}

// jsonProblem says what is wrong with body, which protojson refused to
// read as a t (its error was err): the field and its value as the
// caller wrote them, or where the JSON breaks. It reads the body again
// with encoding/json, one field at a time, rather than parse protojson's
// messages, whose words are not its API.
func jsonProblem(body []byte, t protoreflect.MessageType, err error) error {
	if len(bytes.TrimSpace(body)) == 0 {
		return errors.New("snowidd: the body is empty: want a JSON object")
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	tok, terr := dec.Token()
	if terr != nil {
		return fmt.Errorf("snowidd: the body is not JSON: %s", jsonSyntax(terr))
	}
	if tok != json.Delim('{') {
		return fmt.Errorf("snowidd: the body is not a JSON object: it starts %s", clip(body))
	}
	fields := t.Descriptor().Fields()
	seen := map[protoreflect.FieldNumber]string{}
	for dec.More() {
		tok, terr := dec.Token()
		if terr != nil {
			return fmt.Errorf("snowidd: the body is not JSON: %s", jsonSyntax(terr))
		}
		key, _ := tok.(string) // an object's key is a string or a syntax error
		var value json.RawMessage
		if terr := dec.Decode(&value); terr != nil {
			if errors.Is(terr, io.EOF) || errors.Is(terr, io.ErrUnexpectedEOF) {
				return fmt.Errorf("snowidd: %s: the body ends before its value", key)
			}
			return fmt.Errorf("snowidd: %s: the value is not JSON: %s", key, jsonSyntax(terr))
		}
		// The names protojson reads a field by: its JSON name, then its
		// name in the .proto file.
		fd := fields.ByJSONName(key)
		if fd == nil {
			fd = fields.ByTextName(key)
		}
		if fd == nil {
			return unknownField(key, t.Descriptor())
		}
		if prev, dup := seen[fd.Number()]; dup {
			return fmt.Errorf("snowidd: %s: given twice (as %q and %q)", key, prev, key)
		}
		seen[fd.Number()] = key
		quoted, _ := json.Marshal(key)
		one := bytes.Join([][]byte{[]byte("{"), quoted, []byte(":"), value, []byte("}")}, nil)
		if jsonRead.Unmarshal(one, t.New().Interface()) != nil {
			return fmt.Errorf("snowidd: %s: %s is not %s", key, clip(value), wantJSON(fd))
		}
	}
	if _, terr := dec.Token(); terr != nil { // the closing brace
		if errors.Is(terr, io.EOF) || errors.Is(terr, io.ErrUnexpectedEOF) {
			return errors.New("snowidd: the body ends before its JSON object's closing brace")
		}
		return fmt.Errorf("snowidd: the body is not JSON: %s", jsonSyntax(terr))
	}
	if _, terr := dec.Token(); !errors.Is(terr, io.EOF) {
		return errors.New("snowidd: the body goes on after its JSON object")
	}
	// Every field reads alone: a rule between fields (two members of a
	// oneof) was broken. protojson's words then, which name no Go type.
	return fmt.Errorf("snowidd: the body is not a %s: %w", t.Descriptor().FullName(), err)
}

// unknownField is the error for a key md has no field by: its fields'
// JSON names, so that a misspelt key is seen beside the right one.
func unknownField(key string, md protoreflect.MessageDescriptor) error {
	fields := md.Fields()
	if fields.Len() == 0 {
		return fmt.Errorf("snowidd: %s: no such field: a %s has none (send {})", key, md.FullName())
	}
	names := make([]string, fields.Len())
	for i := range names {
		names[i] = fields.Get(i).JSONName()
	}
	return fmt.Errorf("snowidd: %s: no such field in a %s: want %s", key, md.FullName(), strings.Join(names, ", "))
}

// jsonSyntax is a syntax error of encoding/json in words. (Its offsets
// are not given: Token and Decode count them differently, and a body is
// at most a few KiB.)
func jsonSyntax(err error) string {
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return "it ends too soon"
	}
	return err.Error()
}

// clip is a value as the caller wrote it, cut short: an error repeats
// what was sent, not a whole body.
func clip(b []byte) string {
	const most = 40
	s := strings.TrimSpace(string(b))
	if len(s) > most {
		return s[:most] + "…"
	}
	return s
}

// wantJSON says, in JSON's terms, what protojson reads for fd.
func wantJSON(fd protoreflect.FieldDescriptor) string {
	switch {
	case fd.IsMap():
		return "a JSON object (a map)"
	case fd.IsList():
		return "a JSON array, each element " + wantScalar(fd)
	}
	return wantScalar(fd)
}

func wantScalar(fd protoreflect.FieldDescriptor) string {
	switch fd.Kind() {
	case protoreflect.BoolKind:
		return "true or false"
	case protoreflect.Int32Kind, protoreflect.Sint32Kind, protoreflect.Sfixed32Kind:
		return fmt.Sprintf("an integer in %d..%d", math.MinInt32, math.MaxInt32)
	case protoreflect.Uint32Kind, protoreflect.Fixed32Kind:
		return fmt.Sprintf("an integer in 0..%d", uint32(math.MaxUint32))
	case protoreflect.Int64Kind, protoreflect.Sint64Kind, protoreflect.Sfixed64Kind:
		return fmt.Sprintf("an integer in %d..%d (a number or a decimal string)", int64(math.MinInt64), int64(math.MaxInt64))
	case protoreflect.Uint64Kind, protoreflect.Fixed64Kind:
		return fmt.Sprintf("an integer in 0..%d (a number or a decimal string)", uint64(math.MaxUint64))
	case protoreflect.FloatKind, protoreflect.DoubleKind:
		return "a number"
	case protoreflect.StringKind:
		return "a JSON string"
	case protoreflect.BytesKind:
		return "a JSON string of base64"
	case protoreflect.EnumKind:
		vals := fd.Enum().Values()
		names := make([]string, vals.Len())
		for i := range names {
			names[i] = string(vals.Get(i).Name())
		}
		return "one of " + strings.Join(names, ", ")
	}
	return "a JSON object (" + string(fd.Message().FullName()) + ")"
}
