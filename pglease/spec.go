package pglease

import (
	"errors"
	"fmt"
	"net/url"
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
// connections stay open for the life of the process.
func Opener(ttl time.Duration) nodeid.Opener {
	return func(dsn string) (nodeid.Store, error) {
		st, _, err := Open(dsn, ttl)
		return st, err
	}
}

// parseDSN parses a DSN into a pool configuration and the table its
// snowlab_table parameter names ("" when none).
func parseDSN(dsn string) (*pgxpool.Config, string, error) {
	cfg, err := pgxpool.ParseConfig(dsn)
	if err != nil {
		return nil, "", parseError(dsn, err)
	}
	table := cfg.ConnConfig.RuntimeParams[TableParam]
	delete(cfg.ConnConfig.RuntimeParams, TableParam)
	if !tableName.MatchString(table) && table != "" {
		return nil, "", fmt.Errorf("pglease: %s=%q: want a lowercase SQL name, letters, digits and _, optionally schema.table", TableParam, table)
	}
	if cfg.ConnConfig.ConnectTimeout == 0 {
		cfg.ConnConfig.ConnectTimeout = connectTimeout
	}
	return cfg, table, nil
}

// parseError says that dsn does not parse without quoting it: pgx's
// message quotes the DSN with the passwords it recognises masked, but a
// malformed DSN can hide one from it (postgres://u:sec:ret@h takes
// "sec:ret@h" for the port). The message keeps pgx's reason, and masks
// whatever in it looks like a password, in either form of DSN.
func parseError(dsn string, err error) error {
	msg := err.Error()
	var pce *pgconn.ParseConfigError
	if errors.As(err, &pce) {
		// The same error without the DSN: its reason alone.
		bare := *pce
		bare.ConnString = ""
		msg = strings.TrimPrefix(bare.Error(), "cannot parse ``: ")
	}
	return fmt.Errorf("pglease: the DSN does not parse: %s", maskCandidates(dsn, nodeid.Redact(msg)))
}

// maskCandidates masks in msg every part of dsn that could be a password:
// in a URL, what lies between the user name and the last '@' before the
// host, raw and unescaped; in a key=value string, each password's value.
func maskCandidates(dsn, msg string) string {
	var secrets []string
	if _, rest, ok := strings.Cut(dsn, "://"); ok {
		if at := strings.LastIndex(rest, "@"); at >= 0 {
			if _, pw, ok := strings.Cut(rest[:at], ":"); ok {
				secrets = append(secrets, pw)
				if u, err := url.PathUnescape(pw); err == nil {
					secrets = append(secrets, u)
				}
			}
		}
		if _, query, ok := strings.Cut(rest, "?"); ok {
			if q, err := url.ParseQuery(query); err == nil {
				secrets = append(secrets, q["password"]...)
				secrets = append(secrets, q["sslpassword"]...)
			}
		}
	}
	for _, f := range strings.Fields(dsn) {
		if k, v, ok := strings.Cut(f, "="); ok && strings.Contains(strings.ToLower(k), "password") {
			secrets = append(secrets, strings.Trim(v, "'"))
		}
	}
	for _, s := range secrets {
		msg = mask(msg, s)
	}
	return msg
}

// mask replaces secret in s; an empty secret masks nothing.
func mask(s, secret string) string {
	if secret == "" {
		return s
	}
	s = strings.ReplaceAll(s, secret, "xxxxx")
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

// redacted is err with secret, and whatever nodeid.Redact recognises as a
// password, masked in its message.
func redacted(secret string, err error) error {
	msg := nodeid.Redact(mask(err.Error(), secret))
	if msg == err.Error() {
		return err
	}
	return &secretError{msg: msg, err: err}
}
