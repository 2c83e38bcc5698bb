package report

import (
	"net/url"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/assaylabs/assay/internal/browsertest"
	"github.com/assaylabs/assay/run"
)

// TestConversationInBrowser opens report.html of a run over an agent's
// conversation in headless Chromium, opens the sample as a reader does,
// and checks what it shows: the turns in order, each call with its
// arguments and result, the expected calls beside them, and the call
// with wrong arguments marked (red, with the metric and why) where the
// calls that lost nothing are not; the markup of the messages is text.
// It saves screenshots of the opened sample at
// /tmp/convo-report.png and /tmp/convo-sample.png for a person to look
// at.
func TestConversationInBrowser(t *testing.T) {
	t.Parallel()
	br := browsertest.Open(t, "a conversation in report.html", 1280, 1400)
	s := tripSample()
	results := scoreAll(t, s)
	texts := textsOf(t, results, s)
	sum := run.Summary{RunID: "convo", Samples: 1, Complete: true, Metrics: run.Summarize(results.Results, nil)}
	dir := t.TempDir()
	page := filepath.Join(dir, run.FileReport)
	f, err := os.Create(page)
	require.NoError(t, err)
	require.NoError(t, WriteHTML(f, run.Config{RunID: "convo", Dataset: "trips.jsonl"}, sum, results, Data{Texts: texts}))
	require.NoError(t, f.Close())

	str := func(script string) string {
		t.Helper()
		v, err := browsertest.Evaluate[string](br, script)
		require.NoError(t, err, script)
		return v
	}
	strs := func(script string) []string {
		t.Helper()
		v, err := browsertest.Evaluate[[]string](br, script)
		require.NoError(t, err, script)
		return v
	}
	require.NoError(t, br.Do(
		browsertest.Navigate((&url.URL{Scheme: "file", Path: page}).String()),
		browsertest.WaitVisible(`#samples`),
	))
	const sample = `#samples tbody:nth-of-type(1)`
	assert.Equal(t, "closed", str(`document.querySelector("`+sample+` section.conv").checkVisibility() ? "shown" : "closed"`))
	require.NoError(t, br.Do(browsertest.Click(sample+` tr.ev > td > details > summary`)))
	assert.Equal(t, "shown", str(`document.querySelector("`+sample+` section.conv").checkVisibility() ? "shown" : "closed"`))

	// The turns in order, as the reader sees them.
	assert.Equal(t, []string{"SYSTEM · turn 1", "USER · turn 2", "ASSISTANT · turn 3", "ASSISTANT · turn 6", "ASSISTANT · turn 8", "ASSISTANT · turn 9", "USER · turn 10", "ASSISTANT · turn 11"},
		strs(`Array.from(document.querySelectorAll("`+sample+` li.turn > .who")).map(e => e.innerText)`))
	// The call with the misspelt city: marked red, its argument and result
	// shown, the metric and why under it.
	call := `document.querySelector("` + sample + ` .call[data-call='2']")`
	assert.Equal(t, "lost", str(`(`+call+`.classList.contains("lost") && getComputedStyle(`+call+`).backgroundColor === "rgb(255, 235, 233)") ? "lost" : "not marked"`))
	text := str(call + `.innerText`)
	assert.Contains(t, text, `get_weather({"city":"Bergn","day":"Friday"})`)
	assert.Contains(t, text, `{"error":"unknown city <Bergn>"}`)
	assert.Contains(t, text, `tool_call_accuracy: arguments.city: want "Bergen", got "Bergn" (expected call 2)`)
	assert.Contains(t, text, `tool_call_errors: its result is an error`)
	// The first call lost nothing: not marked.
	assert.Equal(t, "rgb(255, 255, 255)", str(`getComputedStyle(document.querySelector("`+sample+` .call[data-call='1']")).backgroundColor`))
	// The expected calls beside the made ones, the second marked.
	assert.Equal(t, "right of", str(`(() => { const a = document.querySelector("`+sample+` aside.expected").getBoundingClientRect(), o = document.querySelector("`+sample+` ol.turns").getBoundingClientRect(); return a.left >= o.right ? "right of" : "not beside"; })()`))
	assert.Equal(t, []string{"", "tool_call_accuracy"},
		strs(`Array.from(document.querySelectorAll("`+sample+` li.xcall")).map(li => Array.from(li.querySelectorAll(".mark")).map(m => m.dataset.metric).join(","))`))
	// The turns the judges failed.
	assert.Contains(t, str(`document.querySelector("`+sample+` li.turn[data-turn='9']").innerText`), "knowledge_retention: says 3 adults where the user said 2 adults")
	assert.Contains(t, str(`document.querySelector("`+sample+` li.turn[data-turn='11'].lost").innerText`), "conversation_relevancy")
	// The system message's markup is text; nothing ran.
	assert.Contains(t, str(`document.querySelector("`+sample+` li.turn[data-turn='1']").innerText`), `<img src=x onerror="window.__pwned=1">`)
	assert.Equal(t, "undefined", str(`String(window.__pwned)`))

	shot, err := br.Screenshot(sample + ` section.conv`)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "convo-sample.png"), shot, 0o644))
	full, err := br.Screenshot("")
	require.NoError(t, err)
	for name, b := range map[string][]byte{"/tmp/convo-sample.png": shot, "/tmp/convo-report.png": full} {
		if err := os.WriteFile(name, b, 0o644); err != nil {
			t.Logf("screenshot not copied to %s: %v", name, err)
		}
	}
}
