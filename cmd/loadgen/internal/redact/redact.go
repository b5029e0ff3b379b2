package redact

import "github.com/snowlab/snowlab/nodeid"

// Mask is what a password is replaced by.
const Mask = "xxxxx"

// String returns s with every password it can find replaced by Mask. The
// patterns are nodeid.Redact's, which masks lease specs the same way: one
// place knows what a password in a connection string looks like.
func String(s string) string { return nodeid.Redact(s) }

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
