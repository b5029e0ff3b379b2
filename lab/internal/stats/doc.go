// Package stats holds the lab's own small statistics: the median and the
// spread of a handful of repeats. Comparisons between runs use
// golang.org/x/perf/benchmath; this package is for the figures one run
// reports about itself.
package stats
