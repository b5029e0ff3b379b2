package nodeid

import (
	"errors"
	"fmt"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// redactMask is what Redact puts in place of a value it does not show.
const redactMask = "xxxxx"

var (
	// scheme is a URL's or a lease spec's scheme (RFC 3986).
	scheme = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9+.-]*$`)
	// safeName is a user or host name Redact shows: letters, digits and
	// the unreserved and percent characters of a URL, nothing that could
	// end a component (no ':', '@', '/', '?', '#', quote or space), so
	// that a piece of something else never passes for one.
	safeName = regexp.MustCompile(`^[A-Za-z0-9._~%+-]+$`)
	// safeValue is a value of a safe key, or a path, that Redact shows:
	// safeName's characters and those of paths, host lists and IPv6
	// addresses.
	safeValue = regexp.MustCompile(`^[A-Za-z0-9._~%+,/:\[\]-]*$`)
	// safeKey is a connection parameter's key as Redact shows it, masked
	// or not.
	safeKey = regexp.MustCompile(`^[A-Za-z0-9_.%-]+$`)
	// flagArg is a command-line argument -name=value or --name=value.
	flagArg = regexp.MustCompile(`^--?[A-Za-z0-9][A-Za-z0-9_.-]*=`)
	// urlPrefix is the start of a URL: a scheme and "://". A "://"
	// further on is no URL's: a key=value string's value may hold one.
	urlPrefix = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9+.-]*://`)
	// urlStart is where a URL of a comma-separated list begins.
	urlStart = regexp.MustCompile(`,[A-Za-z][A-Za-z0-9+.-]*://`)
)

// Redact describes s, a lease spec, a DSN, a URL or list of URLs, or a
// command-line argument holding one (-lease=SPEC), with only what is safe
// to show: scheme, hosts, ports, path and user name, in a URL or as the
// parameters host, port, user and dbname. Everything else is "xxxxx": a
// URL's password (wherever an '@', '/', '?', '#', ':' or space puts it:
// the user information runs to the last '@'), the value of every other
// connection parameter (password, sslmode, options, any key), a host,
// user or path with characters that could hide one, the location of a
// scheme it does not know unless it reads as a URL, a key=value string or
// [user[:password]@]host[:port] (user:password is no spec). A URL or
// key=value string that does not parse is described, never quoted:
// "pg:<a key=value string that does not parse, 57 bytes>". Key=value
// strings are read by libpq's rules, the strictest common ones (single
// quotes, backslash escapes, spaces around '='). "dir:PATH" is shown
// whole: a path is no credential. OpenStore's errors describe a spec with
// more: the values of the parameters its scheme's Opener says are safe.
//
// A program prints or logs Redact(spec) (or Redact(url), Redact(dsn)),
// never the value itself. Redact is for one value, not for a message that
// quotes one: it does not look for a DSN inside text.
func Redact(s string) string { return redactSpec(s, nil) }

// redactSpec describes s as Redact does, showing the parameters that the
// Opener in openers of its scheme says are safe.
func redactSpec(s string, openers map[string]Opener) string {
	r := redactor{openers: openers}
	return r.arg(s)
}

// safeParams is an Opener that says which connection parameters of its
// locations hold no secret (see Opener).
type safeParams interface {
	SafeParam(key string) bool
}

// redactor describes a value as Redact does, and keeps the pieces it
// masked: secrets() gives them, for masking in an Opener's error.
type redactor struct {
	openers map[string]Opener
	// safe says whether a parameter's value may be shown: the SafeParam
	// of the Opener of the location being described, nil for none.
	safe   func(key string) bool
	hidden []string
}

// authorityKeys are the connection parameters that name what a URL's
// user information, hosts and path name, which Redact shows in a URL:
// their values are shown in a key=value string or a query too.
var authorityKeys = map[string]bool{"host": true, "port": true, "user": true, "dbname": true}

// shows reports whether the value of the connection parameter key may
// be shown.
func (r *redactor) shows(key string) bool { return authorityKeys[key] || r.safe != nil && r.safe(key) }

// hide records v as masked and returns the mask.
func (r *redactor) hide(v string) string {
	if v != "" {
		r.hidden = append(r.hidden, v)
		if u, err := url.PathUnescape(v); err == nil && u != v {
			r.hidden = append(r.hidden, u)
		}
	}
	return redactMask
}

// opaque describes s, which does not parse as a kind, by its length.
func (r *redactor) opaque(kind, s string) string {
	r.hide(s)
	return fmt.Sprintf("<%s that does not parse, %d bytes>", kind, len(s))
}

