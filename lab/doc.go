// Package lab is snowlab's performance lab as a library; this package is
// its Suite: one run of the selected workloads against the selected
// subjects on one host, recorded as one result.
//
// Public is what a user needs to benchmark their own generator and gate
// it in their CI, and nothing else:
//
//   - lab/subject: a subject from a func (subject.Func), snowlab's own
//     generators and the physical limits they are read against;
//   - package lab: the Suite that runs the workloads (Suite.Measure) and
//     their configurations, its fields (BurstConfig, SaturateConfig,
//     SteadyConfig);
//   - lab/result: the result it returns, in the schema loadgen writes,
//     with the host it ran on, and read back (result.Read); WriteFiles
//     writes it with its report as loadgen does;
//   - lab/compare: the comparison of two runs (informational: it fails
//     nothing) and the ratios that hold across hosts (compare.Ratios);
//   - lab/runner: the small program loadgen ab measures and loadgen
//     instr counts, a main over your generator: the two regression
//     gates, base against head;
//   - lab/cmd/loadgen: the loadgen command, whose main calls the lab's
//     command line (internal/cli).
//
// Everything else is the lab's internal tree, which no other module can
// import: the workloads that drive a subject and check its IDs
// (internal/workload), the other libraries' subjects (internal/peers), a snowidd
// replica and its remote subject (internal/remote), the
// host's probe (internal/host), perf events, the figures' formats
// (internal/units, internal/stats, internal/md), the reports and charts
// (internal/report, internal/plot), the experiments (internal/experiment)
// and loadgen's command line (internal/cli).
//
// A zero field of a workload's configuration takes the lab's default
// (each field's comment gives it), and loadgen's flags start from the
// same constants, so a Suite built in code and `loadgen run` measure
// alike.
package lab
