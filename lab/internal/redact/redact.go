// Package redact removes credentials from a command line before the lab
// records it in a result: a result file is committed and shared, and a
// password in it is a leak that no later commit can take back. Each
// argument is described by nodeid.Redact, the one function that knows what
// a lease spec, DSN or URL may show (scheme, hosts, ports, database, user,
// parameters known to hold no secret) and masks the rest.
package redact

import "github.com/snowlab/snowlab/nodeid"

// Args returns a copy of a command line with every argument described by
// nodeid.Redact; nil stays nil.
func Args(args []string) []string {
	if args == nil {
		return nil
	}
	out := make([]string, len(args))
	for i, a := range args {
		out[i] = nodeid.Redact(a)
	}
	return out
}
