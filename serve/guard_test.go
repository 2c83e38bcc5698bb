package serve

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// browserCall sends a request as a browser would: with the Host given
// (the name in its address bar) and headers (name, value...).
func browserCall(t *testing.T, method, url, host, body string, header ...string) (int, string) {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), method, url, strings.NewReader(body))
	require.NoError(t, err)
	if host != "" {
		req.Host = host
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer func() { _ = resp.Body.Close() }()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp.StatusCode, string(b)
}

// TestABrowserPageCannotUseTheServer: a loopback server without a token
// answers only its own names (a page on another name that DNS rebinds to
// 127.0.0.1 is refused, so it cannot read the answers) and refuses writes
// a browser sends from another origin (a text/plain post, a form); a
// program, which sends no such header, and the server's own pages are
// served.
func TestABrowserPageCannotUseTheServer(t *testing.T) {
	t.Parallel()
	s := start(t, Config{})
	allowed := start(t, Config{AllowHosts: []string{"Assay.Internal"}})
	open := start(t, Config{Addr: "0.0.0.0:0", Token: "sesame"})
	body := `{"query": "What is QUIC?", "chunks": []}`
	tests := map[string]struct {
		url, method, host string
		header            []string
		code              int
		msg               string
	}{
		"a program":                   {url: s.URL, method: http.MethodPost, code: http.StatusOK},
		"localhost with a port":       {url: s.URL, method: http.MethodPost, host: "localhost:9999", code: http.StatusOK},
		"[::1]":                       {url: s.URL, method: http.MethodPost, host: "[::1]:8080", code: http.StatusOK},
		"LOCALHOST.":                  {url: s.URL, method: http.MethodPost, host: "LOCALHOST.", code: http.StatusOK},
		"a rebound name":              {url: s.URL, method: http.MethodPost, host: "attacker.example:8080", code: http.StatusForbidden, msg: `Host "attacker.example:8080" is not a name of this server`},
		"a rebound name reading":      {url: s.URL, method: http.MethodGet, host: "attacker.example", code: http.StatusForbidden, msg: "--allow-host"},
		"a rebound name, health":      {url: s.URL + "/healthz", method: http.MethodGet, host: "127.0.0.1.nip.io", code: http.StatusForbidden, msg: "--allow-host"},
		"an allowed name":             {url: allowed.URL, method: http.MethodPost, host: "assay.internal:8080", code: http.StatusOK},
		"loopback with allowed names": {url: allowed.URL, method: http.MethodPost, host: "127.0.0.1:1", code: http.StatusOK},
		"another name there":          {url: allowed.URL, method: http.MethodPost, host: "other.internal", code: http.StatusForbidden, msg: "is not a name"},
		"a cross-site text/plain post": {url: s.URL, method: http.MethodPost,
			header: []string{"Sec-Fetch-Site", "cross-site", "Content-Type", "text/plain", "Origin", "https://page.example"},
			code:   http.StatusForbidden, msg: "cross-origin request refused: a page of https://page.example may not POST"},
		"a same-site page (another port)": {url: s.URL, method: http.MethodPost, header: []string{"Sec-Fetch-Site", "same-site"},
			code: http.StatusForbidden, msg: "cross-origin request refused"},
		"an old browser's Origin": {url: s.URL, method: http.MethodPost, header: []string{"Origin", "http://page.example"},
			code: http.StatusForbidden, msg: "cross-origin request refused"},
		"the server's own page":    {url: s.URL, method: http.MethodPost, header: []string{"Sec-Fetch-Site", "same-origin"}, code: http.StatusOK},
		"typed in the address bar": {url: s.URL, method: http.MethodGet, header: []string{"Sec-Fetch-Site", "none"}, code: http.StatusOK},
		"any name off loopback, with the token": {url: open.URL, method: http.MethodPost, host: "assay.example.com",
			header: []string{"Authorization", "Bearer sesame"}, code: http.StatusOK},
		"a cross-site post there too": {url: open.URL, method: http.MethodPost,
			header: []string{"Authorization", "Bearer sesame", "Sec-Fetch-Site", "cross-site"}, code: http.StatusForbidden, msg: "cross-origin"},
	}
	t.Run("requests", func(t *testing.T) { // the subtests end before the count below
		for name, tc := range tests {
			t.Run(name, func(t *testing.T) {
				t.Parallel()
				url := tc.url
				if !strings.Contains(strings.TrimPrefix(url, "http://"), "/") {
					url += map[string]string{http.MethodPost: "/v1/context-score", http.MethodGet: "/v1/traces/summary"}[tc.method]
				}
				code, got := browserCall(t, tc.method, url, tc.host, body, tc.header...)
				require.Equal(t, tc.code, code, got)
				if tc.msg != "" {
					var eb ErrorBody
					require.NoError(t, json.Unmarshal([]byte(got), &eb), got)
					assert.Contains(t, eb.Error, tc.msg)
				}
			})
		}
	})
	n, _ := sample(scrape(t, s.URL), "assay_http_requests_total", "endpoint", "forbidden", "code", "403")
	assert.InDelta(t, 6, n, 0, "refusals counted")
}