// arg describes a command-line argument: -name=VALUE, a lease spec
// scheme:REST, or a location.
func (r *redactor) arg(s string) string {
	if m := flagArg.FindString(s); m != "" {
		return m + r.arg(s[len(m):])
	}
	name, rest, ok := strings.Cut(s, ":")
	if !ok || !scheme.MatchString(name) || strings.HasPrefix(rest, "//") || isPort(rest) {
		return r.location(s)
	}
	switch name {
	case "dir":
		return s
	case "static":
		if _, err := strconv.Atoi(rest); err != nil {
			return "static:" + r.hide(rest)
		}
		return s
	case "etcd", "k8s", "zk":
		return name + ":" + r.location(rest)
	}
	// NAME:REST with another NAME: user:password as well as a spec (a
	// PostgreSQL DSN, pg:postgres://... or pg:host=... , among them).
	if rest == "" {
		return s
	}
	if !strings.ContainsAny(rest, "/=@") {
		return name + ":" + r.hide(rest)
	}
	if p, ok := r.openers[name].(safeParams); ok {
		r.safe = p.SafeParam
		defer func() { r.safe = nil }()
	}
	return name + ":" + r.location(rest)
}

// location describes what a lease spec's scheme or a flag names: URLs,
// a key=value string, [user[:password]@]host[:port],... [/path], or a
// word.
func (r *redactor) location(s string) string {
	switch {
	case urlPrefix.MatchString(s):
		return r.urls(s, "a URL")
	case strings.Contains(s, "="):
		return r.keyValues(s, "a key=value string")
	case strings.Contains(s, "@"), strings.Contains(s, ":"):
		return r.authority(s)
	}
	return s
}

// urls describes a URL, or a comma-separated list of them (etcd's
// endpoints, snowidd's -peers).
func (r *redactor) urls(s, kind string) string {
	// A list is split only after the last '@': before it, a ",x://" may
	// be part of a password.
	at := strings.LastIndexByte(s, '@') + 1
	starts := urlStart.FindAllStringIndex(s[at:], -1)
	var out strings.Builder
	from := 0
	for _, st := range starts {
		st[0] += at
		out.WriteString(r.url(s[from:st[0]], kind) + ",")
		from = st[0] + 1
	}
	out.WriteString(r.url(s[from:], kind))
	return out.String()
}

// url describes one scheme://[userinfo@]hosts[/path][?query][#fragment].
func (r *redactor) url(s, kind string) string {
	name, rest, ok := strings.Cut(s, "://")
	if !ok || !scheme.MatchString(name) {
		return r.opaque(kind, s)
	}
	return name + "://" + r.authority(rest)
}

// authority describes [user[:password]@]host[:port],...[/path][?query]
// [#fragment]. The user information runs to the last '@', so that an
// '@', '/', '?' or '#' in a password is masked with the rest of it.
func (r *redactor) authority(s string) string {
	var out strings.Builder
	if at := strings.LastIndexByte(s, '@'); at >= 0 {
		user, pass, hasPass := strings.Cut(s[:at], ":")
		if safeName.MatchString(user) {
			out.WriteString(user)
		} else if user != "" {
			out.WriteString(r.hide(user))
		}
		if hasPass {
			out.WriteString(":" + r.hide(pass))
		}
		out.WriteString("@")
		s = s[at+1:]
	}
	s, frag, hasFrag := strings.Cut(s, "#")
	s, query, hasQuery := strings.Cut(s, "?")
	hosts, path := s, ""
	if i := strings.IndexByte(s, '/'); i >= 0 {
		hosts, path = s[:i], s[i:]
	}
	out.WriteString(r.hosts(hosts))
	if safeValue.MatchString(path) {
		out.WriteString(path)
	} else {
		out.WriteString("/" + r.hide(path))
	}
	if hasQuery {
		out.WriteString("?" + r.query(query))
	}
	if hasFrag {
		out.WriteString("#" + r.hide(frag))
	}
	return out.String()
}

// hosts describes host[:port],...: a host shown when it is a name or a
// bracketed IPv6 address, a port when it is a number.
func (r *redactor) hosts(s string) string {
	parts := strings.Split(s, ",")
	for i, p := range parts {
		host, port, hasPort := p, "", false
		if c := strings.LastIndexByte(p, ':'); c >= 0 && !strings.HasSuffix(p, "]") {
			host, port, hasPort = p[:c], p[c+1:], true
		}
		v6 := len(host) > 2 && host[0] == '[' && host[len(host)-1] == ']' && safeValue.MatchString(host)
		if !v6 && !safeName.MatchString(host) && host != "" {
			host = r.hide(host)
		}
		if hasPort {
			if !isPort(port) && port != "" {
				port = r.hide(port)
			}
			host += ":" + port
		}
		parts[i] = host
	}
	return strings.Join(parts, ",")
}

