package report

import (
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/assaylabs/assay/internal/browsertest"
	"github.com/assaylabs/assay/run"
)

// TestReportInBrowser opens report.html from disk in headless Chromium,
// with the network off, and clicks through it as a reader does: the
// metric cards, histograms with bars and the reliability diagram; the
// sample table sorted by a click on a metric's column; filtered by
// metric and state (failed, defaulted, skipped, error, flipped against
// the baseline) and by words typed into the search; a sample opened to
// its question, answer, contexts and evidence, a long answer unfolded;
// and hostile text that stays text. It saves a screenshot under the
// test's folder and at /tmp/assay-report.png for a person to look at.
func TestReportInBrowser(t *testing.T) {
	t.Parallel()
	br := browsertest.Open(t, "report.html", 1280, 1600)
	cfg, s, results := reportFixture(t)
	dir := t.TempDir()
	page := filepath.Join(dir, run.FileReport)
	f, err := os.Create(page)
	require.NoError(t, err)
	require.NoError(t, WriteHTML(f, cfg, s, results, reportData(t, results)))
	require.NoError(t, f.Close())

	// evaluate runs a script on the page and decodes its result.
	evaluate := func(t *testing.T, script string, into any) {
		t.Helper()
		var err error
		switch p := into.(type) {
		case *int:
			*p, err = browsertest.Evaluate[int](br, script)
		case *string:
			*p, err = browsertest.Evaluate[string](br, script)
		case *[]string:
			*p, err = browsertest.Evaluate[[]string](br, script)
		default:
			t.Fatalf("evaluate: cannot decode into %T", into)
		}
		require.NoError(t, err, script)
	}
	do := func(t *testing.T, actions ...browsertest.Action) {
		t.Helper()
		require.NoError(t, br.Do(actions...))
	}
	// choose picks an option of a filter's list, as a reader does: the
	// list's value changes and it says so. (chromedp.SetValue passes an
	// empty value as undefined, which selects no option at all.)
	choose := func(t *testing.T, id, value string) {
		t.Helper()
		var got string
		evaluate(t, fmt.Sprintf(`(s => { s.value = %s; s.dispatchEvent(new Event("change")); return s.selectedIndex < 0 ? "none" : s.value; })(document.getElementById(%q))`,
			strconv.Quote(value), id), &got)
		require.Equal(t, value, got)
	}
	// clearSearch empties the search box.
	clearSearch := func(t *testing.T) {
		t.Helper()
		var v string
		evaluate(t, `(e => { e.value = ""; e.dispatchEvent(new Event("input")); return e.value; })(document.getElementById("f-text"))`, &v)
		require.Empty(t, v)
	}
	// visible are the ids of the samples the table shows, in its order.
	visible := func(t *testing.T) []string {
		t.Helper()
		var ids []string
		evaluate(t, `Array.from(document.querySelectorAll("#samples tbody")).filter(b => !b.hidden && b.getBoundingClientRect().height > 0).map(b => b.rows[0].cells[0].textContent)`, &ids)
		return ids
	}
	sorted := func(ids []string) []string { return slices.SortedFunc(slices.Values(ids), run.SampleOrder) }
	var (
		cards, bars, rows  int
		metricsShown       []string
		scriptText, banner string
		count              string
		// The reliability diagram.
		diagrams, dots, sizeBars int
		diagonal, otherDiagram   string
	)
	do(t,
		browsertest.Navigate((&url.URL{Scheme: "file", Path: page}).String()),
		browsertest.WaitVisible(`#samples`),
	)
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
	evaluate(t, `Array.from(document.querySelectorAll(".metric-ev li")).map(li => li.textContent).find(s => s.includes("pwned")) || ""`, &scriptText)
	evaluate(t, `document.getElementById("f-count").textContent`, &count)

	assert.Contains(t, banner, "Assay run 20261124-090000-ab12")
	assert.Equal(t, 2, cards)
	assert.Equal(t, []string{"faithfulness", "answer_relevancy"}, metricsShown)
	// Faithfulness fills 7 of its bins, relevancy 5.
	assert.Equal(t, 12, bars)
	assert.Equal(t, 12, rows)
	assert.Equal(t, "12 of 12 samples", count)
	// Only faithfulness is calibrated; its ten values fill 7 of the bins.
	assert.Equal(t, 1, diagrams)
	assert.Equal(t, "square", diagonal)
	assert.Equal(t, 7, dots)
	assert.Equal(t, 7, sizeBars)
	assert.Equal(t, "none", otherDiagram)
	assert.Contains(t, scriptText, `<script>alert("pwned")</script> is a claim`)
	all := []string{"s01", "s02", "s03", "s04", "s05", "s06", "s07", "s08", "s09", "s10", "s11", "s12"}
	assert.Equal(t, all, visible(t))

	t.Run("sort by a metric", func(t *testing.T) {
		// By faithfulness, lowest first, then highest first; the default
		// (s05) and the skip (s09) last either way.
		do(t, browsertest.Click(`#samples th[data-col="2"]`))
		assert.Equal(t, []string{"s07", "s02", "s10", "s04", "s12", "s06", "s08", "s01", "s11", "s03", "s05", "s09"}, visible(t))
		do(t, browsertest.Click(`#samples th[data-col="2"]`))
		assert.Equal(t, []string{"s03", "s11", "s01", "s08", "s06", "s12", "s04", "s10", "s02", "s07", "s05", "s09"}, visible(t))
		// By sample again.
		do(t, browsertest.Click(`#samples th[data-col="0"]`))
		assert.Equal(t, all, visible(t))
	})

	t.Run("filter by metric and state", func(t *testing.T) {
		tests := []struct {
			metric, state string
			want          []string
		}{
			// Faithfulness under its threshold 0.7: not the default nor
			// the skip, and not s06 at 0.71.
			{"0", "below", []string{"s02", "s04", "s07", "s10", "s12"}},
			// Relevancy fails none; s07's relevancy is an error.
			{"1", "below", nil},
			{"", "defaulted", []string{"s05"}},
			{"", "skipped", []string{"s09"}},
			{"", "error", []string{"s07"}},
			{"1", "error", []string{"s07"}},
			{"0", "error", nil},
			// Against the baseline: s01 passes faithfulness now, s02 and
			// s07 fail it; s03 passes relevancy now.
			{"", "flipped", []string{"s01", "s02", "s03", "s07"}},
			{"", "fails", []string{"s02", "s07"}},
			{"1", "passes", []string{"s03"}},
			{"1", "fails", []string{"s07"}}, // an error counts its value 0, as the summary does
			{"", "", all},
		}
		for _, tc := range tests {
			choose(t, "f-metric", tc.metric)
			choose(t, "f-state", tc.state)
			got := visible(t)
			assert.Equal(t, tc.want, nilIfEmpty(sorted(got)), "metric %q state %q", tc.metric, tc.state)
			evaluate(t, `document.getElementById("f-count").textContent`, &count)
			assert.Equal(t, fmt.Sprintf("%d of 12 samples", len(tc.want)), count)
		}
	})

	t.Run("search the texts", func(t *testing.T) {
		tests := []struct {
			words, state string
			want         []string
		}{
			{"PTT", "", []string{"s02"}},                  // in a Thai question's answer
			{"ผลตอบแทน", "", []string{"s06"}},             // Thai, in a question
			{"refund window", "", []string{"s01", "s04"}}, // two words, anywhere in the sample
			{"REFUND", "below", []string{"s04"}},          // any case, with a state
			{"pwned", "", []string{"s03"}},                // in a context and a claim
			{"no sample says this", "", nil},
		}
		for _, tc := range tests {
			choose(t, "f-state", tc.state)
			clearSearch(t)
			do(t, browsertest.SendKeys("#f-text", tc.words))
			assert.Equal(t, tc.want, nilIfEmpty(sorted(visible(t))), "search %q state %q", tc.words, tc.state)
		}
		choose(t, "f-state", "")
		clearSearch(t)
		do(t, browsertest.SendKeys("#f-text", "o\b"))
		assert.Equal(t, all, visible(t), "the search cleared")
	})

	t.Run("open a sample", func(t *testing.T) {
		sample := `#samples tbody:nth-of-type(4)` // s04: a long answer, seven contexts
		var id, answer, folded, opened string
		var contexts int
		evaluate(t, `document.querySelector("`+sample+` td").textContent`, &id)
		require.Equal(t, "s04", id)
		evaluate(t, `document.querySelector("`+sample+` .texts").checkVisibility() ? "shown" : "closed"`, &answer)
		assert.Equal(t, "closed", answer)
		do(t, browsertest.Click(sample+` tr.ev > td > details > summary`))
		evaluate(t, `document.querySelector("`+sample+` .texts").innerText`, &answer)
		assert.Contains(t, answer, "How long do I have to return an item?")
		assert.Contains(t, answer, "Thirty days.")
		assert.Contains(t, answer, "2 more contexts left out of this page.")
		evaluate(t, `document.querySelectorAll("`+sample+` ol.contexts li").length`, &contexts)
		assert.Equal(t, 5, contexts)
		// The long answer shows its start until its button opens it.
		long := `document.querySelector("` + sample + ` .full.long")`
		evaluate(t, `(e => e.scrollHeight > e.clientHeight + 1 ? "folded" : "shown")(`+long+`)`, &folded)
		assert.Equal(t, "folded", folded)
		do(t, browsertest.Click(sample+` button.more`))
		evaluate(t, `(e => e.scrollHeight > e.clientHeight + 1 ? "folded" : "shown")(`+long+`)`, &opened)
		assert.Equal(t, "shown", opened)
		var button string
		evaluate(t, `document.querySelector("`+sample+` button.more").textContent`, &button)
		assert.Equal(t, "show less", button)
		var ev string
		evaluate(t, `document.querySelector("`+sample+` section.metric-ev[data-metric=faithfulness]").innerText`, &ev)
		assert.Contains(t, ev, "0.620")
		assert.Contains(t, ev, "baseline 0.600")
		assert.Contains(t, ev, "Claim two of s04.")
	})

	// Nothing hostile ran: the handlers in s03's texts are text.
	var pwned string
	evaluate(t, `String(window.__pwned)`, &pwned)
	assert.Equal(t, "undefined", pwned)

	shot, err := br.Screenshot("") // quality 100: a PNG
	require.NoError(t, err)
	require.NotEmpty(t, shot)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "report.png"), shot, 0o644))
	if err := os.WriteFile("/tmp/assay-report.png", shot, 0o644); err != nil {
		t.Logf("screenshot not copied to /tmp/assay-report.png: %v", err)
	}
}

// nilIfEmpty is ids, nil when empty, to compare with a nil want.
func nilIfEmpty(ids []string) []string {
	if len(ids) == 0 {
		return nil
	}
	return ids
}
