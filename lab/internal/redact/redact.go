// Package redact removes credentials from a command line before the lab
// records it in a result: a result file is committed and shared, and a
// password in it is a leak that no later commit can take back. The
// patterns are nodeid.Redact's, the one place that knows what a password in
// a connection string or a lease spec looks like.
package redact

import "github.com/snowlab/snowlab/nodeid"

// Args returns a copy of a command line with every argument passed through
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
