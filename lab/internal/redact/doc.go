// Package redact keeps credentials out of what the lab records or prints:
// a command line going into a result file, a driver's error. A result
// file is committed and shared; a password in it is a leak that no later
// commit can take back.
//
// What a spec, DSN or URL may show is nodeid.Redact's to say, the one
// function that knows (scheme, hosts, ports, database, user and the
// parameters known to hold no secret): Args applies it to each argument
// of a command line, and a program names a DSN or URL it prints as
// nodeid.Redact gives it. Error rewrites pgx's parse errors, which quote
// the DSN (and pieces of it), so that a message holds none of it.
package redact
