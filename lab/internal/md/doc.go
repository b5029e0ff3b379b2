// Package md writes the lab's reports: an error-keeping Writer that a long
// report prints through without checking every line, and the Markdown it
// needs (tables, code spans, escaping). It formats text it is given and
// computes nothing.
package md
