package serve

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/assaylabs/assay/internal/browsertest"
	"github.com/assaylabs/assay/internal/termtext"
)

// TestQueueInBrowser opens the annotation queue of a stored run in
// headless Chromium and uses it as a person does, from the keyboard:
// the name typed once, twelve items labelled pass or fail in the
// default order, the active one (one with a note), a step back to see
// a label, the hostile sample shown as text. Then the labels are in
// serve.db with who and the note, and the export, its labels weighted,
// fed to the agree library, gives the estimate the page shows. It saves a screenshot in the
// test's folder, and at $ASSAY_QUEUE_PNG when that is set, for a person
// to look at.
func TestQueueInBrowser(t *testing.T) {
	t.Parallel()
	br := browsertest.Open(t, "the annotation queue", 1280, 1100)
	at := time.Date(2026, 3, 2, 10, 30, 0, 0, time.UTC)
	s, id := queueServer(t, Config{Now: func() time.Time { return at }}, 30)

	text := func(t *testing.T, sel string) string { t.Helper(); return br.Text(t, sel) }
	current := func(t *testing.T) string {
		t.Helper()
		v, err := browsertest.Evaluate[string](br, `document.getElementById("item").dataset.id`)
		require.NoError(t, err)
		return v
	}
	// waitStatus waits until the status line starts with want: the page
	// has the server's answer.
	waitStatus := func(t *testing.T, want string) {
		t.Helper()
		err := br.Do(browsertest.WaitTrue(`document.getElementById("status").textContent.startsWith(` + jsString(want) + `)`))
		require.NoError(t, err, "status %q, want %q", text(t, "#status"), want)
	}
	key := func(t *testing.T, k string) {
		t.Helper()
		require.NoError(t, br.Do(browsertest.Key(k)))
	}

	require.NoError(t, br.Do(
		browsertest.Navigate(s.URL+"/queue?run="+id),
		browsertest.WaitVisible(`#item[data-id]`),
	))
	assert.Contains(t, text(t, "#source"), "run "+id+" · faithfulness · binary labels")
	assert.Contains(t, text(t, "#order"), "Order: active")
	assert.Contains(t, text(t, "#worth"), "active #1, chance 0.00 at 0 labels")
	assert.Equal(t, "0 of 30", text(t, "#labelled"))
	assert.Contains(t, text(t, "#estimate-note"), "0 labelled items with a judge value; an estimate needs at least 10")
	assert.Contains(t, text(t, "#keys"), "p pass · f fail")

	// The name, typed once, kept for the labels.
	require.NoError(t, br.Do(browsertest.Click("#labeler"), browsertest.SendKeys("#labeler", "Ana Lima")))
	key(t, browsertest.Escape) // Esc leaves the field
	_, err := browsertest.Evaluate[any](br, `document.getElementById("labeler").dispatchEvent(new Event("change"))`)
	require.NoError(t, err)

	labelled := map[string]bool{}
	var noted string
	for n := range 12 {
		item := current(t)
		var i int
		_, err := fmt.Sscanf(item, "q%d", &i)
		require.NoError(t, err, item)
		if item == "q30" { // the default: step over it, unlabelled
			key(t, "u")
			item = current(t)
			_, err = fmt.Sscanf(item, "q%d", &i)
			require.NoError(t, err, item)
		}
		assert.Contains(t, text(t, "#position"), item)
		assert.Contains(t, text(t, "#judge"), fmt.Sprintf("%d of 10 claims supported", int(queueValue(i)*10+0.5)), item)
		if n == 4 {
			noted = item
			key(t, "n")
			require.NoError(t, br.Do(browsertest.SendKeys("#note", "the year is right, the span is not")))
			key(t, browsertest.Escape)
		}
		want := queueTruth(i)
		if want {
			key(t, "p")
		} else {
			key(t, "f")
		}
		verdict := map[bool]string{true: "pass", false: "fail"}[want]
		waitStatus(t, "saved "+item+": "+verdict)
		labelled[item] = want
	}
	assert.Equal(t, "12 of 30", text(t, "#labelled"))

	// A step back shows the label given there.
	key(t, "k")
	prev := current(t)
	require.Contains(t, labelled, prev, "the item before is one labelled")
	assert.Equal(t, map[bool]string{true: "pass", false: "fail"}[labelled[prev]], text(t, "#label"))

	// The estimate the page shows, and the projection.
	shown := text(t, "#estimate")
	m := regexp.MustCompile(`^(\d\.\d{3}) ± (\d\.\d{3})$`).FindStringSubmatch(shown)
	require.NotNil(t, m, "the estimate shown: %q", shown)
	assert.Contains(t, text(t, "#projection"), "10 more labels would narrow the interval from ±"+m[2]+" to about ±")
	assert.Empty(t, text(t, "#estimate-warning"), "labelled in the active order")
	assert.Equal(t, "in the active order (weighted)", text(t, "#design"))
	assert.Contains(t, text(t, "#agree"), "--weight meta.label_weight")

	// The hostile sample, by its link, is text.
	require.NoError(t, br.Do(
		browsertest.Navigate(s.URL+"/queue?run="+id+"&order=active#q3"), // another query: loaded afresh
		browsertest.WaitVisible(`#item[data-id]`),
	))
	require.Equal(t, "q3", current(t))
	// q3's verdict is 1.0, as far from the threshold as can be: size
	// 0.1, and a small chance of being among the first 12.
	assert.Contains(t, text(t, "#worth"), "worth 0.00 · uncertainty 0.00 · draw #14 · active #27, chance 0.06 at 12 labels")
	assert.Contains(t, text(t, "#question"), `<script>document.title="pwned"</script>`)
	assert.Contains(t, text(t, "#answer"), `<img src=x onerror=`)
	imgs, err := browsertest.Evaluate[int](br, `document.querySelectorAll("#item img, #item script").length`)
	require.NoError(t, err)
	assert.Zero(t, imgs, "hostile markup stays text")
	title, err := browsertest.Evaluate[string](br, `document.title`)
	require.NoError(t, err)
	assert.Equal(t, "Assay · annotation queue", title)

	shot, err := br.Screenshot("") // quality 100: a PNG
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(t.TempDir(), "queue.png"), shot, 0o644))
	if p := os.Getenv("ASSAY_QUEUE_PNG"); p != "" {
		require.NoError(t, os.WriteFile(p, shot, 0o644))
	}

	// The labels as stored: who, when, the note.
	stored, err := s.queues.Labels(t.Context(), "run:"+id, "faithfulness")
	require.NoError(t, err)
	require.Len(t, stored, 12)
	for item, want := range labelled {
		l := stored[item]
		assert.Equal(t, map[bool]float64{true: 1, false: 0}[want], l.Value, item)
		assert.Equal(t, "Ana Lima", l.Who, item)
		assert.Equal(t, at, l.At, item)
		if item == noted {
			assert.Equal(t, "the year is right, the span is not", l.Note)
		} else {
			assert.Empty(t, l.Note, item)
		}
	}

	// The export through the page's link, fed to agree with the weights:
	// the estimate shown, to its three places.
	href, err := browsertest.Evaluate[string](br, `document.getElementById("export").getAttribute("href")`)
	require.NoError(t, err)
	code, export := call(t, http.MethodGet, s.URL+href, "")
	require.Equal(t, http.StatusOK, code, export)
	mean := agreeEstimate(t, []byte(export), "faithfulness", false, true)
	assert.Equal(t, m[1], strconv.FormatFloat(float64(mean.Estimate), 'f', 3, 64))
	assert.Equal(t, m[2], strconv.FormatFloat(float64(mean.CI95[1]-mean.CI95[0])/2, 'f', 3, 64))
	assert.Equal(t, 12, mean.Labelled)
	assert.Equal(t, "meta."+"label_weight", mean.Weight)
}

