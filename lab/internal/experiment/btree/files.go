package btree

// writeFiles writes the run into dir as a suite run's files are written,
// under the stem <date>-<host>-<sha>-btree: <stem>.json, <stem>.md, the
// charts under <stem>/ and <stem>.html. It returns the paths written.
func writeFiles(dir string, run *runResult) ([]string, error) {
	return document(run).WriteFiles(dir, &run.Header, run)
}
