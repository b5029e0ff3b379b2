package server_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"connectrpc.com/connect"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"google.golang.org/protobuf/encoding/protowire"

	"github.com/snowlab/snowlab"
	snowlabv1 "github.com/snowlab/snowlab/snowidd/gen/snowlab/v1"
	"github.com/snowlab/snowlab/snowidd/gen/snowlab/v1/snowlabv1connect"
	"github.com/snowlab/snowlab/snowidd/internal/snowidcli"
	"github.com/snowlab/snowlab/snowidd/internal/testend"
)

// Decode's JSON carries every field, zero ones too, under the keys
// `snowid decode -json` prints, with the values it prints; its time is
// the instant of snowid's time_utc.
func TestDecodeJSONKeys(t *testing.T) {
	r := newRig(t, rigOpts{})
	l := snowlab.DefaultLayout
	for _, tc := range []struct {
		name      string
		at        time.Time
		node, seq int
	}{
		{"node 0, seq 0", time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC), 0, 0},
		{"the epoch: ID 0", l.Epoch, 0, 0},
		{"every field at its largest", l.Horizon().Add(-l.Unit), l.MaxNode(), l.MaxSeq()},
	} {
		id, err := l.Compose(tc.at, tc.node, tc.seq)
		require.NoError(t, err, tc.name)
		code, body := r.do(http.MethodPost, "/snowlab.v1.IDService/Decode", "application/json", fmt.Sprintf(`{"id":"%d"}`, id))
		require.Equal(t, http.StatusOK, code, "%s: %s", tc.name, body)
		var got map[string]any
		require.NoError(t, json.Unmarshal([]byte(body), &got), body)
		assert.ElementsMatch(t, []string{"time", "node", "seq", "id", "base32"}, keys(got), "%s: %s", tc.name, body)
		assert.Equal(t, float64(tc.node), got["node"], tc.name)
		assert.Equal(t, float64(tc.seq), got["seq"], tc.name)

		var out, errs bytes.Buffer
		require.Zero(t, snowidcli.Run([]string{"decode", "-json", id.String()}, &out, &errs, nil), errs.String())
		var want map[string]any
		require.NoError(t, json.Unmarshal(out.Bytes(), &want), out.String())
		for k, v := range got {
			if k == "time" {
				continue
			}
			require.Contains(t, want, k, "snowid decode -json has no key %q: %s", k, out.String())
			assert.Equal(t, want[k], v, "%s: key %q", tc.name, k)
		}
		// The time as snowid writes it, ".000" on a whole second too
		// (protojson's Timestamp dropped it).
		assert.Equal(t, want["time_utc"], got["time"], "%s: time as snowid's time_utc", tc.name)
		gotTime, err := time.Parse(time.RFC3339Nano, got["time"].(string))
		require.NoError(t, err)
		assert.True(t, gotTime.Equal(tc.at), "%s: time %v, minted at %v", tc.name, gotTime, tc.at)
	}
}

// Decode's JSON takes the ID in every form snowid decode takes: base32
// of either case, dec: and b32: prefixes, leading zeros; a decimal string
// protojson reads stays the decimal the contract says (13 digits with no
// leading zero too, which snowid refuses when they read two ways). Its
// answer keeps protojson's key order. The service refused base32 that the
// command accepted.
func TestDecodeJSONTakesSnowidForms(t *testing.T) {
	r := newRig(t, rigOpts{})
	const want = `{"time":"2025-01-24T19:35:58.021Z","node":37,"seq":0,"id":"141264821508263936","base32":"03XEZKD8M4M00"}`
	for _, body := range []string{
		`{"id":"141264821508263936"}`, `{"id":141264821508263936}`,
		`{"id":"03XEZKD8M4M00"}`, `{"id":"03xezkd8m4m00"}`,
		`{"id":"b32:3XEZKD8M4M00"}`, `{"id":"dec:141264821508263936"}`,
	} {
		code, got := r.do(http.MethodPost, "/snowlab.v1.IDService/Decode", "application/json", body)
		require.Equal(t, http.StatusOK, code, "%s: %s", body, got)
		assert.JSONEq(t, want, got, body)
		assert.Equal(t, want, strings.Join(strings.Fields(got), ""), "%s: the keys in order", body)
	}
	for body, id := range map[string]string{
		`{"id":"1234567890123"}`:  "1234567890123", // 13 digits: protojson's decimal
		`{"id":"00312345678901"}`: "312345678901",  // leading zeros: snowid's decimal
		`{"id":"0000000000007"}`:  "7",             // the same ID both ways
	} {
		code, got := r.do(http.MethodPost, "/snowlab.v1.IDService/Decode", "application/json", body)
		require.Equal(t, http.StatusOK, code, "%s: %s", body, got)
		assert.Contains(t, got, `"id":"`+id+`"`, body)
	}
}

