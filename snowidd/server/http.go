package server

import (
	"encoding/json"
	"fmt"
	"mime"
	"net/http"
	"strings"

	"connectrpc.com/connect"
	"github.com/prometheus/client_golang/prometheus"
)

// NewHTTPServer returns an http.Server for h on addr, within lim. In
// plaintext it speaks HTTP/1.1 and unencrypted HTTP/2 (prior knowledge,
// as gRPC clients use it) on the one port: gRPC needs HTTP/2, curl and
// browsers use either. With lim.TLS it speaks HTTP/2 and HTTP/1.1 as
// negotiated by ALPN: serve it on a NewTLSListener. Its Shutdown closes
// at once the connections that have not begun a request.
func NewHTTPServer(addr string, h http.Handler, lim Limits) (*http.Server, error) {
	lim, err := lim.orDefault()
	if err != nil {
		return nil, err
	}
	p := Protocols()
	if lim.TLS {
		p = TLSProtocols()
	}
	unused := newUnusedConns()
	hs := &http.Server{
		Addr:              addr,
		Handler:           h,
		Protocols:         p,
		ReadHeaderTimeout: lim.ReadHeaderTimeout,
		ReadTimeout:       lim.ReadTimeout,
		IdleTimeout:       lim.IdleTimeout,
		MaxHeaderBytes:    lim.MaxHeaderBytes,
		HTTP2:             &http.HTTP2Config{MaxConcurrentStreams: lim.MaxConcurrentStreams},
		ConnState:         unused.track,
	}
	hs.RegisterOnShutdown(unused.closeAll)
	return hs, nil
}

// TLSProtocols are HTTP/1.1 and HTTP/2 over TLS, negotiated by ALPN.
func TLSProtocols() *http.Protocols {
	var p http.Protocols
	p.SetHTTP1(true)
	p.SetHTTP2(true)
	return &p
}

// Protocols are HTTP/1.1 and unencrypted HTTP/2, the protocols a server
// for every client of the service speaks (httptest servers in tests too).
func Protocols() *http.Protocols {
	var p http.Protocols
	p.SetHTTP1(true)
	p.SetUnencryptedHTTP2(true)
	return &p
}

// protocol is how a protocol answers errors: the Connect protocol's
// unary calls with an HTTP status, the others (gRPC, gRPC-Web, Connect
// streaming) with 200 and the code in trailers or an end message.
type protocol int

const (
	notServed    protocol = iota // a Content-Type no protocol reads
	connectUnary                 // the Connect protocol's unary calls
	enveloped                    // gRPC, gRPC-Web, Connect streaming
)

// acceptedTypes are the media types connect-go's handler reads for the
// codecs it has (proto and JSON), by protocol.
var acceptedTypes = map[string]protocol{
	"application/json": connectUnary, "application/proto": connectUnary,
	"application/connect+json": enveloped, "application/connect+proto": enveloped,
	"application/grpc": enveloped, "application/grpc+proto": enveloped, "application/grpc+json": enveloped,
	"application/grpc-web": enveloped, "application/grpc-web+proto": enveloped, "application/grpc-web+json": enveloped,
}

// guard answers, before connect-go reads a request, what connect-go
// would answer unhelpfully:
//
//   - a POST whose Content-Type no protocol reads: 415 and a line saying
//     what to send. connect-go answers 415 too, with an empty body, which
//     leaves a curl user guessing.
//   - a Connect unary call whose body is over maxBody: 413. connect-go
//     answers ResourceExhausted, which the Connect protocol sends as HTTP
//     429, and an HTTP client reads 429 as rate limiting, to be retried
//     later. A body of known length is refused unread; one whose length
//     is unknown, or compressed, is read by connect-go up to maxBody, and
//     its 429 rewritten. gRPC and gRPC-Web callers get ResourceExhausted
//     in the trailers, as their clients expect.
func guard(h http.Handler, m *metrics, maxBody int) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost {
			ct := r.Header.Get("Content-Type")
			p, ok := acceptedTypes[ct]
			if !ok {
				p = acceptedMediaType(ct)
			}
			switch {
			case p == notServed:
				m.badContentType.Inc()
				w.Header().Set("Accept-Post", "application/json, application/proto, application/grpc, application/grpc-web")
				w.Header().Set("Content-Type", "text/plain; charset=utf-8")
				w.WriteHeader(http.StatusUnsupportedMediaType)
				fmt.Fprintf(w, "snowidd: Content-Type %q is not served: send application/json (Connect JSON), application/proto, application/grpc or application/grpc-web\n", ct)
				return
			case p != connectUnary:
				// connect-go answers these in their protocol's own way.
			case encoded(r) || r.ContentLength < 0:
				w = &oversizeWriter{ResponseWriter: w, count: m.bodyTooLarge}
			case r.ContentLength > int64(maxBody):
				m.bodyTooLarge.Inc()
				refuseTooLarge(w, r.ContentLength, maxBody)
				return
			}
		}
		h.ServeHTTP(w, r)
	})
}

// acceptedMediaType reads a Content-Type that is not one of acceptedTypes
// as written (parameters, other case), which only some clients send: the
// parse costs more than the rest of the guard.
func acceptedMediaType(ct string) protocol {
	mt, _, err := mime.ParseMediaType(ct)
	if err != nil {
		return notServed
	}
	return acceptedTypes[strings.ToLower(mt)]
}

// encoded reports whether the body is compressed: its length on the wire
// is then not the message's.
func encoded(r *http.Request) bool {
	ce := r.Header.Get("Content-Encoding")
	return ce != "" && !strings.EqualFold(ce, "identity")
}

// refuseTooLarge answers 413 with the error body of the Connect protocol,
// as connect-go writes it, whose clients read the code from it:
// resource_exhausted, what connect-go would have said.
func refuseTooLarge(w http.ResponseWriter, size int64, maxBody int) {
	body, _ := json.Marshal(struct {
		Code    string `json:"code"`
		Message string `json:"message"`
	}{
		connect.CodeResourceExhausted.String(),
		fmt.Sprintf("snowidd: the request body is %d bytes, over the limit of %d", size, maxBody),
	})
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusRequestEntityTooLarge)
	_, _ = w.Write(body)
}

// oversizeWriter sends 413 where connect-go sends 429: the only
// ResourceExhausted this service answers is a message over the limit
// (it sets no send limit and limits no rate).
type oversizeWriter struct {
	http.ResponseWriter
	count prometheus.Counter
}

func (w *oversizeWriter) WriteHeader(code int) {
	if code == http.StatusTooManyRequests {
		w.count.Inc()
		code = http.StatusRequestEntityTooLarge
	}
	w.ResponseWriter.WriteHeader(code)
}

// Flush is the wrapped writer's, which connect-go calls when there is one.
func (w *oversizeWriter) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// Unwrap gives http.ResponseController the wrapped writer.
func (w *oversizeWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }
