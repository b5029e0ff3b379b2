// Package lab is snowlab's performance lab as a library; this package is
// its Suite: one run of the selected workloads (lab/workload) against the
// selected subjects (lab/subject, lab/peers) on one host, recorded as one
// result (lab/result), which loadgen renders as its report and charts.
// The packages below it are the layers a user of the lab needs, each with
// one job: the subjects, the workloads, the result schema, the host
// fingerprint (lab/host), a snowidd replica and its remote subject
// (lab/replica, lab/remote), and the comparison of two runs and the gate
// (lab/compare) that CI uses to catch a regression; lab/units, lab/stats
// and lab/md format and summarise figures for the lab and loadgen alike.
//
// A zero field of a workload's configuration takes the lab's default
// (workload.DefaultBurstIDs and the rest), and loadgen's flags start from
// the same constants, so a Suite built in code and `loadgen run` measure
// alike.
package lab