func keys(m map[string]any) []string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	return ks
}

// A body over the limit is 413 however its length is told (connect-go
// would answer 429, which a client reads as rate limiting), with the
// Connect error body a Connect client reads its code from; a gRPC call
// gets ResourceExhausted in its trailers. A body at the limit is read.
func TestOversizeBody(t *testing.T) {
	r := newRig(t, rigOpts{})
	const path = "/snowlab.v1.IDService/NextIDs"
	// Padded with white space, which JSON allows anywhere between tokens:
	// an unknown key would be refused as one.
	padded := func(size int) string {
		const head, tail = `{"count":3`, `}`
		return head + strings.Repeat(" ", size-len(head)-len(tail)) + tail
	}
	gzipped := func(s string) io.Reader {
		var b bytes.Buffer
		w := gzip.NewWriter(&b)
		_, err := w.Write([]byte(s))
		require.NoError(t, err)
		require.NoError(t, w.Close())
		require.Less(t, b.Len(), 1<<10, "the compressed body is under the limit")
		return &b
	}
	for _, tc := range []struct {
		name     string
		body     io.Reader
		encoding string
		want     int
	}{
		{"5 KiB, Content-Length", strings.NewReader(padded(5 << 10)), "", http.StatusRequestEntityTooLarge},
		{"5 KiB, chunked", io.MultiReader(strings.NewReader(padded(5 << 10))), "", http.StatusRequestEntityTooLarge},
		{"5 KiB gzipped", gzipped(padded(5 << 10)), "gzip", http.StatusRequestEntityTooLarge},
		{"4 KiB, Content-Length", strings.NewReader(padded(4 << 10)), "", http.StatusOK},
		{"4 KiB, chunked", io.MultiReader(strings.NewReader(padded(4 << 10))), "", http.StatusOK},
		{"4 KiB gzipped", gzipped(padded(4 << 10)), "gzip", http.StatusOK},
	} {
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, r.url+path, tc.body)
		require.NoError(t, err)
		req.Header.Set("Content-Type", "application/json")
		if tc.encoding != "" {
			req.Header.Set("Content-Encoding", tc.encoding)
		}
		before := r.series("snowidd_rejected_requests_total", "reason", "body_too_large")
		code, body := r.send(req)
		require.Equal(t, tc.want, code, "%s: %s", tc.name, body)
		after := r.series("snowidd_rejected_requests_total", "reason", "body_too_large")
		if tc.want == http.StatusOK {
			assert.Equal(t, before, after, tc.name)
			continue
		}
		assert.Equal(t, before+1, after, tc.name)
		var e struct{ Code, Message string }
		require.NoError(t, json.Unmarshal([]byte(body), &e), body)
		assert.Equal(t, "resource_exhausted", e.Code, tc.name)
		assert.Regexp(t, `\b5\d{3}\b.*\b4096\b`, e.Message, "%s: the message gives the size and the limit", tc.name)
	}
	assert.Equal(t, 9.0, r.metric("snowidd_ids_issued_total"), "the three bodies at the limit were served")

	// connect-go's client reads the code from the 413's body. (An
	// unknown field pads the message: protojson would drop it, so the
	// Connect client sends protobuf binary.)
	big := &snowlabv1.NextIDsRequest{Count: 3}
	big.ProtoReflect().SetUnknown(protowire.AppendBytes(protowire.AppendTag(nil, 99, protowire.BytesType), make([]byte, 5<<10)))
	connectProto := snowlabv1connect.NewIDServiceClient(http.DefaultClient, r.url)
	_, err := connectProto.NextIDs(ctx, connect.NewRequest(big))
	assert.Equal(t, connect.CodeResourceExhausted, connect.CodeOf(err), "%v", err)
	_, err = r.grpc.NextIDs(ctx, connect.NewRequest(big))
	assert.Equal(t, connect.CodeResourceExhausted, connect.CodeOf(err), "%v", err)
	assert.Equal(t, int64(3), r.gen.calls.Load(), "no refused body reached the generator")
}

