package report

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"sync"
	"testing"
	"time"

	cdplog "github.com/chromedp/cdproto/log"
	cdpruntime "github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/snowlab/snowlab/lab/internal/fixture"
)

// browser is the path of a Chromium (or Chrome) to render the pages in:
// the test skips without one, unless SNOWLAB_REQUIRE_BROWSER=1 (as CI
// sets), where it fails.
func browser(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable", "headless-shell"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("SNOWLAB_REQUIRE_BROWSER") == "1" {
		t.Fatal("SNOWLAB_REQUIRE_BROWSER=1 and no chromium on PATH (apt-get install chromium)")
	}
	t.Skip("no chromium on PATH: the pages are not rendered in a browser (SNOWLAB_REQUIRE_BROWSER=1 makes this fail)")
	return ""
}

// artifacts is the folder the screenshots are kept in: $SNOWLAB_ARTIFACTS
// when set (CI uploads it), else the test's temporary folder.
func artifacts(t *testing.T) string {
	if dir := os.Getenv("SNOWLAB_ARTIFACTS"); dir != "" {
		require.NoError(t, os.MkdirAll(dir, 0o755))
		return dir
	}
	return t.TempDir()
}

// pageCheck is what the browser found on a page.
type pageCheck struct {
	H1       int      `json:"h1"`       // h1 elements
	SVGs     int      `json:"svgs"`     // svg elements
	Drawn    int      `json:"drawn"`    // of those, laid out with a size
	Tables   int      `json:"tables"`   // table elements with a row of data
	Remote   []string `json:"remote"`   // attributes naming another host
	Loaded   []string `json:"loaded"`   // resources the page fetched
	Cut      []string `json:"cut"`      // chart texts reaching outside their svg
	Overlap  []string `json:"overlap"`  // chart texts on one line running into each other
	Sections []string `json:"sections"` // the ids of the sections
	// Wide names the tables wider than their box, which then scrolls
	// sideways inside it; Loose those whose first column does not stay in
	// view as it scrolls; PageWide is set when the page itself is wider
	// than the window (something cut off at its side).
	Wide     []string `json:"wide"`
	Loose    []string `json:"loose"`
	PageWide bool     `json:"pageWide"`
	// SummaryTop is where the summary's table begins, in pixels from the
	// top of the page (-1 where there is none).
	SummaryTop float64 `json:"summaryTop"`
}

const inspect = `(() => {
  const out = {h1: document.querySelectorAll('h1').length, svgs: 0, drawn: 0, tables: 0, remote: [], loaded: [], cut: [], overlap: [], sections: []};
  const svgs = [...document.querySelectorAll('svg')];
  out.svgs = svgs.length;
  for (const svg of svgs) {
    const box = svg.getBoundingClientRect();
    if (box.width > 0 && box.height > 0) out.drawn++;
    const rows = {};
    for (const t of svg.querySelectorAll('text')) {
      const r = t.getBoundingClientRect();
      if (r.left < box.left - 1 || r.right > box.right + 1 || r.top < box.top - 1 || r.bottom > box.bottom + 1)
        out.cut.push(t.textContent);
      (rows[Math.round(r.top)] ||= []).push({r, s: t.textContent});
    }
    // Labels on one line (an axis's ticks) must not run into each other.
    for (const row of Object.values(rows)) {
      row.sort((a, b) => a.r.left - b.r.left);
      for (let i = 1; i < row.length; i++)
        if (row[i].r.left < row[i-1].r.right - 0.5) out.overlap.push(row[i-1].s + ' / ' + row[i].s);
    }
  }
  out.tables = [...document.querySelectorAll('table')].filter(t => t.querySelector('tbody tr td')).length;
  for (const el of document.querySelectorAll('*'))
    for (const a of el.attributes)
      if (/(^|url\(\s*['"]?)\s*(https?:)?\/\//i.test(a.value)) out.remote.push(el.tagName + ' ' + a.name + '=' + a.value);
  out.loaded = performance.getEntriesByType('resource').map(e => e.name);
  out.sections = [...document.querySelectorAll('section[id]')].map(s => s.id);
  out.wide = []; out.loose = [];
  for (const t of document.querySelectorAll('table')) {
    const name = (t.querySelector('th') || {}).textContent + ' (' + (t.closest('section[id]') || {}).id + ')';
    if (t.scrollWidth > t.parentElement.clientWidth + 1) out.wide.push(name);
    const first = t.querySelector('td');
    if (first && getComputedStyle(first).position !== 'sticky') out.loose.push(name);
  }
  out.pageWide = document.documentElement.scrollWidth > document.documentElement.clientWidth + 1;
  const sum = document.querySelector('#summary table');
  out.summaryTop = sum ? sum.getBoundingClientRect().top + window.scrollY : -1;
  return out;
})()`

