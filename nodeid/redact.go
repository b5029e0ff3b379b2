package nodeid

import "regexp"

// redactMask is what Redact puts in place of a password.
const redactMask = "xxxxx"

var (
	// userinfo matches the password of a URL's user information:
	// scheme://user:PASSWORD@. The password runs to the last '@' before
	// a space, '?' or '#': an unescaped '@' or '/' in a password is
	// common enough, and masking a little more than the password is
	// better than quoting part of it.
	userinfo = regexp.MustCompile(`([A-Za-z][A-Za-z0-9+.-]*://[^:/@\s]*:)[^\s?#]*(@)`)
	// keyValue matches password=VALUE in a key=value connection string
	// or a URL's query: the value quoted with single quotes (libpq's
	// form, with \' inside) or unquoted up to a space, '&', ';' or quote.
	keyValue = regexp.MustCompile(`(?i)(\b(?:ssl)?(?:password|passwd|pwd)\s*=\s*)('(?:[^'\\]|\\.)*'|[^\s&;'"]*)`)
)

// Redact returns s with every password it can find replaced by "xxxxx":
// that of a URL's user information (pg:postgres://user:PASSWORD@host/db)
// and the value of a password key (password=PASSWORD in a key=value
// connection string or a URL's query). The user name is kept, so a reader
// can still tell which account was used. A lease spec names its store's
// location, which may hold credentials: a program prints or logs
// Redact(spec), never the spec, and OpenStore's errors name it so.
func Redact(s string) string {
	s = userinfo.ReplaceAllString(s, "${1}"+redactMask+"${2}")
	return keyValue.ReplaceAllString(s, "${1}"+redactMask)
}

// redactedError is err with Redact applied to its message; errors.Is and
// errors.As still see err.
type redactedError struct {
	msg string
	err error
}

func (e *redactedError) Error() string { return e.msg }
func (e *redactedError) Unwrap() error { return e.err }

// redactErr is err with every password Redact finds masked in its
// message: an Opener's error may quote the location it was given.
func redactErr(err error) error {
	if err == nil {
		return nil
	}
	return &redactedError{msg: Redact(err.Error()), err: err}
}
