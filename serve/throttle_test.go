package serve

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestWrongTokensAreThrottled: ten wrong tokens from one address, by
// header or login form alike, then one more every 6 s; past that, 429
// with Retry-After, the right token too (it is not looked at, so a
// guess learns nothing); a request with no token counts nothing, and
// /healthz is answered all along.
func TestWrongTokensAreThrottled(t *testing.T) {
	t.Parallel()
	clk := &clock{}
	clk.advance(time.Duration(time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC).UnixNano()))
	s := start(t, Config{Token: "sesame", Now: clk.Now})
	bearer := func(token string) answer {
		return send(t, http.MethodGet, s.URL+"/v1/traces/summary", "", "", nil, "Authorization", "Bearer "+token)
	}
	for range 20 {
		require.Equal(t, http.StatusUnauthorized, send(t, http.MethodGet, s.URL+"/v1/traces/summary", "", "", nil).code, "no token: nothing counted")
	}
	for i := range 5 {
		require.Equal(t, http.StatusUnauthorized, bearer(fmt.Sprint("guess-", i)).code)
		a, _ := login(t, s.URL, fmt.Sprint("form-guess-", i))
		require.Equal(t, http.StatusUnauthorized, a.code)
	}
	steps := []struct {
		name   string
		wait   time.Duration
		answer func() answer
		code   int
		after  string
	}{
		{name: "the 11th wrong token", answer: func() answer { return bearer("guess-10") }, code: http.StatusTooManyRequests, after: "6"},
		{name: "the right token, not looked at", answer: func() answer { return bearer("sesame") }, code: http.StatusTooManyRequests, after: "6"},
		{name: "the login form too", answer: func() answer { a, _ := login(t, s.URL, "sesame"); return a }, code: http.StatusTooManyRequests, after: "6"},
		{name: "health", answer: func() answer { return send(t, http.MethodGet, s.URL+"/healthz", "", "", nil) }, code: http.StatusOK},
		{name: "3 s on", wait: 3 * time.Second, answer: func() answer { return bearer("sesame") }, code: http.StatusTooManyRequests, after: "3"},
		{name: "6 s on, the right token", wait: 3 * time.Second, answer: func() answer { return bearer("sesame") }, code: http.StatusOK},
		{name: "one more guess", answer: func() answer { return bearer("guess-11") }, code: http.StatusUnauthorized},
		{name: "and no more", answer: func() answer { return bearer("guess-12") }, code: http.StatusTooManyRequests, after: "6"},
		{name: "a minute on", wait: time.Minute, answer: func() answer { a, _ := login(t, s.URL, "sesame"); return a }, code: http.StatusSeeOther},
	}
	for _, st := range steps {
		clk.advance(st.wait)
		a := st.answer()
		require.Equal(t, st.code, a.code, "%s: %s", st.name, a.body)
		assert.Equal(t, st.after, a.header.Get("Retry-After"), st.name)
		if st.code == http.StatusTooManyRequests {
			assert.Contains(t, a.body, "too many wrong tokens from your address: try again in "+st.after+" s", st.name)
		}
	}
	code, m := call(t, http.MethodGet, s.URL+"/metrics", "", "Authorization", "Bearer sesame")
	require.Equal(t, http.StatusOK, code)
	assert.Contains(t, m, `assay_http_requests_total{code="429",endpoint="throttled"} 4`)
	assert.Contains(t, m, `assay_http_requests_total{code="429",endpoint="POST /login"} 1`)
}

// TestTheThrottleIsPerClientAndBounded: one client's failures do not
// throttle another; the addresses of one IPv6 /64 are one client; past
// maxClients the full buckets are dropped first, then newcomers share
// one.
func TestTheThrottleIsPerClientAndBounded(t *testing.T) {
	t.Parallel()
	clk := &clock{}
	th := newThrottle(clk.Now)
	for range signInBurst {
		require.Zero(t, th.wait("a"))
		th.failed("a")
	}
	assert.Equal(t, signInEvery, th.wait("a"))
	assert.Zero(t, th.wait("b"), "another client")

	clients := map[string]string{
		"192.0.2.1:5000":             "192.0.2.1",
		"[2001:db8:1:2:3::4]:5000":   "2001:db8:1:2::/64",
		"[2001:db8:1:2:ffff::]:6000": "2001:db8:1:2::/64",
		"[::1]:80":                   "::/64",
	}
	for remote, want := range clients {
		r := httptest.NewRequestWithContext(t.Context(), http.MethodPost, "/login", nil)
		r.RemoteAddr = remote
		assert.Equal(t, want, clientOf(r), remote)
	}

	for i := range maxClients - 2 {
		th.failed(fmt.Sprint("c", i)) // one failure each: not full
	}
	require.Len(t, th.clients, maxClients)
	th.failed("newcomer")
	assert.Len(t, th.clients, maxClients, "b, full again, was dropped for it")
	assert.Contains(t, th.clients, "newcomer")
	for range signInBurst {
		th.failed("crowd-1")
	}
	assert.NotContains(t, th.clients, "crowd-1", "no full bucket left: the overflow")
	assert.Positive(t, th.wait("crowd-2"), "newcomers share the overflow")
	clk.advance(signInEvery)
	assert.Zero(t, th.wait("crowd-2"))
}

// TestTheTokenIsComparedByDigest: the header and the form's field are
// compared as SHA-256 digests (a fixed length, so the time says nothing
// of the token's length), exactly; the header's scheme in any case.
func TestTheTokenIsComparedByDigest(t *testing.T) {
	t.Parallel()
	ss, err := newSessions("sesame", time.Now)
	require.NoError(t, err)
	for given, want := range map[string]bool{
		"Bearer sesame": true, "bearer sesame": true, "BEARER sesame": true, "Bearer  sesame": true,
		"Bearer sesam": false, "Bearer sesame ": false, "Bearersesame": false, "Basic sesame": false, "sesame": false, " Bearer sesame": false,
		"Bearer": false, "Bearer ": false, "": false, "Bearer " + string(make([]byte, 4096)): false,
	} {
		assert.Equal(t, want, ss.bearerIs(given), "%q", given)
	}
	for given, want := range map[string]bool{"sesame": true, "sesam": false, "sesamesesame": false, "": false} {
		assert.Equal(t, want, ss.tokenIs(given), "%q", given)
	}
}
