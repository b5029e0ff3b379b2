// Package peers puts the Go ID libraries people use today behind
// subject.Subject, so that the lab drives them with the same loops, the same
// uniqueness and order checks and the same recorders as snowlab's own
// generators, and a result file compares like with like.
//
// Peers live here, under lab, and never in the core library's import
// graph: the root package and its generators (mutexgen, atomicgen,
// shardedgen, clocksrc) import nothing outside the standard library and
// golang.org/x/sys, and a user who depends on snowlab must not inherit
// InfluxDB, Sonyflake or any other comparison library through go.mod.
// Only the lab, which is a tool and not a dependency, imports this package.
// Each adapter keeps the library's own defaults unless a Subject's Note
// says otherwise, calls the library the way its documentation tells users
// to, and adds nothing per call beyond what the library itself costs.
//
// Left out: github.com/godruoyi/go-snowflake. The Go module proxy this
// project builds from refuses it (403 "This module version is not
// available" for every version), so it cannot be required in go.mod, and
// a peer that cannot be built reproducibly from a fresh clone has no place
// in the subject.
package peers
