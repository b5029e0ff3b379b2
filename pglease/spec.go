package pglease

import (
	"errors"
	"fmt"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/snowlab/snowlab/nodeid"
)

// TableParam is the DSN parameter that names the table (Open and Opener
// take it out before connecting: the server would refuse it).
const TableParam = "snowlab_table"

// connectTimeout bounds a connection attempt whose DSN sets none, so that
// a server that accepts connections but does not answer is an error
// within it whatever the caller's context.
const connectTimeout = 5 * time.Second

// Opener returns the nodeid.Opener for "pg:" lease specs: "pg:DSN", DSN
// a postgres:// URL or a key=value string as pgx takes them, with an
// optional snowlab_table parameter naming the table:
// pg:postgres://app@db.internal:5432/app?sslmode=verify-full&snowlab_table=ids.
// The store is Open's, and its claims last ttl without renewal. Pass it to
// nodeid.OpenStore as extra["pg"]. It does not reach the database: its
// error is a DSN that does not parse (never quoting its password), and a
// server that is not there is the store's Acquire's error. The
// connections stay open for the life of the process. Its SafeParam names
// the DSN parameters whose values OpenStore's errors show.
func Opener(ttl time.Duration) nodeid.Opener { return opener{ttl} }

// opener is Opener's.
type opener struct{ ttl time.Duration }

func (o opener) Open(dsn string) (nodeid.Store, error) {
	st, _, err := Open(dsn, o.ttl)
	return st, err
}

// SafeParam reports whether the DSN parameter key holds no secret, so that
// nodeid.OpenStore's errors may show its value (see nodeid.Opener).
func (opener) SafeParam(key string) bool { return safeParams[key] }

// safeParams are the DSN parameters whose values name where and how to
// connect, never a credential: the libpq keywords, pgx's and pgxpool's
// own, and TableParam. Every other parameter's value is masked, password,
// sslpassword and passfile among them, and any key never heard of: an
// allowlist, so that a new or misspelt secret key is masked too.
var safeParams = map[string]bool{
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
	"require_auth": true, "service": true, "search_path": true, TableParam: true,
	"pool_max_conns": true, "pool_min_conns": true, "pool_min_idle_conns": true,
	"pool_max_conn_lifetime": true, "pool_max_conn_lifetime_jitter": true,
	"pool_max_conn_idle_time": true, "pool_health_check_period": true,
	"statement_cache_capacity": true, "description_cache_capacity": true,
	"default_query_exec_mode": true,
}

// parseDSN parses a DSN into a pool configuration and the table its
// snowlab_table parameter names ("" when none).
func parseDSN(dsn string) (*pgxpool.Config, string, error) {
	cfg, err := pgxpool.ParseConfig(dsn)
	if err != nil {
		return nil, "", parseError(dsn, err)
	}
	if err := checkHosts(&cfg.ConnConfig.Config); err != nil {
		return nil, "", err
	}
	table := cfg.ConnConfig.RuntimeParams[TableParam]
	delete(cfg.ConnConfig.RuntimeParams, TableParam)
	if !tableName.MatchString(table) && table != "" {
		return nil, "", fmt.Errorf("pglease: %s=%q: want a lowercase SQL name, letters, digits and _ (the table's at most 56), optionally schema.table", TableParam, table)
	}
	if cfg.ConnConfig.ConnectTimeout == 0 {
		cfg.ConnConfig.ConnectTimeout = connectTimeout
	}
	return cfg, table, nil
}

// checkHosts refuses a host name with an '@' in it, which pgx takes
// (postgres://u:p@ss@h is password "p" on host "ss@h", as libpq reads it)
// but no host has: it is a password with a raw '@' in it, whose tail
// the driver's errors would quote as a host name ("lookup ss@h: no such
// host"). The error does not quote it.
func checkHosts(cfg *pgconn.Config) error {
	hosts := []string{cfg.Host}
	for _, fb := range cfg.Fallbacks {
		hosts = append(hosts, fb.Host)
	}
	for _, h := range hosts {
		if strings.Contains(h, "@") {
			return errors.New("pglease: the DSN does not parse: a host name holds an '@' (percent-encode an '@' in the password as %40)")
		}
	}
	return nil
}

// parseError says that dsn does not parse without quoting it or any
// piece of it: pgx's message quotes the DSN with the passwords it
// recognises masked, but a malformed DSN can hide one from it
// (postgres://u:sec:ret@h takes "sec:ret@h" for the port), and its
// reasons quote the piece at fault (missing "=" after "ret", the first
// word after a password with a space in it). The message keeps pgx's
// reason with every quoted piece left out; the caller names the DSN as
// nodeid.Redact describes it (nodeid.OpenStore does).
func parseError(dsn string, err error) error {
	msg := err.Error()
	var pce *pgconn.ParseConfigError
	if errors.As(err, &pce) {
		// The same error without the DSN: its reason alone.
		bare := *pce
		bare.ConnString = ""
		msg = strings.TrimPrefix(bare.Error(), "cannot parse ``: ")
	} else {
		msg = strings.ReplaceAll(msg, dsn, "")
	}
	return &secretError{msg: "pglease: the DSN does not parse: " + quoted.ReplaceAllString(msg, "…"), err: err}
}

// quoted is a piece of a message in double quotes or backquotes, as
// %q, "%s" and `%s` write it.
var quoted = regexp.MustCompile(`"(?:[^"\\]|\\.)*"` + "|`[^`]*`")

// mask replaces secret in s, raw and escaped as in a URL; an empty secret
// masks nothing.
func mask(s, secret string) string {
	if secret == "" {
		return s
	}
	s = strings.ReplaceAll(s, secret, "xxxxx")
	s = strings.ReplaceAll(s, url.PathEscape(secret), "xxxxx")
	return strings.ReplaceAll(s, url.QueryEscape(secret), "xxxxx")
}

// secretError is an error with a password masked in its message;
// errors.Is and errors.As still see the error it wraps.
type secretError struct {
	msg string
	err error
}

func (e *secretError) Error() string { return e.msg }
func (e *secretError) Unwrap() error { return e.err }

// redacted is err with secret, the password of the DSN the store
// connects with, masked in its message: pgx's errors do not quote it, and
// this makes sure. A message does not pass through nodeid.Redact, which
// describes one DSN, not text that may quote one.
//
// It also puts the message on one line: pgx's error for a server it could
// not reach gives each address it tried on a line of its own, and the
// same attempt twice under sslmode=prefer (with TLS, then without), which
// a command printed as three lines and a log split.
func redacted(secret string, err error) error {
	msg := oneLine(mask(err.Error(), secret))
	if msg == err.Error() {
		return err
	}
	return &secretError{msg: msg, err: err}
}

// oneLine joins the lines of msg after its first with "; ", each trimmed
// and once.
func oneLine(msg string) string {
	first, rest, ok := strings.Cut(msg, "\n")
	if !ok {
		return msg
	}
	var parts []string
	for _, l := range strings.Split(rest, "\n") {
		if l = strings.TrimSpace(l); l != "" && !slices.Contains(parts, l) {
			parts = append(parts, l)
		}
	}
	return strings.TrimRight(first, " ") + " " + strings.Join(parts, "; ")
}
