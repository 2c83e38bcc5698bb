package serve

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/assaylabs/assay/internal/browsertest"
)

// sessionCookie is the name of the dashboard's session cookie.
const sessionCookie = "assay_session"

// clock is a settable clock.
type clock struct{ t atomic.Int64 }

func (c *clock) Now() time.Time          { return time.Unix(0, c.t.Load()).UTC() }
func (c *clock) advance(d time.Duration) { c.t.Add(int64(d)) }

// answer is what a request got: its status, headers and body.
type answer struct {
	code   int
	header http.Header
	body   string
}

// send sends a request with the headers given (name, value...) and the
// cookie, if any, without following a redirect.
func send(t *testing.T, method, url, contentType, body string, cookie *http.Cookie, header ...string) answer {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), method, url, strings.NewReader(body))
	require.NoError(t, err)
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	if cookie != nil {
		req.AddCookie(cookie)
	}
	c := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := c.Do(req)
	require.NoError(t, err)
	defer func() { _ = resp.Body.Close() }()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return answer{code: resp.StatusCode, header: resp.Header, body: string(b)}
}

const form = "application/x-www-form-urlencoded"

// login posts token to /login and returns the answer and the session
// cookie it set (nil for none).
func login(t *testing.T, base, token string) (answer, *http.Cookie) {
	t.Helper()
	a := send(t, http.MethodPost, base+"/login", form, url.Values{"token": {token}}.Encode(), nil)
	for _, c := range (&http.Response{Header: a.header}).Cookies() {
		if c.Name == sessionCookie {
			return a, c
		}
	}
	return a, nil
}

func TestTheDashboardTakesALoginCookieAndNothingElseDoes(t *testing.T) {
	t.Parallel()
	const token = "sesame-4b1f9c"
	var now clock
	now.advance(time.Date(2026, 11, 27, 9, 0, 0, 0, time.UTC).Sub(time.Unix(0, 0)))
	s := start(t, Config{Addr: "0.0.0.0:0", Token: token, Now: now.Now})

	// Signed in: a 303 to the dashboard, and the cookie as asked.
	in, cookie := login(t, s.URL, token)
	require.Equal(t, http.StatusSeeOther, in.code, in.body)
	assert.Equal(t, "/", in.header.Get("Location"))
	assert.Equal(t, "no-store", in.header.Get("Cache-Control"))
	require.NotNil(t, cookie, "a session cookie is set")
	raw := in.header.Get("Set-Cookie")
	for _, attr := range []string{"HttpOnly", "SameSite=Strict", "Path=/", "Max-Age=43200"} {
		assert.Contains(t, raw, attr)
	}
	assert.NotContains(t, raw, "Secure", "not over plain HTTP")
	assert.NotContains(t, cookie.Value, token, "the cookie never holds the token")
	exp, _, ok := strings.Cut(cookie.Value, ".")
	require.True(t, ok, cookie.Value)
	assert.Equal(t, strconv.FormatInt(now.Now().Add(SessionLifetime).Unix(), 10), exp)

	forge := func(value string) *http.Cookie { return &http.Cookie{Name: sessionCookie, Value: value} }
	otherServer := func() *http.Cookie {
		// The same token on another server (or after a restart): its key differs.
		o := start(t, Config{Addr: "0.0.0.0:0", Token: token, Now: now.Now})
		_, c := login(t, o.URL, token)
		require.NotNil(t, c)
		return c
	}()
	bearer := []string{"Authorization", "Bearer " + token}
	tests := map[string]struct {
		method, path string
		cookie       *http.Cookie
		header       []string
		body         string
		code         int
		// html: the login form rather than a JSON error.
		html bool
	}{
		"the page, nothing":                 {method: http.MethodGet, path: "/", code: 401, html: true},
		"the data, nothing":                 {method: http.MethodGet, path: "/v1/dashboard", code: 401},
		"the page, the bearer token":        {method: http.MethodGet, path: "/", header: bearer, code: 200},
		"the data, the bearer token":        {method: http.MethodGet, path: "/v1/dashboard", header: bearer, code: 200},
		"the page, the cookie":              {method: http.MethodGet, path: "/", cookie: cookie, code: 200},
		"the data, the cookie":              {method: http.MethodGet, path: "/v1/dashboard", cookie: cookie, code: 200},
		"the page, a wrong bearer token":    {method: http.MethodGet, path: "/", header: []string{"Authorization", "Bearer sesame"}, code: 401, html: true},
		"a cookie holding the token":        {method: http.MethodGet, path: "/", cookie: forge(token), code: 401, html: true},
		"a cookie of junk":                  {method: http.MethodGet, path: "/v1/dashboard", cookie: forge("x.y"), code: 401},
		"a later expiry, the same mac":      {method: http.MethodGet, path: "/", cookie: forge("99999999999." + strings.SplitN(cookie.Value, ".", 2)[1]), code: 401, html: true},
		"another server's cookie":           {method: http.MethodGet, path: "/", cookie: otherServer, code: 401, html: true},
		"POST /v1/judge with the cookie":    {method: http.MethodPost, path: "/v1/judge", cookie: cookie, body: mustJSON(t, exampleJudge), code: 401},
		"POST /v1/traces with the cookie":   {method: http.MethodPost, path: "/v1/traces", cookie: cookie, body: mustJSON(t, exampleTraces), code: 401},
		"GET /v1/traces/summary, cookie":    {method: http.MethodGet, path: "/v1/traces/summary", cookie: cookie, code: 401},
		"GET /metrics with the cookie":      {method: http.MethodGet, path: "/metrics", cookie: cookie, code: 401},
		"POST /v1/judge, the bearer token":  {method: http.MethodPost, path: "/v1/judge", header: bearer, body: `{"sample": {}, "metrics": ["nope"]}`, code: 400},
		"/healthz needs neither":            {method: http.MethodGet, path: "/healthz", code: 200},
		"the login, a wrong token (401)":    {method: http.MethodPost, path: "/login", body: "token=sesame", code: 401, html: true},
		"the login, the token in the URL":   {method: http.MethodPost, path: "/login?token=" + token, code: 401, html: true},
		"the login, the token as a bearer?": {method: http.MethodPost, path: "/login", header: bearer, code: 401, html: true},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			ct := ""
			if tc.path == "/login" || strings.HasPrefix(tc.path, "/login?") {
				ct = form
			}
			got := send(t, tc.method, s.URL+tc.path, ct, tc.body, tc.cookie, tc.header...)
			require.Equal(t, tc.code, got.code, got.body)
			switch {
			case tc.html:
				assert.Contains(t, got.header.Get("Content-Type"), "text/html")
				assert.Contains(t, got.body, `<form method="post" action="/login">`)
				assert.Contains(t, got.header.Get("Content-Security-Policy"), "frame-ancestors 'none'", "no other site frames the sign-in")
				assert.NotContains(t, got.header.Get("Set-Cookie"), sessionCookie, "no session for a refused login")
			case tc.code == 401:
				var e ErrorBody
				require.NoError(t, json.Unmarshal([]byte(got.body), &e), got.body)
				assert.Contains(t, e.Error, "bearer token")
			case tc.path == "/":
				assert.Contains(t, got.body, "<title>Assay · live quality</title>")
			}
			if tc.code == 401 {
				assert.Equal(t, `Bearer realm="assay"`, got.header.Get("WWW-Authenticate"))
			}
		})
	}

	// A session lasts SessionLifetime.
	now.advance(SessionLifetime - time.Second)
	assert.Equal(t, http.StatusOK, send(t, http.MethodGet, s.URL+"/", "", "", cookie).code)
	now.advance(time.Second)
	assert.Equal(t, http.StatusUnauthorized, send(t, http.MethodGet, s.URL+"/", "", "", cookie).code, "expired")
}

