// Package redact removes credentials from text the lab records or prints:
// a command line going into a result file, a connection string in an
// error message. A result file is committed and shared; a password in it
// is a leak that no later commit can take back.
//
// It knows the two forms a database connection string takes: a URL with a
// password in its user information (postgres://user:pass@host/db) or a
// password query parameter, and a key=value string (host=h user=u
// password=p). The user name is kept, so a reader can still tell which
// account a run used; the password becomes Mask.
package redact