func jsString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// TestQueueWithABrokenHashInBrowser: a link whose hash is no escaped
// text (#%E0) opens the queue at its first item; the page's script used
// to stop on decodeURIComponent's URIError and show nothing.
func TestQueueWithABrokenHashInBrowser(t *testing.T) {
	t.Parallel()
	br := browsertest.Open(t, "the annotation queue", 1024, 768)
	s, id := queueServer(t, Config{}, 3)
	require.NoError(t, br.Do(
		browsertest.Navigate(s.URL+"/queue?run="+id+"#%E0%A4%A"),
		browsertest.WaitVisible(`#item[data-id]`),
	))
	assert.Contains(t, br.Text(t, "#position"), "item 1 of 3")
}

// TestQueueIDsInBrowser: an item's id is shown on the page with its
// control and bidirectional formatting characters as their escapes, as
// termtext.Visible writes them: an id holding U+202E cannot reverse the
// line that names it, so that "saved ID: pass" reads "fail".
func TestQueueIDsInBrowser(t *testing.T) {
	t.Parallel()
	br := browsertest.Open(t, "the annotation queue", 1024, 768)
	ids := map[int]string{1: "a\u202eliaf", 2: "b\x1b[2J\u0085\u2066c"}
	dir := t.TempDir()
	cfg := Config{DataDir: dir, Store: filepath.Join(dir, "runs.db")}
	id := queueRunOf(t, dir, cfg.Store, 3, func(i int) string {
		if s, ok := ids[i]; ok {
			return s
		}
		return fmt.Sprintf("q%d", i)
	})
	s := start(t, cfg)
	tests := map[string]struct {
		item, shown, verdict string
	}{
		"a right-to-left override":               {item: ids[1], shown: `a\u202eliaf`, verdict: "p"},
		"an escape, a C1 control and an isolate": {item: ids[2], shown: `b\x1b[2J\u0085\u2066c`, verdict: "f"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			require.Equal(t, termtext.Visible(tc.item), tc.shown, "the page writes an id as termtext.Visible does")
			require.NoError(t, br.Do(
				browsertest.Navigate(s.URL+"/queue?run="+id+"&order=draw&n="+url.QueryEscape(name)+"#"+url.PathEscape(tc.item)),
				browsertest.WaitVisible(`#item[data-id]`),
			))
			got, err := browsertest.Evaluate[string](br, `document.getElementById("item").dataset.id`)
			require.NoError(t, err)
			require.Equal(t, tc.item, got, "the page is at the item")
			assert.Contains(t, br.Text(t, "#position"), "· "+tc.shown)
			require.NoError(t, br.Do(browsertest.Key(tc.verdict)))
			want := "saved " + tc.shown + ": " + map[string]string{"p": "pass", "f": "fail"}[tc.verdict]
			err = br.Do(browsertest.WaitTrue(`document.getElementById("status").textContent === ` + jsString(want)))
			require.NoError(t, err, "status %q, want %q", br.Text(t, "#status"), want)
		})
	}
}
