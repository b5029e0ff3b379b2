// Package result is the lab's result file: the schema of what one run
// measured (Run and the per-workload results under it, each with its
// correctness Check, and the Host it ran on with its load), the Header an
// experiment's file opens with, and Read. Every type of its API is its
// own and it imports nothing of the lab: it holds data and the one
// description of each figure (Check.String, Load.String), nothing that
// probes, measures, writes, compares or draws, so any tool that reads
// results can import it without linking the workloads. The lab writes
// results (lab.WriteFiles, loadgen); a program of yours reads them.
//
// SchemaVersion numbers the format; Read refuses a version it cannot read
// rather than misread a figure whose meaning changed.
package result
