// Package units formats the lab's figures for people: durations in
// nanoseconds with a unit, rates and counts with an SI prefix, sizes with
// a binary prefix, all to a chosen number of significant digits. It
// computes nothing and writes nothing: every report, table and chart label
// of the lab formats its numbers here, so that one figure reads the same
// everywhere.
package units
