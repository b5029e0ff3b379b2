package main

import (
	"os"
	"path/filepath"
)

// Where loadgen's files go, relative to the folder it runs in (the
// checkout's root, as make runs it). Every run lands in localDir, which
// .gitignore leaves out, so that running the lab never dirties the
// checkout; publishedDir holds the runs committed on purpose (loadgen
// publish copies one there and refreshes its history page), and
// baselineDir the run the regression gate compares with.
const (
	publishedDir = "results"
	localDir     = "results/local"
	baselineDir  = "results/baseline"
)

// defaultOut is the folder a subcommand writes its result files into
// unless told otherwise (-out): the ignored local folder.
func defaultOut() string { return filepath.FromSlash(localDir) }

// historySources are the folders whose runs the history page of out
// shows: the local folder's page also shows the published runs, so that
// it is the whole history; any other folder's shows its own.
func historySources(out string) []string {
	if filepath.Clean(out) != defaultOut() {
		return []string{out}
	}
	if fi, err := os.Stat(publishedDir); err == nil && fi.IsDir() {
		return []string{publishedDir, out}
	}
	return []string{out}
}