func TestAllowHostIsChecked(t *testing.T) {
	t.Parallel()
	for _, h := range []string{"http://assay.internal/", "", "a b", "user@host"} {
		_, err := New(Config{AllowHosts: []string{h}, DataDir: t.TempDir(), Store: filepath.Join(t.TempDir(), "runs.db")})
		require.Error(t, err, h)
		assert.Contains(t, err.Error(), "--allow-host", h)
	}
}

// TestEveryRequestIsCounted: assay_http_requests_total adds up to the
// requests answered, those no route serves and those the guards refuse
// too, each under a fixed endpoint label, never the client's path.
func TestEveryRequestIsCounted(t *testing.T) {
	t.Parallel()
	clk := &clock{}
	clk.advance(time.Duration(time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC).UnixNano()))
	s := start(t, Config{Token: "sesame", Now: clk.Now})
	bearer := []string{"Authorization", "Bearer sesame"}
	type req struct {
		method, path, host string
		header             []string
	}
	tests := map[string]struct {
		req      req
		times    int
		code     int
		endpoint string
	}{
		"a route":            {req: req{http.MethodGet, "/v1/traces/summary", "", bearer}, times: 2, code: http.StatusOK, endpoint: routeSummary},
		"no route":           {req: req{http.MethodGet, "/no/such/path", "", bearer}, times: 3, code: http.StatusNotFound, endpoint: endpointUnmatched},
		"a path with CR LF":  {req: req{http.MethodGet, "/v1/nothing-%0d%0aX:1", "", bearer}, times: 1, code: http.StatusNotFound, endpoint: endpointUnmatched},
		"a method not taken": {req: req{http.MethodDelete, "/v1/traces/summary", "", bearer}, times: 2, code: http.StatusMethodNotAllowed, endpoint: endpointUnmatched},
		"no token":           {req: req{http.MethodGet, "/no/such/path", "", nil}, times: 2, code: http.StatusUnauthorized, endpoint: "unauthorized"},
		"another Host":       {req: req{http.MethodGet, "/v1/traces/summary", "attacker.example", bearer}, times: 2, code: http.StatusForbidden, endpoint: "forbidden"},
		"cross-origin":       {req: req{http.MethodPost, "/v1/context-score", "", append([]string{"Sec-Fetch-Site", "cross-site"}, bearer...)}, times: 1, code: http.StatusForbidden, endpoint: "forbidden"},
	}
	sent := 0
	for name, tc := range tests {
		for range tc.times {
			code, body := browserCall(t, tc.req.method, s.URL+tc.req.path, tc.req.host, "", tc.req.header...)
			require.Equal(t, tc.code, code, "%s: %s", name, body)
			sent++
		}
	}
	// Ten wrong tokens (401), then the throttle (429).
	for i := range 12 {
		code, _ := browserCall(t, http.MethodGet, s.URL+"/v1/traces/summary", "", "", "Authorization", fmt.Sprint("Bearer guess-", i))
		require.Equal(t, map[bool]int{true: http.StatusUnauthorized, false: http.StatusTooManyRequests}[i < 10], code, i)
		sent++
	}
	clk.advance(time.Minute) // past the throttle, for the scrape
	code, m := browserCall(t, http.MethodGet, s.URL+"/metrics", "", "", bearer...)
	require.Equal(t, http.StatusOK, code)
	parser := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := parser.TextToMetricFamilies(strings.NewReader(m))
	require.NoError(t, err)
	want := map[[2]string]float64{{"unauthorized", "401"}: 10, {"throttled", "429"}: 2}
	for _, tc := range tests {
		want[[2]string{tc.endpoint, fmt.Sprint(tc.code)}] += float64(tc.times)
	}
	got := map[[2]string]float64{}
	total := 0.0
	for _, mm := range fams["assay_http_requests_total"].GetMetric() {
		l := map[string]string{}
		for _, p := range mm.GetLabel() {
			l[p.GetName()] = p.GetValue()
		}
		got[[2]string{l["endpoint"], l["code"]}] = mm.GetCounter().GetValue()
		total += mm.GetCounter().GetValue()
	}
	assert.Equal(t, want, got)
	assert.InDelta(t, float64(sent), total, 0, "the requests answered before the scrape")
}