// TestPagesInBrowser renders a run's page (the fixture's, and the newest
// committed run's as an older lab wrote it) and the history page in
// headless Chromium at 1400×900: every chart drawn and no label cut (in the
// browser's own fonts), the tables there and none cut or scrolling
// sideways, the summary on the first screen, nothing loaded from
// anywhere, no script error; a screenshot of each page and of its first
// screen is kept. An experiment's page is checked the same way by
// TestExperimentPagesInBrowser.
func TestPagesInBrowser(t *testing.T) {
	bctx := startBrowser(t)
	dir := t.TempDir()

	run := fixture.Run()
	runPage := filepath.Join(dir, "run.html")
	writeFile(t, runPage, func(b *bytes.Buffer) error { return writeHTML(b, run) })
	// Three times the history's runs, on a third host too: more commits
	// than the axis has room to label.
	var runs []HistoryRun
	for k, host := range []string{"", "", "build-box-12"} {
		for _, hr := range historyRuns(t, dir) {
			hr.Run.Started = hr.Run.Started.Add(time.Duration(k) * 7 * 24 * time.Hour)
			hr.Run.Commit = fmt.Sprintf("%d%s", k, hr.Run.Commit[1:])
			if host != "" {
				hr.Run.Host.Hostname = host
			}
			runs = append(runs, hr)
		}
	}
	h := NewHistory(runs, nil)
	ip, err := newIndexPage(h)
	require.NoError(t, err)
	indexSections := []string{"changes", "gated", "runs", "ungated", "rates"}
	if len(ip.Ungated) == 0 && len(ip.Short) == 0 {
		indexSections = slices.Delete(indexSections, 3, 4)
	}
	if len(ip.Fairness) > 0 {
		indexSections = append(indexSections, "fairness")
	}
	indexPage := filepath.Join(dir, IndexName)
	writeFile(t, indexPage, func(b *bytes.Buffer) error { return WriteIndex(b, h) })

	// The newest committed run with every workload, as the lab wrote it
	// (an older lab: no load recorded).
	committed := newestFullRun(t)
	committedPage := filepath.Join(dir, "committed.html")
	writeFile(t, committedPage, func(b *bytes.Buffer) error { return writeHTML(b, committed) })

	for _, p := range []browserPage{
		// Tables: the summary's capped and uncapped generators, host,
		// clock audit, subjects, burst and where its time went,
		// saturate, cost over the limit, fairness, steady, its latency
		// both ways. The summary's new columns (issue 30) are on the
		// first screen.
		{"run", runPage, len(chartsOf(run)), 12,
			[]string{"snowlab-lab-run-2026-03-14-on-lab-vm-3", "summary", "host", "clock-audit", "subjects", "burst", "saturate",
				"cost-over-the-physical-limit", "fairness", "steady", "corrected-and-uncorrected-latency", "failures"}, true,
			[]string{"Capped generator", "× the fastest capped peer, per node", "Uncapped generator",
				"× the fastest uncapped peer promising as much", fairnessHeader}},
		{"committed", committedPage, len(chartsOf(committed)), tablesOf(committed), sectionsOf(committed), true, nil},
		// The history: what changed and the gated charts lead its first
		// screen; figures too short to chart are a table.
		{"index", indexPage, len(ip.Gated) + len(ip.Ungated) + len(ip.Rates) + len(ip.Fairness), 1 + btoi(len(ip.Short) > 0), indexSections, false, nil},
	} {
		assert.Positive(t, p.SVGs, "%s: a run's page and the history draw charts", p.Name)
		checkInBrowser(t, bctx, p)
	}
}

// browserWidth and browserHeight are the window the pages are rendered
// in: 1400 px is the width at which no table may be cut or scroll.
const browserWidth, browserHeight = 1400, 900

// startBrowser starts the headless Chromium the pages are rendered in,
// stopped when t ends.
func startBrowser(t *testing.T) context.Context {
	exe := browser(t)
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(exe), chromedp.DisableGPU,
		chromedp.WindowSize(browserWidth, browserHeight))
	if runtime.GOOS == "linux" && os.Geteuid() == 0 {
		opts = append(opts, chromedp.NoSandbox) // Chromium refuses to run as root with its sandbox
	}
	actx, cancel := chromedp.NewExecAllocator(context.Background(), opts...)
	t.Cleanup(cancel)
	bctx, cancel := chromedp.NewContext(actx)
	t.Cleanup(cancel)
	require.NoError(t, chromedp.Do(bctx), "start %s", exe) // no timeout here: it would stop the browser
	return bctx
}

// browserPage is a page to render and what it must hold.
type browserPage struct {
	Name, Path string
	SVGs       int      // charts, each drawn with a size
	Tables     int      // tables with a row of data
	Sections   []string // the ids of its sections, in order
	Summary    bool     // a summary table on the first screen
	// FirstScreen are column headers that must be in view, whole, on
	// the first screen (the window at the top of the page).
	FirstScreen []string
}

