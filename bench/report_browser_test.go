package bench

import (
	"context"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// chromiumPath finds a Chromium or Chrome binary on PATH, "" when none.
func chromiumPath() string {
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}

// TestReportInBrowser opens report.html from disk in headless Chromium,
// with the network off, and checks what a reader sees: the metric cards,
// histograms with bars, the sample rows, and the table reordered by a
// click on a metric's column. It saves a screenshot under the test's
// folder and at /tmp/assay-report.png for a person to look at.
func TestReportInBrowser(t *testing.T) {
	t.Parallel()
	bin := chromiumPath()
	if bin == "" {
		t.Skip("no chromium, chromium-browser or google-chrome on PATH: install Debian's chromium package (apt-get install chromium) to check report.html in a browser")
	}
	cfg, s, results := reportFixture(t)
	dir := t.TempDir()
	page := filepath.Join(dir, FileReport)
	f, err := os.Create(page)
	require.NoError(t, err)
	require.NoError(t, WriteReport(f, cfg, s, results, ReportData{}))
	require.NoError(t, f.Close())

	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(bin),
		chromedp.NoSandbox,
		chromedp.WindowSize(1280, 1600),
		// Nothing may be fetched: a page that needs the network shows
		// up as missing content below.
		chromedp.ProxyServer("http://127.0.0.1:9"),
	)
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	defer cancelAlloc()
	ctx, cancel := chromedp.NewContext(actx)
	defer cancel()
	// A bound on a stuck browser, not a timing check.
	ctx, cancelTimeout := context.WithTimeout(ctx, 2*time.Minute)
	defer cancelTimeout()

	// evaluate runs a script on the page and decodes its result.
	evaluate := func(t *testing.T, script string, into any) {
		t.Helper()
		var err error
		switch p := into.(type) {
		case *int:
			*p, err = chromedp.Run(ctx, chromedp.Evaluate[int](script))
		case *string:
			*p, err = chromedp.Run(ctx, chromedp.Evaluate[string](script))
		case *[]string:
			*p, err = chromedp.Run(ctx, chromedp.Evaluate[[]string](script))
		default:
			t.Fatalf("evaluate: cannot decode into %T", into)
		}
		require.NoError(t, err, script)
	}
	var (
		cards, bars, rows  int
		metricsShown       []string
		before, asc, desc  []string
		scriptText, banner string
		// The reliability diagram.
		diagrams, dots, sizeBars int
		diagonal, otherDiagram   string
	)
	firstColumn := `Array.from(document.querySelectorAll("#samples tbody tr.vals td:first-child")).map(td => td.textContent)`
	require.NoError(t, chromedp.Do(ctx,
		chromedp.Navigate((&url.URL{Scheme: "file", Path: page}).String()),
		chromedp.WaitVisible(chromedp.CSS(`#samples`)),
	))
	evaluate(t, `document.querySelectorAll("section.card.metric").length`, &cards)
	evaluate(t, `Array.from(document.querySelectorAll("section.card.metric h3")).map(h => h.textContent)`, &metricsShown)
	evaluate(t, `Array.from(document.querySelectorAll("svg.hist rect.bar")).filter(r => r.getBoundingClientRect().height > 0).length`, &bars)
	evaluate(t, `document.querySelectorAll("#samples tbody tr.vals").length`, &rows)
	// The reliability diagram: drawn (a box of some size), its diagonal
	// rising left to right, a dot per non-empty bin, a size bar per bin.
	evaluate(t, `Array.from(document.querySelectorAll("svg.rel")).filter(s => s.getBoundingClientRect().width > 100).length`, &diagrams)
	evaluate(t, `(() => { const l = document.querySelector("svg.rel line.diag").getBoundingClientRect(); return l.width > 100 && Math.abs(l.width - l.height) < 1 ? "square" : "not square"; })()`, &diagonal)
	evaluate(t, `document.querySelectorAll("svg.rel circle.bin").length`, &dots)
	evaluate(t, `Array.from(document.querySelectorAll("svg.rel rect.size")).filter(r => r.getBoundingClientRect().height > 0).length`, &sizeBars)
	evaluate(t, `document.querySelector("section.card.metric[data-metric=answer_relevancy] svg.rel") === null ? "none" : "drawn"`, &otherDiagram)
	evaluate(t, `document.querySelector("h1").innerText`, &banner)
	// The script in s03's evidence is text on the page, not run.
	evaluate(t, `Array.from(document.querySelectorAll(".evidence li")).map(li => li.textContent).find(s => s.includes("pwned")) || ""`, &scriptText)
	evaluate(t, firstColumn, &before)
	require.NoError(t, chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`#samples th[data-col="1"]`))))
	evaluate(t, firstColumn, &asc)
	require.NoError(t, chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`#samples th[data-col="1"]`))))
	evaluate(t, firstColumn, &desc)
	// Open the first row's evidence for the picture.
	require.NoError(t, chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`#samples tbody tr.ev summary`))))
	shot, err := chromedp.Run(ctx, chromedp.FullScreenshot(100)) // quality 100: a PNG
	require.NoError(t, err)

	assert.Contains(t, banner, "Assay run 20261124-090000-ab12")
	assert.Equal(t, 2, cards)
	assert.Equal(t, []string{"faithfulness", "answer_relevancy"}, metricsShown)
	// Faithfulness fills 7 of its bins, relevancy 5.
	assert.Equal(t, 12, bars)
	assert.Equal(t, 12, rows)
	// Only faithfulness is calibrated; its ten values fill 7 of the bins.
	assert.Equal(t, 1, diagrams)
	assert.Equal(t, "square", diagonal)
	assert.Equal(t, 7, dots)
	assert.Equal(t, 7, sizeBars)
	assert.Equal(t, "none", otherDiagram)
	assert.Contains(t, scriptText, `<script>alert("pwned")</script> is a claim`)
	assert.Equal(t, []string{"s01", "s02", "s03", "s04", "s05", "s06", "s07", "s08", "s09", "s10", "s11", "s12"}, before)
	// By faithfulness, lowest first, then highest first; the default (s05)
	// and the skip (s09) last either way.
	assert.Equal(t, []string{"s07", "s02", "s10", "s04", "s12", "s06", "s08", "s01", "s11", "s03", "s05", "s09"}, asc)
	assert.Equal(t, []string{"s03", "s11", "s01", "s08", "s06", "s12", "s04", "s10", "s02", "s07", "s05", "s09"}, desc)

	require.NotEmpty(t, shot)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "report.png"), shot, 0o644))
	if err := os.WriteFile("/tmp/assay-report.png", shot, 0o644); err != nil {
		t.Logf("screenshot not copied to /tmp/assay-report.png: %v", err)
	}
}