// TestEveryReplyForbidsSniffing: every answer, of a route, of no route
// or of a guard, JSON, HTML or text, says X-Content-Type-Options:
// nosniff, so that no browser reads a JSON answer holding a sample's
// text as a page or a script, and X-Frame-Options: DENY, so that no
// other site shows the dashboard, the queue or the sign-in in a frame
// and has a person click or type there unawares.
func TestEveryReplyForbidsSniffing(t *testing.T) {
	t.Parallel()
	s := start(t, Config{})
	locked := start(t, Config{Token: "sesame"})
	tests := map[string]struct {
		method, url, host, body string
		header                  []string
		code                    int
	}{
		"context score":     {method: http.MethodPost, url: s.URL + "/v1/context-score", body: `{"query": "q", "chunks": []}`, code: http.StatusOK},
		"a bad request":     {method: http.MethodPost, url: s.URL + "/v1/context-score", body: `{`, code: http.StatusBadRequest},
		"health":            {method: http.MethodGet, url: s.URL + "/healthz", code: http.StatusOK},
		"metrics":           {method: http.MethodGet, url: s.URL + "/metrics", code: http.StatusOK},
		"openapi":           {method: http.MethodGet, url: s.URL + "/openapi.json", code: http.StatusOK},
		"the dashboard":     {method: http.MethodGet, url: s.URL + "/", code: http.StatusOK},
		"the queue page":    {method: http.MethodGet, url: s.URL + "/queue?run=none", code: http.StatusNotFound},
		"the queue export":  {method: http.MethodGet, url: s.URL + "/v1/queue/export", code: http.StatusNotFound},
		"a trace not found": {method: http.MethodGet, url: s.URL + "/v1/traces/nope", code: http.StatusNotFound},
		"no route":          {method: http.MethodGet, url: s.URL + "/nowhere", code: http.StatusNotFound},
		"another Host":      {method: http.MethodGet, url: s.URL + "/healthz", host: "attacker.example", code: http.StatusForbidden},
		"no token":          {method: http.MethodGet, url: locked.URL + "/v1/alerts", code: http.StatusUnauthorized},
		"the login form":    {method: http.MethodGet, url: locked.URL + "/", code: http.StatusUnauthorized},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			req, err := http.NewRequestWithContext(t.Context(), tc.method, tc.url, strings.NewReader(tc.body))
			require.NoError(t, err)
			if tc.host != "" {
				req.Host = tc.host
			}
			resp, err := http.DefaultClient.Do(req)
			require.NoError(t, err)
			_ = resp.Body.Close()
			require.Equal(t, tc.code, resp.StatusCode)
			assert.Equal(t, "nosniff", resp.Header.Get("X-Content-Type-Options"))
			assert.Equal(t, "DENY", resp.Header.Get("X-Frame-Options"))
		})
	}
}

// TestAQueryThatDoesNotParseIsA400: a query that net/url cannot read
// whole (more than its 10,000 parameters, a bad escape, a semicolon) is
// a 400 naming the query; it used to be dropped whole, so that
// /v1/queue/export?run=ID&... answered another queue than the one named.
func TestAQueryThatDoesNotParseIsA400(t *testing.T) {
	t.Parallel()
	s := start(t, Config{})
	tests := map[string]struct {
		query string
		code  int
		msg   string
	}{
		"a few parameters":       {query: "by=tenant&metric=faithfulness", code: http.StatusOK},
		"10,000 parameters":      {query: "by=tenant" + manyParameters(9999), code: http.StatusOK},
		"10,001 parameters":      {query: "by=%25" + strings.Repeat("&a=1", 10000), code: http.StatusBadRequest, msg: "number of URL query parameters exceeded limit"},
		"a bad escape":           {query: "by=tenant&metric=%zz", code: http.StatusBadRequest, msg: `invalid URL escape "%zz"`},
		"a semicolon separator":  {query: "by=%25;metric=x", code: http.StatusBadRequest, msg: "semicolon"},
		"the bad field, checked": {query: "by=%25", code: http.StatusBadRequest, msg: "by: want a metadata field name"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			code, body := call(t, http.MethodGet, s.URL+"/v1/traces/summary?"+tc.query, "")
			require.Equal(t, tc.code, code, body)
			if tc.msg == "" {
				return
			}
			var eb ErrorBody
			require.NoError(t, json.Unmarshal([]byte(body), &eb), body)
			assert.Contains(t, eb.Error, tc.msg)
			if !strings.HasPrefix(tc.msg, "by:") {
				assert.Equal(t, "query", eb.Field)
			}
		})
	}
}

// manyParameters is n parameters of distinct names, each after an &.
func manyParameters(n int) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "&a%d=1", i)
	}
	return b.String()
}
