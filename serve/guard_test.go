package serve

import (
	"encoding/json"
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"testing"

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
