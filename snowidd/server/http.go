package server

import (
	"fmt"
	"mime"
	"net/http"
	"strings"
	"time"
)

// NewHTTPServer returns an http.Server for h on addr that speaks HTTP/1.1
// and unencrypted HTTP/2 (prior knowledge, as gRPC clients use it) on the
// one port: gRPC needs HTTP/2, curl and browsers use either.
func NewHTTPServer(addr string, h http.Handler) *http.Server {
	return &http.Server{
		Addr:              addr,
		Handler:           h,
		Protocols:         Protocols(),
		ReadHeaderTimeout: 10 * time.Second,
		IdleTimeout:       2 * time.Minute,
	}
}

// Protocols are HTTP/1.1 and unencrypted HTTP/2, the protocols a server
// for every client of the service speaks (httptest servers in tests too).
func Protocols() *http.Protocols {
	var p http.Protocols
	p.SetHTTP1(true)
	p.SetUnencryptedHTTP2(true)
	return &p
}

// acceptedTypes are the media types connect-go's handler reads for the
// codecs it has (proto and JSON): the Connect protocol, gRPC and gRPC-Web.
var acceptedTypes = map[string]bool{
	"application/json": true, "application/proto": true,
	"application/connect+json": true, "application/connect+proto": true,
	"application/grpc": true, "application/grpc+proto": true, "application/grpc+json": true,
	"application/grpc-web": true, "application/grpc-web+proto": true, "application/grpc-web+json": true,
}

// contentTypeGuard answers a POST whose Content-Type no protocol reads
// with 415 and a line saying what to send. connect-go answers 415 too,
// with an empty body, which leaves a curl user guessing.
func contentTypeGuard(h http.Handler, m *metrics) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost {
			ct := r.Header.Get("Content-Type")
			if !acceptedTypes[ct] && !acceptedMediaType(ct) {
				m.rejected.WithLabelValues("content_type").Inc()
				w.Header().Set("Accept-Post", "application/json, application/proto, application/grpc, application/grpc-web")
				w.Header().Set("Content-Type", "text/plain; charset=utf-8")
				w.WriteHeader(http.StatusUnsupportedMediaType)
				fmt.Fprintf(w, "snowidd: Content-Type %q is not served: send application/json (Connect JSON), application/proto, application/grpc or application/grpc-web\n", ct)
				return
			}
		}
		h.ServeHTTP(w, r)
	})
}

// acceptedMediaType reads a Content-Type that is not one of acceptedTypes
// as written (parameters, other case), which only some clients send: the
// parse costs more than the rest of the guard.
func acceptedMediaType(ct string) bool {
	mt, _, err := mime.ParseMediaType(ct)
	return err == nil && acceptedTypes[strings.ToLower(mt)]
}
