// Package result is the lab's result file: the schema of what one run
// measured (Run and the per-workload results under it, each with its
// correctness Check), and reading and writing it. It holds data and its
// one description of a failed check, nothing that measures, compares or
// draws, so any tool that reads results (a report, a gate, an experiment
// such as loadgen btree) can import it without linking the workloads.
//
// SchemaVersion numbers the format; Read refuses a version it cannot read
// rather than misread a figure whose meaning changed.
package result
