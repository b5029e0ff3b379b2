package report

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sync"
	"testing"
	"time"

	cdplog "github.com/chromedp/cdproto/log"
	cdpruntime "github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/snowlab/snowlab/lab/fixture"
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
// screen is kept.
func TestPagesInBrowser(t *testing.T) {
	exe := browser(t)
	dir := t.TempDir()
	out := artifacts(t)

	run := fixture.Run()
	runPage := filepath.Join(dir, "run.html")
	writeFile(t, runPage, func(b *bytes.Buffer) error { return WriteHTML(b, run) })
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
	indexPage := filepath.Join(dir, IndexName)
	writeFile(t, indexPage, func(b *bytes.Buffer) error { return WriteIndex(b, h) })

	// The newest committed run with every workload, as the lab wrote it
	// (an older lab: no load recorded).
	committed := newestFullRun(t)
	committedPage := filepath.Join(dir, "committed.html")
	writeFile(t, committedPage, func(b *bytes.Buffer) error { return WriteHTML(b, committed) })

	// 1400 px: the width at which no table may be cut or scroll.
	const width, height = 1400, 900
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(exe), chromedp.DisableGPU,
		chromedp.WindowSize(width, height))
	if runtime.GOOS == "linux" && os.Geteuid() == 0 {
		opts = append(opts, chromedp.NoSandbox) // Chromium refuses to run as root with its sandbox
	}
	actx, cancel := chromedp.NewExecAllocator(context.Background(), opts...)
	defer cancel()
	bctx, cancel := chromedp.NewContext(actx)
	defer cancel()
	require.NoError(t, chromedp.Do(bctx), "start %s", exe) // no timeout here: it would stop the browser

	for _, tc := range []struct {
		name, path string
		svgs       int
		tables     int
		sections   []string
	}{
		// Tables: summary, host, clock audit, subjects, burst and where its
		// time went, saturate, cost over the limit, steady.
		{"run", runPage, len(chartsOf(run)), 9,
			[]string{"snowlab-lab-run-2026-03-14-on-lab-vm-3", "summary", "host", "clock-audit", "subjects", "burst", "saturate",
				"cost-over-the-physical-limit", "steady", "failures"}},
		{"committed", committedPage, len(chartsOf(committed)), tablesOf(committed), sectionsOf(committed)},
		{"index", indexPage, len(h.Ratios) + len(h.Rates), 1, []string{"gated", "runs", "ungated", "rates"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
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
				chromedp.Navigate("file://"+filepath.ToSlash(tc.path)),
				chromedp.WaitReady(chromedp.CSS("body"))))
			got, err := chromedp.Run(ctx, chromedp.Evaluate[pageCheck](inspect))
			require.NoError(t, err)
			first, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
			require.NoError(t, err)
			shot, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
			require.NoError(t, err)
			for name, png := range map[string][]byte{"report-" + tc.name + ".png": shot, "report-" + tc.name + "-first-screen.png": first} {
				path := filepath.Join(out, name)
				require.NoError(t, os.WriteFile(path, png, 0o644))
				t.Logf("screenshot: %s", path)
			}

			assert.Equal(t, 1, got.H1, "one h1")
			assert.Positive(t, tc.svgs)
			assert.Equal(t, tc.svgs, got.SVGs, "every chart on the page")
			assert.Equal(t, tc.svgs, got.Drawn, "every chart laid out with a size")
			assert.Equal(t, tc.tables, got.Tables)
			assert.Equal(t, tc.sections, got.Sections)
			assert.Empty(t, got.Remote, "no reference to another host")
			assert.Empty(t, got.Loaded, "nothing fetched")
			assert.Empty(t, got.Cut, "chart text cut at the edge of its svg")
			assert.Empty(t, got.Overlap, "chart labels overlapping")
			assert.Empty(t, got.Wide, "tables wider than the page at %d px", width)
			assert.Empty(t, got.Loose, "tables whose first column scrolls away")
			assert.False(t, got.PageWide, "the page wider than the window at %d px", width)
			if tc.name != "index" {
				assert.True(t, got.SummaryTop >= 0 && got.SummaryTop < height/2,
					"the summary's table begins in the top half of the first screen (at %.0f px)", got.SummaryTop)
			}
			mu.Lock()
			defer mu.Unlock()
			assert.Empty(t, problems, "no script error, exception or error logged")
			assert.True(t, bytes.HasPrefix(shot, []byte("\x89PNG")), "a PNG screenshot")
		})
	}
}