// isPort reports whether s is a port number: 1 to 5 digits, in range
// or not (-listen :99999 is refused naming it).
func isPort(s string) bool {
	if s == "" || len(s) > 5 {
		return false
	}
	for _, c := range []byte(s) {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// query describes a URL's query: key=value pairs split at '&', a value
// shown only when its key, percent-decoded, is a safe one.
func (r *redactor) query(s string) string {
	pairs := strings.Split(s, "&")
	for i, p := range pairs {
		k, v, hasEq := strings.Cut(p, "=")
		key, err := url.QueryUnescape(k)
		switch {
		case p == "":
		case !hasEq || err != nil || !safeKey.MatchString(k):
			pairs[i] = r.hide(p)
		case r.shows(key) && safeValue.MatchString(v):
			pairs[i] = k + "=" + v
		default:
			pairs[i] = k + "=" + r.hide(v)
			if u, err := url.QueryUnescape(v); err == nil {
				r.hide(u)
			}
		}
	}
	return strings.Join(pairs, "&")
}

// keyValues describes a key=value string as libpq reads it; one that
// does not parse is kind, by its length.
func (r *redactor) keyValues(s, kind string) string {
	pairs, err := libpqPairs(s)
	if err != nil {
		return r.opaque(kind, s)
	}
	out := make([]string, len(pairs))
	for i, p := range pairs {
		switch {
		case !safeKey.MatchString(p.key):
			out[i] = r.hide(p.key) + "=" + r.hide(p.raw)
			r.hide(p.val)
		case r.shows(p.key) && safeValue.MatchString(p.val):
			out[i] = p.key + "=" + p.val
		default:
			out[i] = p.key + "=" + r.hide(p.raw)
			r.hide(p.val)
		}
	}
	return strings.Join(out, " ")
}

// kvPair is one key=value of a libpq connection string: raw is the value
// as written, val as libpq reads it (quotes and escapes removed).
type kvPair struct{ key, raw, val string }

// errKeyValue: a key=value string that libpq would not parse.
var errKeyValue = errors.New("not a key=value string")

// libpqSpace is what libpq takes for a space between key=value pairs.
const libpqSpace = " \t\n\r\v\f"

// libpqPairs splits s by libpq's rules (conninfo_parse, which pgx
// follows): a key runs to '=', spaces around it ignored; a value is
// either single-quoted, a backslash escaping the next character, or runs
// to the next space, a backslash escaping it.
func libpqPairs(s string) ([]kvPair, error) {
	var pairs []kvPair
	s = strings.TrimLeft(s, libpqSpace)
	for s != "" {
		eq := strings.IndexByte(s, '=')
		if eq < 0 {
			return nil, errKeyValue
		}
		key := strings.Trim(s[:eq], libpqSpace)
		if key == "" || strings.ContainsAny(key, libpqSpace) {
			return nil, errKeyValue
		}
		s = strings.TrimLeft(s[eq+1:], libpqSpace)
		quoted := s != "" && s[0] == '\''
		end := 0
		if quoted {
			end = 1
		}
		for ; end < len(s); end++ {
			if c := s[end]; c == '\\' {
				end++
			} else if quoted && c == '\'' || !quoted && strings.IndexByte(libpqSpace, c) >= 0 {
				break
			}
		}
		if quoted && end >= len(s) {
			return nil, errKeyValue
		}
		end = min(end, len(s))
		raw, val := s[:end], s[:end]
		if quoted {
			raw, val = s[:end+1], s[1:end]
			end++
		}
		pairs = append(pairs, kvPair{key: key, raw: raw, val: unescapeLibpq(val)})
		s = strings.TrimLeft(s[end:], libpqSpace)
	}
	return pairs, nil
}

// unescapeLibpq removes libpq's backslash escapes: \x is x.
func unescapeLibpq(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' {
			i++
			if i == len(s) {
				break
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// secrets returns what redactSpec masks in spec, each piece as written,
// decoded, and encoded as a URL's query or path or as %q quotes it (the
// forms an Opener's message may quote it in), longest first, so that
// masking the longer ones first leaves no tail of one behind.
func secrets(spec string, openers map[string]Opener) []string {
	r := redactor{openers: openers}
	r.arg(spec)
	hidden := r.hidden
	for _, h := range r.hidden {
		q := strconv.Quote(h)
		hidden = append(hidden, url.QueryEscape(h), url.PathEscape(h), q[1:len(q)-1])
	}
	slices.SortFunc(hidden, func(a, b string) int {
		if len(a) != len(b) {
			return len(b) - len(a)
		}
		return strings.Compare(a, b)
	})
	return slices.Compact(hidden)
}

// maskSecrets replaces in msg every piece of spec that redactSpec masks.
func maskSecrets(msg, spec string, openers map[string]Opener) string {
	for _, h := range secrets(spec, openers) {
		msg = strings.ReplaceAll(msg, h, redactMask)
	}
	return msg
}

// redactedError is an Opener's error as OpenStore returns it: its message
// names the spec as redactSpec gives it and masks in the Opener's message
// every piece of the spec that it masks; errors.Is and errors.As see
// ErrInvalidSpec and the Opener's error.
type redactedError struct {
	msg string
	err error
}

func (e *redactedError) Error() string   { return e.msg }
func (e *redactedError) Unwrap() []error { return []error{ErrInvalidSpec, e.err} }

// openerError is err, an Opener's error for spec, as OpenStore returns
// it.
func openerError(spec string, openers map[string]Opener, err error) error {
	msg := fmt.Sprintf("%v %q: %s", ErrInvalidSpec, redactSpec(spec, openers), maskSecrets(err.Error(), spec, openers))
	return &redactedError{msg: msg, err: err}
}
