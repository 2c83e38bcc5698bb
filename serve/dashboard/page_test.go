package dashboard_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/assaylabs/assay/serve/dashboard"
)

func fixed(d dashboard.Data) dashboard.Source {
	return dashboard.SourceFunc(func(context.Context) (dashboard.Data, error) { return d, nil })
}

// reply is what a handler answered.
type reply struct {
	StatusCode int
	Header     http.Header
}

func get(t *testing.T, h http.Handler, method string) (reply, string) {
	t.Helper()
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequestWithContext(t.Context(), method, "/", nil))
	return reply{rec.Code, rec.Header()}, rec.Body.String()
}

func TestPage(t *testing.T) {
	t.Parallel()
	resp, body := get(t, dashboard.Handler(fixed(fixedData())), http.MethodGet)
	require.Equal(t, http.StatusOK, resp.StatusCode)
	assert.Equal(t, "text/html; charset=utf-8", resp.Header.Get("Content-Type"))
	assert.Contains(t, resp.Header.Get("Content-Security-Policy"), "default-src 'none'")
	// No other site may frame the page (default-src does not cover it).
	assert.Contains(t, resp.Header.Get("Content-Security-Policy"), "frame-ancestors 'none'")
	assert.Contains(t, body, `data-json="/v1/dashboard"`)
	assert.Contains(t, body, `data-refresh="10000"`)
	// The data rides in the page as JSON, and hostile text cannot end
	// its script element.
	assert.Contains(t, body, `"name":"faithfulness"`)
	assert.NotContains(t, body, hostile)
	assert.Equal(t, 2, strings.Count(body, "</script>"), "the data script and the page's own")
	// Nothing is loaded from elsewhere: the one URL is SVG's namespace.
	for _, ref := range []string{"http://", "https://", "<link", ` src="`, "@import", "url("} {
		assert.NotContains(t, strings.ReplaceAll(body, "http://www.w3.org/2000/svg", ""), ref)
	}
}

func TestJSON(t *testing.T) {
	t.Parallel()
	resp, body := get(t, dashboard.JSONHandler(fixed(fixedData())), http.MethodGet)
	require.Equal(t, http.StatusOK, resp.StatusCode)
	assert.Equal(t, "application/json", resp.Header.Get("Content-Type"))
	var got map[string]any
	require.NoError(t, json.Unmarshal([]byte(body), &got))
	metrics := got["metrics"].([]any)
	require.Len(t, metrics, 3)
	assert.InDelta(t, 0.362, metrics[0].(map[string]any)["mean"], 1e-12)
	assert.Nil(t, metrics[2].(map[string]any)["mean"], "no mean is null, not NaN")
	assert.Equal(t, true, metrics[2].(map[string]any)["stalled"])
}

func TestErrors(t *testing.T) {
	t.Parallel()
	broken := dashboard.SourceFunc(func(context.Context) (dashboard.Data, error) {
		return dashboard.Data{}, errors.New("store is locked")
	})
	for _, tc := range []struct {
		name   string
		h      http.Handler
		method string
		status int
		msg    string
	}{
		{"page, source fails", dashboard.Handler(broken), http.MethodGet, 500, "the dashboard could not be built: store is locked"},
		{"json, source fails", dashboard.JSONHandler(broken), http.MethodGet, 500, "the dashboard could not be built: store is locked"},
		{"page, POST", dashboard.Handler(fixed(fixedData())), http.MethodPost, 405, "POST is not allowed here: use GET"},
		{"json, DELETE", dashboard.JSONHandler(fixed(fixedData())), http.MethodDelete, 405, "DELETE is not allowed here: use GET"},
	} {
		resp, body := get(t, tc.h, tc.method)
		assert.Equal(t, tc.status, resp.StatusCode, tc.name)
		var e struct{ Error string }
		require.NoError(t, json.Unmarshal([]byte(body), &e), tc.name)
		assert.Equal(t, tc.msg, e.Error, tc.name)
	}
}
