// Package alternatives is the lab's experiment on the ways of handing out
// IDs that Snowflake-style IDs are chosen over, measured on PostgreSQL beside
// snowlab: the ticket server (one row, UPDATE ... SET n = n + 1 RETURNING
// n, one ID per transaction), sequences (nextval with CACHE 1, with a
// per-session cache, and nextval over generate_series for many IDs per
// round trip), block or segment allocation (one row per tag, max_id =
// max_id + step, the block handed out by the client, optionally with
// Meituan Leaf's double buffer), multi-master stride (N sequences
// INCREMENT BY N START WITH i), snowlab's atomicgen in process with
// each client's clock offset by up to a configurable skew, and snowlab as
// a service: each client calling a snowidd replica over gRPC (through
// lab/internal/remote, on a connection of its own), NextID per ID or NextIDs for a
// batch, so that the network hop stands beside the database's round trip.
// Without a replica (options.Snowidd) those schemes are skipped and the
// result says why.
//
// The documents argue with numbers nobody here had measured: a commit's
// flush costs ~240 µs, so one row does ~4,000 IDs/s; a 100,000/s peak then
// forces blocks of ~24; blocks and strides reorder time by far more than
// Snowflake's clock skew. execute runs every scheme with each number of
// concurrent clients (simulated nodes, one connection each) for a fixed
// time, each client asking for its share of a fleet-wide demand, and
// records every ID with the moment it was handed out. From those it
// computes the rate, round-trip and per-ID latency, and the disorder: the
// share of neighbours in the ID-sorted list handed out in the other order
// (the adjacent-pair estimate), an exact inversion count, and the
// inversion window, the largest time by which an ID sorts before one
// handed out earlier. Beside them it measures the data folder's flush
// cost with pg_test_fsync (the row's ceiling is 1 / that), and, on a
// server it controls, crashes the ticket row running with
// synchronous_commit = off and counts the IDs the row hands out twice.
//
// The layers follow golang.org/x/perf's: block.go and source.go hand out
// IDs, measure.go runs the clients, disorder.go and latency.go compute
// from what they recorded, claims.go holds the findings against the
// documents, and verdict.go, report.go and chart.go only format. A runResult is
// written as results/<date>-<host>-<sha>-alternatives.json with a
// Markdown report and two SVG charts (writeFiles).
package alternatives
