package dashboard_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/assaylabs/assay/internal/browsertest"
	"github.com/assaylabs/assay/run"
	"github.com/assaylabs/assay/serve/dashboard"
)

// TestDashboardInBrowser serves the page and its JSON route on loopback,
// opens it in headless Chromium with every other address unreachable,
// and reads what a person sees: a metric's mean and interval, the open
// alert, the stalled judge, a sample with its evidence, hostile text as
// text, the runs. Then the data changes and the page refreshes from the
// JSON route. It saves a screenshot in the test's folder, and at
// $ASSAY_DASHBOARD_PNG when that is set, for a person to look at.
func TestDashboardInBrowser(t *testing.T) {
	t.Parallel()
	br := browsertest.Open(t, "the dashboard", 1280, 1500)
	var mu sync.Mutex
	data, failing := fixedData(), false
	src := dashboard.SourceFunc(func(context.Context) (dashboard.Data, error) {
		mu.Lock()
		defer mu.Unlock()
		if failing {
			return dashboard.Data{}, errors.New("the run store is locked")
		}
		return data, nil
	})
	mux := http.NewServeMux()
	mux.Handle("GET /{$}", dashboard.Page{Source: src, Refresh: -1}) // the test refreshes by hand
	mux.Handle("GET "+dashboard.DefaultJSONPath, dashboard.JSONHandler(src))
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)

	text := func(t *testing.T, sel string) string { t.Helper(); return br.Text(t, sel) }
	require.NoError(t, br.Do(
		browsertest.Navigate(srv.URL+"/"),
		browsertest.WaitVisible(`#metrics .card`),
	))

	faith := `#metrics .card[data-metric="faithfulness"]`
	for _, tc := range []struct{ sel, want string }{
		{faith + ` .mean`, "0.362"},
		{faith + ` .ci`, "95% CI 0.311–0.414"},
		{faith + ` .badge`, "CRITICAL"},
		{faith + ` .facts`, "run 20260301-0900-a1b2"},
		{faith + ` .facts`, "4.0% (4)"},
		{`#alerts li.critical`, "Average faithfulness critically low: 0.362 < 0.400"},
		{`#metrics .card[data-metric="context_precision"] .stall`, "Judge stalled: the last 12 judgements defaulted"},
		{`#metrics .card[data-metric="context_precision"] .mean`, "–"},
		{`#lowest tr[data-id="trace-7f3a"]`, "When did the Treaty of Westphalia end the war?"},
		{`#lowest tr[data-id="trace-7f3a"]`, "0 of 2 claims are supported by the contexts."},
		{`#lowest tr[data-id="trace-7f3a"]`, "1.84 s"},
		{`#lowest tr[data-id="trace-hostile"]`, `document.title="pwned"`},
		{`#slowest tr[data-id="trace-91bc"]`, "12.40 s"},
		{`#runs tr.run`, "faithfulness 0.810 · answer_relevancy 0.880"},
		{`#generated`, "2026-03-02 09:00:00 UTC"},
	} {
		assert.Contains(t, text(t, tc.sel), tc.want, tc.sel)
	}
	count := func(t *testing.T, sel string) int {
		t.Helper()
		n, err := browsertest.Evaluate[int](br, `document.querySelectorAll(`+jsString(sel)+`).length`)
		require.NoError(t, err, sel)
		return n
	}
	polylines, dots, hostileImgs := count(t, "#metrics svg.trend polyline"), count(t, faith+" svg.trend circle"), count(t, "#lowest img")
	title, err := browsertest.Evaluate[string](br, `document.title`)
	require.NoError(t, err)
	assert.Equal(t, 2, polylines, "a trend line for each metric scored by day")
	assert.Equal(t, 5, dots, "one point per day")
	assert.Zero(t, hostileImgs, "hostile markup stays text")
	assert.Equal(t, "Assay · live quality", title)

	// The evidence opens on a click.
	require.NoError(t, br.Do(browsertest.Click(`#lowest tr[data-id="trace-7f3a"] details summary`)))
	assert.Contains(t, text(t, `#lowest tr[data-id="trace-7f3a"] details ul`), "unsupported: in 1453")

	shot, err := br.Screenshot("") // quality 100: a PNG
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(t.TempDir(), "dashboard.png"), shot, 0o644))
	if p := os.Getenv("ASSAY_DASHBOARD_PNG"); p != "" {
		require.NoError(t, os.WriteFile(p, shot, 0o644))
	}

	// The alert resolves and the mean recovers: a refresh from the JSON
	// route shows it.
	mu.Lock()
	data.Metrics[0].Mean, data.Metrics[0].Severity, data.Alerts = run.Num(0.802), "", []dashboard.Alert{}
	mu.Unlock()
	refresh := func(t *testing.T) {
		t.Helper()
		done, err := browsertest.EvaluateAwait[string](br, `window.assayRefresh().then(() => "done")`)
		require.NoError(t, err)
		require.Equal(t, "done", done)
	}
	refresh(t)
	assert.Equal(t, "0.802", text(t, faith+` .mean`))
	assert.Equal(t, "No open alerts.", text(t, `#alerts`))
	assert.Contains(t, text(t, `#status`), "refreshed")

	// A refresh that fails says so and keeps what it showed.
	mu.Lock()
	failing = true
	mu.Unlock()
	refresh(t)
	assert.Contains(t, text(t, `#status`), "refresh failed: 500")
	assert.Equal(t, "0.802", text(t, faith+` .mean`))
}

func jsString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