// A body that cannot be read is InvalidArgument with a message that
// names the field and the value sent, in JSON's terms, never the Go type
// it was read into, and it is counted under its method.
func TestUnreadableBodies(t *testing.T) {
	r := newRig(t, rigOpts{})
	for _, tc := range []struct {
		method, contentType, body, want string
	}{
		{"NextIDs", "application/json", `{"count":"abc"}`, `count: "abc" is not an integer in 0..4294967295`},
		{"NextIDs", "application/json", `{"count":`, `count: the body ends before its value`},
		{"NextIDs", "application/json", `{"count":}`, `count: the value is not JSON`},
		{"NextIDs", "application/json", `{"count":1.5}`, `count: 1.5 is not an integer in 0..4294967295`},
		{"NextIDs", "application/json", `{"count":-1}`, `count: -1 is not an integer in 0..4294967295`},
		{"NextIDs", "application/json", `{"count":1,"count":2}`, `count: given twice`},
		// A misspelt key, which read as {} was "count 0 is out of range".
		{"NextIDs", "application/json", `{"cuont":3}`, `cuont: no such field in a snowlab.v1.NextIDsRequest: want count`},
		{"NextIDs", "application/json", `{"count":3,"n":1}`, `n: no such field in a snowlab.v1.NextIDsRequest: want count`},
		{"NextID", "application/json", `{"count":3}`, `count: no such field: a snowlab.v1.NextIDRequest has none (send {})`},
		{"Decode", "application/json", `{"ID":"1"}`, `ID: no such field in a snowlab.v1.DecodeRequest: want id`},
		{"NextIDs", "application/json", `{"count":3`, `the body ends before its JSON object's closing brace`},
		{"NextIDs", "application/json", `{"count":3} {}`, `the body goes on after its JSON object`},
		{"NextIDs", "application/json", `count=3`, `the body is not JSON: invalid character 'c'`},
		{"NextIDs", "application/json", `[3]`, `the body is not a JSON object: it starts [3]`},
		{"NextIDs", "application/json", ``, `the body is empty`},
		{"NextIDs", "application/json; charset=utf-8", `{"count":"abc"}`, `count: "abc" is not an integer`},
		{"Decode", "application/json", `{"id":"abc"}`, `id: snowlab: invalid ID: "abc"`},
		{"Decode", "application/json", `{"id":"03XEZKD8M4M0U"}`, `id: snowlab: invalid ID: "03XEZKD8M4M0U"`},
		{"Decode", "application/json", `{"id":"18446744073709551616"}`, `id: snowlab: invalid ID: "18446744073709551616"`},
		{"Decode", "application/json", `{"id":"0312345678901"}`, `id: snowlab: invalid ID: "0312345678901" reads two ways: write dec:0312345678901`},
		{"Decode", "application/json", `{"id":-1}`, `id: -1 is not an integer in 0..18446744073709551615`},
		{"Decode", "application/json", `{"id":true}`, `id: true is not an integer`},
		{"NextIDs", "application/proto", "\xff\xff\xff", `the body is not a snowlab.v1.NextIDsRequest in protobuf binary`},
	} {
		name := tc.method + " " + tc.body
		before := r.series("snowidd_requests_total", "method", tc.method, "code", "invalid_argument")
		code, body := r.do(http.MethodPost, "/snowlab.v1.IDService/"+tc.method, tc.contentType, tc.body)
		require.Equal(t, http.StatusBadRequest, code, "%s: %s", name, body)
		var e struct{ Code, Message string }
		require.NoError(t, json.Unmarshal([]byte(body), &e), body)
		assert.Equal(t, "invalid_argument", e.Code, name)
		assert.Contains(t, e.Message, tc.want, name)
		for _, goName := range []string{"snowlabv1", "*", "unmarshal into", "%!"} {
			assert.NotContains(t, e.Message, goName, name)
		}
		assert.Equal(t, before+1, r.series("snowidd_requests_total", "method", tc.method, "code", "invalid_argument"), "%s: counted", name)
	}
	assert.Zero(t, r.gen.calls.Load())

	code, body := r.get("/metrics")
	require.Equal(t, http.StatusOK, code)
	assert.Contains(t, body, `snowidd_requests_total{code="invalid_argument",method="NextIDs"} 15`)
	assert.Contains(t, body, `snowidd_requests_total{code="invalid_argument",method="Decode"} 7`)
}

