// Package lab is snowlab's performance lab as a library; this package is
// its Suite: one run of the selected workloads (lab/workload) against the
// selected subjects (lab/subject, lab/peers) on one host, recorded as one
// result (lab/result) and written with its report and charts
// (lab/report). Everything else lives in the packages below it, each with
// one job: the result schema, the host fingerprint, event counting, the
// workloads, the reports, and the comparison of two runs (lab/compare)
// that CI uses to catch a regression.
//
// A zero field of a workload's configuration takes the lab's default
// (workload.DefaultBurstIDs and the rest), and loadgen's flags start from
// the same constants, so a Suite built in code and `loadgen run` measure
// alike.
package lab
