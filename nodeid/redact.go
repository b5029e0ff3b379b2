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

// safeKeys are the connection parameters whose values Redact shows: the
// libpq keywords (and pgx's and pgxpool's own, and this module's
// snowlab_table) that name where and how to connect, never a credential.
// Every other key's value is masked, password, sslpassword and passfile
// among them, and any key Redact has never heard of: an allowlist, so
// that a new or misspelt secret key is masked too.
var safeKeys = map[string]bool{
	"host": true, "hostaddr": true, "port": true, "dbname": true, "database": true, "user": true,
	"connect_timeout": true, "client_encoding": true, "application_name": true,
	"fallback_application_name": true, "keepalives": true, "keepalives_idle": true,
	"keepalives_interval": true, "keepalives_count": true, "tcp_user_timeout": true,
	"ssl": true, "sslmode": true, "sslnegotiation": true, "sslcompression": true, "sslcert": true,
	"sslkey": true, "sslrootcert": true, "sslcrl": true, "sslcrldir": true, "sslsni": true,
	"sslcertmode": true, "requirepeer": true, "ssl_min_protocol_version": true,
	"ssl_max_protocol_version": true, "min_protocol_version": true, "max_protocol_version": true,
	"gssencmode": true, "krbsrvname": true, "gsslib": true, "gssdelegation": true,
	"target_session_attrs": true, "load_balance_hosts": true, "channel_binding": true,
	"require_auth": true, "service": true, "search_path": true, "snowlab_table": true,
	"pool_max_conns": true, "pool_min_conns": true, "pool_min_idle_conns": true,
	"pool_max_conn_lifetime": true, "pool_max_conn_lifetime_jitter": true,
	"pool_max_conn_idle_time": true, "pool_health_check_period": true,
	"statement_cache_capacity": true, "description_cache_capacity": true,
	"default_query_exec_mode": true,
}

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
	// urlStart is where a URL of a comma-separated list begins.
	urlStart = regexp.MustCompile(`,[A-Za-z][A-Za-z0-9+.-]*://`)
)

// Redact describes s, a lease spec, a DSN, a URL or list of URLs, or a
// command-line argument holding one (-lease=SPEC), with only what is safe
// to show: scheme, hosts, ports, database or path, user name, and the
// values of the connection parameters known to hold no secret (sslmode,
// snowlab_table, connect_timeout and the like). Everything else is
// "xxxxx": a URL's password (wherever an '@', '/', '?', '#', ':' or space
// puts it: the user information runs to the last '@'), the value of every
// other key (password, sslpassword, pass%77ord, options, a key it does not
// know), a host, user or path with characters that could hide one. A DSN
// or URL that does not parse is described, never quoted: "pg:<a DSN that
// does not parse, 57 bytes>". Key=value strings are read by libpq's rules
// (single quotes, backslash escapes, spaces around '='). "dir:PATH" is
// shown whole: a path is no credential.
//
// A program prints or logs Redact(spec) (or Redact(url), Redact(dsn)),
// never the value itself, and OpenStore's errors name the spec so. Redact
// is for one value, not for a message that quotes one: it does not look
// for a DSN inside text.
func Redact(s string) string {
	var r redactor
	return r.arg(s)
}

// redactor describes a value as Redact does, and keeps the pieces it
// masked: secrets() gives them, for masking in an Opener's error.
type redactor struct {
	hidden []string
}

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
	case "pg":
		return "pg:" + r.dsn(rest)
	case "static":
		if _, err := strconv.Atoi(rest); err != nil {
			return "static:" + r.hide(rest)
		}
		return s
	case "etcd", "k8s", "zk":
		return name + ":" + r.location(rest)
	}
	// NAME:REST with an unknown NAME: user:password as well as a spec.
	if !strings.ContainsAny(rest, "/=@") {
		return name + ":" + r.hide(rest)
	}
	return name + ":" + r.location(rest)
}

// dsn describes a PostgreSQL DSN: a postgres:// URL, or a key=value
// string (pgx's choice, by the prefix).
func (r *redactor) dsn(s string) string {
	if strings.HasPrefix(s, "postgres://") || strings.HasPrefix(s, "postgresql://") {
		return r.urls(s, "a DSN")
	}
	return r.keyValues(s, "a DSN")
}

// location describes what a lease spec's scheme or a flag names: URLs,
// a key=value string, [user[:password]@]host[:port],... [/path], or a
// word.
func (r *redactor) location(s string) string {
	switch {
	case strings.Contains(s, "://"):
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
		case safeKeys[key] && safeValue.MatchString(v):
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
		case safeKeys[p.key] && safeValue.MatchString(p.val):
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

// secrets returns what Redact masks in spec, each piece as written,
// decoded, and encoded as a URL's query or path or as %q quotes it (the
// forms an Opener's message may quote it in), longest first, so that
// masking the longer ones first leaves no tail of one behind.
func secrets(spec string) []string {
	var r redactor
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

// maskSecrets replaces in msg every piece of spec that Redact masks.
func maskSecrets(msg, spec string) string {
	for _, h := range secrets(spec) {
		msg = strings.ReplaceAll(msg, h, redactMask)
	}
	return msg
}

// redactedError is an Opener's error as OpenStore returns it: its message
// names the spec as Redact gives it and masks in the Opener's message
// every piece of the spec that Redact masks; errors.Is and errors.As see
// ErrInvalidSpec and the Opener's error.
type redactedError struct {
	msg string
	err error
}

func (e *redactedError) Error() string   { return e.msg }
func (e *redactedError) Unwrap() []error { return []error{ErrInvalidSpec, e.err} }

// openerError is err, an Opener's error for spec, as OpenStore returns
// it.
func openerError(spec string, err error) error {
	msg := fmt.Sprintf("%v %q: %s", ErrInvalidSpec, Redact(spec), maskSecrets(err.Error(), spec))
	return &redactedError{msg: msg, err: err}
}