func TestTheLoginCookieIsSecureOverTLS(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	s, err := New(Config{Addr: "0.0.0.0:0", Token: "sesame-tls", DataDir: dir, Store: filepath.Join(dir, "runs.db")})
	require.NoError(t, err)
	require.NoError(t, s.Start(t.Context()))
	ts := httptest.NewTLSServer(s.Handler())
	t.Cleanup(func() {
		ts.Close()
		_ = s.Close()
	})
	c := ts.Client()
	c.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, ts.URL+"/login", strings.NewReader("token=sesame-tls"))
	require.NoError(t, err)
	req.Header.Set("Content-Type", form)
	resp, err := c.Do(req)
	require.NoError(t, err)
	require.NoError(t, resp.Body.Close())
	require.Equal(t, http.StatusSeeOther, resp.StatusCode)
	var session *http.Cookie
	for _, ck := range resp.Cookies() {
		if ck.Name == sessionCookie {
			session = ck
		}
	}
	require.NotNil(t, session)
	assert.True(t, session.Secure)
	assert.True(t, session.HttpOnly)
	assert.Equal(t, http.SameSiteStrictMode, session.SameSite)
}

func TestTheLoginIsDocumentedWithAToken(t *testing.T) {
	t.Parallel()
	with := start(t, Config{Token: "sesame"})
	without := start(t, Config{})
	docOf := func(s *testServer) map[string]map[string]any {
		doc, err := s.Document()
		require.NoError(t, err)
		b, err := json.Marshal(doc["paths"])
		require.NoError(t, err)
		var paths map[string]map[string]any
		require.NoError(t, json.Unmarshal(b, &paths))
		return paths
	}
	login, ok := docOf(with)["/login"]["post"].(map[string]any)
	require.True(t, ok, "POST /login is documented when a token is set")
	assert.Equal(t, []any{}, login["security"], "the login needs no token")
	assert.Contains(t, login["responses"], "303")
	assert.Contains(t, login["responses"], "401")
	assert.NotContains(t, docOf(without), "/login", "no token, no login")
	assert.Equal(t, http.StatusNotFound, send(t, http.MethodPost, without.URL+"/login", form, "token=x", nil).code)
}

func TestABrowserSignsInToTheDashboard(t *testing.T) {
	t.Parallel()
	const token = "sesame-browser"
	s := start(t, Config{Addr: "0.0.0.0:0", Token: token})
	br := browsertest.Open(t, "the dashboard's sign-in", 1280, 900)
	require.NoError(t, br.Do(
		browsertest.Navigate(s.URL+"/"),
		browsertest.WaitVisible(`#token`),
		browsertest.SendKeys(`#token`, token),
		browsertest.Submit(`#token`),
		browsertest.WaitVisible(`#status`),
	))
	eval := func(js string) string {
		t.Helper()
		v, err := browsertest.EvaluateAwait[string](br, js)
		require.NoError(t, err, js)
		return v
	}
	assert.Equal(t, "Assay · live quality", eval(`document.title`))
	assert.Equal(t, s.URL+"/", eval(`location.href`), "at the dashboard, nothing in the URL")
	// The page's refresh reads /v1/dashboard with the cookie alone.
	assert.Regexp(t, `^refreshed `, eval(`window.assayRefresh().then(() => document.getElementById("status").textContent)`))
	assert.Empty(t, eval(`document.cookie`), "the session cookie is HttpOnly: no script reads it")
	// The cookie opens nothing else: a script on the page cannot post.
	assert.Equal(t, "401", eval(`fetch("/v1/context-score", {method: "POST", body: "{}"}).then(r => String(r.status))`))
}
