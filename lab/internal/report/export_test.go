package report

// For the tests of package report_test, which render the pages of the
// experiments (btree, faults): those import this package, so
// only an external test can import them.
type BrowserPage = browserPage

var (
	StartBrowser   = startBrowser
	CheckInBrowser = checkInBrowser
)
