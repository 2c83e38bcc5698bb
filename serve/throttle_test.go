package serve

import (
	"fmt"
	"net/http"
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
