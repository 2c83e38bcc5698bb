package browsertest_test

import (
	"bytes"
	"html"
	"net/http"
	"net/http/httptest"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/assaylabs/assay/internal/browsertest"
)

const page = `<!doctype html><html><head><title>steps</title></head><body>
<h1>Hello</h1>
<form action="/sent"><input id="in" name="in"></form>
<button id="go" type="button" onclick="document.getElementById('out').textContent = 'clicked'">go</button>
<p id="out"></p>
<script>document.addEventListener("keydown", e => { if (e.target === document.body) setTimeout(() => { document.getElementById("out").textContent = "key " + e.key; }, 50); });</script>
</body></html>`

// TestStepsReachThePage runs each kind of step through the browse
// program against a page on the loopback, and reads back what it did.
func TestStepsReachThePage(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		if r.URL.Path == "/sent" {
			_, _ = w.Write([]byte(`<p id="sent">` + html.EscapeString(r.URL.Query().Get("in")) + `</p>`))
			return
		}
		_, _ = w.Write([]byte(page))
	}))
	t.Cleanup(srv.Close)
	br := browsertest.Open(t, "the browser driver", 800, 600)
	require.NoError(t, br.Do(browsertest.Navigate(srv.URL+"/"), browsertest.WaitVisible(`h1`)))

	t.Run("text", func(t *testing.T) {
		assert.Equal(t, "Hello", br.Text(t, "h1"))
		assert.Equal(t, "<missing>", br.Text(t, "#nothing"))
	})
	t.Run("click, type and submit", func(t *testing.T) {
		require.NoError(t, br.Do(browsertest.Click(`#go`)))
		assert.Equal(t, "clicked", br.Text(t, "#out"))
		require.NoError(t, br.Do(browsertest.SendKeys(`#in`, "typed <b>"), browsertest.Submit(`#in`), browsertest.WaitVisible(`#sent`)))
		assert.Equal(t, "typed <b>", br.Text(t, "#sent"))
		require.NoError(t, br.Do(browsertest.Navigate(srv.URL+"/"), browsertest.WaitVisible(`h1`)))
	})
	t.Run("keys, and a wait until a script is true", func(t *testing.T) {
		for key, want := range map[string]string{"p": "key p", browsertest.Escape: "key Escape"} {
			_, err := browsertest.Evaluate[any](br, `document.activeElement.blur()`)
			require.NoError(t, err)
			require.NoError(t, br.Do(browsertest.Key(key), browsertest.WaitTrue(`document.getElementById("out").textContent === `+strconv.Quote(want))))
			assert.Equal(t, want, br.Text(t, "#out"))
		}
	})
	t.Run("evaluate", func(t *testing.T) {
		n, err := browsertest.Evaluate[int](br, `1 + 2`)
		require.NoError(t, err)
		assert.Equal(t, 3, n)
		ss, err := browsertest.Evaluate[[]string](br, `["a", "b"]`)
		require.NoError(t, err)
		assert.Equal(t, []string{"a", "b"}, ss)
		s, err := browsertest.EvaluateAwait[string](br, `Promise.resolve(document.title)`)
		require.NoError(t, err)
		assert.Equal(t, "steps", s)
		p, err := browsertest.Evaluate[*int](br, `null`)
		require.NoError(t, err, "a pointer can be nil")
		assert.Nil(t, p)
	})
	t.Run("screenshots", func(t *testing.T) {
		for _, sel := range []string{"", "h1"} {
			png, err := br.Screenshot(sel)
			require.NoError(t, err, sel)
			assert.True(t, bytes.HasPrefix(png, []byte("\x89PNG\r\n\x1a\n")), "a PNG of %q", sel)
		}
	})
	t.Run("what fails says why", func(t *testing.T) {
		tests := map[string]struct {
			run  func() error
			want string
		}{
			"undefined into an int": {func() error { _, err := browsertest.Evaluate[int](br, `window.nothing`); return err }, "undefined"},
			"null into a string":    {func() error { _, err := browsertest.Evaluate[string](br, `null`); return err }, "null"},
			"a thrown error":        {func() error { _, err := browsertest.Evaluate[int](br, `throw new Error("boom")`); return err }, "boom"},
			"a wrong type":          {func() error { _, err := browsertest.Evaluate[int](br, `"text"`); return err }, "cannot unmarshal"},
		}
		for name, tc := range tests {
			t.Run(name, func(t *testing.T) {
				err := tc.run()
				require.Error(t, err)
				assert.Contains(t, err.Error(), tc.want)
			})
		}
	}) // Last: it leaves the page. The click after the failed step is not
	// run (it would wait for a #go that never comes).
	t.Run("a page that does not answer", func(t *testing.T) {
		err := br.Do(browsertest.Navigate("http://127.0.0.1:1/"), browsertest.Click(`#go`))
		require.Error(t, err)
		assert.Contains(t, err.Error(), "navigate http://127.0.0.1:1/")
	})
}
