// Package idservice holds the limits of snowidd's IDService that its
// proto file can state only in comments, in one place for the server that
// enforces them and the clients that check them before a call. It imports
// nothing, so that a client takes none of the server's dependencies (its
// metrics, health and reflection services) for a constant.
package idservice

// MaxBatch is the most IDs one NextIDs call may ask for: 100,000 IDs are
// 800 kB on the wire and about 25 ms of one node id's sequence space.
const MaxBatch = 100_000