// A call whose caller goes away counts as canceled, over HTTP/1.1 (the
// connection closed) and HTTP/2 (the stream reset), and the IDs it
// minted meanwhile as not issued.
func TestCancelledCallCounted(t *testing.T) {
	const path = "/snowlab.v1.IDService/NextID"
	entered := make(chan struct{})
	release := make(chan struct{}, 1)
	served := make(chan context.Context, 1)
	finished := make(chan struct{}, 1)
	r := newRig(t, rigOpts{
		hold: func() { entered <- struct{}{}; <-release },
		wrap: func(h http.Handler) http.Handler {
			return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
				if req.URL.Path != path {
					h.ServeHTTP(w, req)
					return
				}
				served <- req.Context()
				h.ServeHTTP(w, req)
				finished <- struct{}{}
			})
		},
	})
	for name, c := range map[string]interface {
		NextID(context.Context, *connect.Request[snowlabv1.NextIDRequest]) (*connect.Response[snowlabv1.NextIDResponse], error)
	}{"connect-json over HTTP/1.1": r.json, "grpc over HTTP/2": r.grpc} {
		callCtx, cancel := context.WithCancel(ctx)
		errc := make(chan error, 1)
		go func() {
			_, err := c.NextID(callCtx, connect.NewRequest(&snowlabv1.NextIDRequest{}))
			errc <- err
		}()
		serverCtx := <-served
		<-entered // the call is in its method, minting
		cancel()
		assert.Equal(t, connect.CodeCanceled, connect.CodeOf(<-errc), name)
		select {
		case <-serverCtx.Done():
		case <-testend.Context(t).Done():
			t.Fatalf("%s: the server never saw its caller go, by the test's end", name)
		}
		release <- struct{}{}
		<-finished
	}
	code, body := r.get("/metrics")
	require.Equal(t, http.StatusOK, code)
	assert.Contains(t, body, `snowidd_requests_total{code="canceled",method="NextID"} 2`)
	assert.NotContains(t, body, `code="unknown"`)
	assert.Contains(t, body, "snowidd_ids_issued_total 0")
}

// A call whose context has ended before its method runs is answered by
// connect-go with the context's error as it is, which the interceptor
// counts as what is sent, canceled, not as unknown. (Served in process:
// over a socket the window between reading the body and calling the
// method cannot be hit on purpose.)
func TestCancelledBeforeMethodCounted(t *testing.T) {
	r := newRig(t, rigOpts{})
	callCtx, cancel := context.WithCancel(ctx)
	cancel()
	req := httptest.NewRequestWithContext(callCtx, http.MethodPost, "/snowlab.v1.IDService/NextIDs", strings.NewReader(`{"count":5}`))
	req.Header.Set("Content-Type", "application/json")
	rec := httptest.NewRecorder()
	r.srv.Handler().ServeHTTP(rec, req)
	assert.Contains(t, rec.Body.String(), `"code":"canceled"`)
	assert.Equal(t, 1.0, r.series("snowidd_requests_total", "method", "NextIDs", "code", "canceled"))
	assert.Zero(t, r.series("snowidd_requests_total", "method", "NextIDs", "code", "unknown"))
	assert.Zero(t, r.gen.calls.Load())
}