// firstScreen returns, of the table headers named, those laid out whole
// within the first screen: at the top of the page, inside the window.
const firstScreen = `((names) => {
  window.scrollTo(0, 0);
  const seen = [];
  for (const th of document.querySelectorAll('th')) {
    const r = th.getBoundingClientRect(), name = th.textContent.trim();
    if (names.includes(name) && r.width > 0 && r.height > 0 && r.top >= 0 && r.bottom <= window.innerHeight &&
        r.left >= 0 && r.right <= window.innerWidth && getComputedStyle(th).visibility !== 'hidden' && !seen.includes(name))
      seen.push(name);
  }
  return seen;
})`

// checkInBrowser renders p in a tab of bctx's browser, keeps a
// screenshot of it and of its first screen, and checks it in a subtest
// named p.Name: its charts drawn and no label cut, its tables and
// sections there and none wider than the window, nothing loaded from
// anywhere, no script error.
func checkInBrowser(t *testing.T, bctx context.Context, p browserPage) {
	out := artifacts(t)
	t.Run(p.Name, func(t *testing.T) {
		ctx, cancel := context.WithTimeout(bctx, 30*time.Second)
		defer cancel()
		ctx, cancel = chromedp.NewContext(ctx)
		defer cancel()
		var mu sync.Mutex
		var problems []string
		require.NoError(t, chromedp.Listen(ctx, func(ev any) {
			mu.Lock()
			defer mu.Unlock()
			switch ev := ev.(type) {
			case *cdpruntime.EventExceptionThrown:
				problems = append(problems, (&chromedp.ExceptionError{ExceptionDetails: ev.ExceptionDetails}).Error())
			case *cdpruntime.EventConsoleAPICalled:
				if ev.Type == cdpruntime.ConsoleAPICalledTypeError || ev.Type == cdpruntime.ConsoleAPICalledTypeAssert {
					problems = append(problems, fmt.Sprintf("console.%s", ev.Type))
				}
			case *cdplog.EventEntryAdded:
				if ev.Entry.Level == cdplog.EntryLevelError {
					problems = append(problems, "log: "+ev.Entry.Text)
				}
			}
		}))
		require.NoError(t, chromedp.Do(ctx,
			chromedp.Navigate("file://"+filepath.ToSlash(p.Path)),
			chromedp.WaitReady(chromedp.CSS("body"))))
		got, err := chromedp.Run(ctx, chromedp.Evaluate[pageCheck](inspect))
		require.NoError(t, err)
		if len(p.FirstScreen) > 0 {
			names, _ := json.Marshal(p.FirstScreen)
			seen, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](firstScreen+"("+string(names)+")"))
			require.NoError(t, err)
			assert.ElementsMatch(t, p.FirstScreen, seen, "the new column headers in view on the first screen (report-%s-first-screen.png)", p.Name)
		}
		first, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
		require.NoError(t, err)
		shot, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
		require.NoError(t, err)
		for name, png := range map[string][]byte{"report-" + p.Name + ".png": shot, "report-" + p.Name + "-first-screen.png": first} {
			path := filepath.Join(out, name)
			require.NoError(t, os.WriteFile(path, png, 0o644))
			t.Logf("screenshot: %s", path)
		}
		t.Logf("%s: %d h1, %d of %d charts drawn, %d tables, sections %v", p.Name, got.H1, got.Drawn, got.SVGs, got.Tables, got.Sections)

		assert.Equal(t, 1, got.H1, "one h1")
		assert.Equal(t, p.SVGs, got.SVGs, "every chart on the page")
		assert.Equal(t, p.SVGs, got.Drawn, "every chart laid out with a size")
		assert.Equal(t, p.Tables, got.Tables)
		assert.Equal(t, p.Sections, got.Sections)
		assert.Empty(t, got.Remote, "no reference to another host")
		assert.Empty(t, got.Loaded, "nothing fetched")
		assert.Empty(t, got.Cut, "chart text cut at the edge of its svg")
		assert.Empty(t, got.Overlap, "chart labels overlapping")
		assert.Empty(t, got.Wide, "tables wider than the page at %d px", browserWidth)
		assert.Empty(t, got.Loose, "tables whose first column scrolls away")
		assert.False(t, got.PageWide, "the page wider than the window at %d px", browserWidth)
		if p.Summary {
			assert.True(t, got.SummaryTop >= 0 && got.SummaryTop < browserHeight/2,
				"the summary's table begins in the top half of the first screen (at %.0f px)", got.SummaryTop)
		}
		mu.Lock()
		defer mu.Unlock()
		assert.Empty(t, problems, "no script error, exception or error logged")
		assert.True(t, bytes.HasPrefix(shot, []byte("\x89PNG")), "a PNG screenshot")
	})
}
