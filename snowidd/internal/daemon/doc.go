// Package daemon is the snowidd command: it reads the flags (or their
// SNOWIDD_* variables), holds node ids (a lease, re-acquired when lost, or
// static ids), builds a generator on them for the server, serves one port,
// and on SIGTERM drains, waits for the calls in flight and releases the
// lease, storing the end of the last tick it used so a successor waits
// only for time really spent.
//
// It is a package rather than the body of cmd/snowidd so that its tests
// run it in-process.
package daemon
