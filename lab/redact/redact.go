package redact

import "regexp"

// Mask is what a password is replaced by.
const Mask = "xxxxx"

var (
	// userinfo matches the password of a URL's user information:
	// scheme://user:PASSWORD@. The password runs to the last '@' before
	// the host, since an unescaped '@' in a password is common enough.
	userinfo = regexp.MustCompile(`([A-Za-z][A-Za-z0-9+.-]*://[^:/@\s]*:)[^\s/?#]*(@)`)
	// keyValue matches password=VALUE in a key=value connection string
	// or a URL's query: the value quoted with single quotes (libpq's
	// form, with \' inside) or unquoted up to a space, '&', ';' or quote.
	keyValue = regexp.MustCompile(`(?i)(\b(?:ssl)?(?:password|passwd|pwd)\s*=\s*)('(?:[^'\\]|\\.)*'|[^\s&;'"]*)`)
)

// String returns s with every password it can find replaced by Mask.
func String(s string) string {
	s = userinfo.ReplaceAllString(s, "${1}"+Mask+"${2}")
	return keyValue.ReplaceAllString(s, "${1}"+Mask)
}

// Args returns a copy of a command line with every argument redacted by
// String; nil stays nil.
func Args(args []string) []string {
	if args == nil {
		return nil
	}
	out := make([]string, len(args))
	for i, a := range args {
		out[i] = String(a)
	}
	return out
}
