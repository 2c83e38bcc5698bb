package serve

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestErrorAnswersBoundWhatTheyEcho: an error answer that quotes what
// the client sent (an id, a name, a query value) quotes its first 64
// characters, escaped, then an ellipsis and its length: never the
// megabyte it was sent.
func TestErrorAnswersBoundWhatTheyEcho(t *testing.T) {
	t.Parallel()
	s := start(t, Config{})
	// A judged trace, so that the traces' queue has items.
	code, body := call(t, http.MethodPost, s.URL+"/v1/traces",
		`{"traces":[{"trace_id":"t1","sample":{"question":"Where is Paris?","answer":"In France.","contexts":["Paris is in France."]}}]}`,
		"Content-Type", "application/json")
	require.Equal(t, http.StatusAccepted, code, body)
	eventually(t, "the trace judged", func() bool {
		got, err := s.Trace(t.Context(), "t1")
		return err == nil && got.Judged
	})
	long := strings.Repeat("y", 50000) + "\u202e"
	cut := `\"` + strings.Repeat("y", 64) + `\"… (50003 bytes)`
	tests := map[string]struct {
		method, path, body string
		status             int
	}{
		"a run's id":                    {http.MethodGet, "/v1/runs/" + url.PathEscape(long), "", http.StatusNotFound},
		"a label's item":                {http.MethodPost, "/v1/queue/labels", `{"metric":"faithfulness","item":"` + long + `","value":true}`, http.StatusNotFound},
		"a label's name":                {http.MethodGet, "/v1/queue?label=" + url.QueryEscape(long), "", http.StatusBadRequest},
		"a summary's by":                {http.MethodGet, "/v1/traces/summary?by=" + url.QueryEscape(long), "", http.StatusBadRequest},
		"a summary's day":               {http.MethodGet, "/v1/traces/summary?from=" + url.QueryEscape(long), "", http.StatusBadRequest},
		"an unknown field":              {http.MethodPost, "/v1/traces", `{"` + long + `":1}`, http.StatusBadRequest},
		"an alerts limit":               {http.MethodGet, "/v1/alerts?limit=" + url.QueryEscape(long), "", http.StatusBadRequest},
		"a queue limit":                 {http.MethodGet, "/v1/queue?limit=" + url.QueryEscape(long), "", http.StatusBadRequest},
		"a query parameter given twice": {http.MethodGet, "/v1/alerts?" + url.QueryEscape(long) + "=1&" + url.QueryEscape(long) + "=2", "", http.StatusBadRequest},
		"an OTLP media type":            {http.MethodPost, "/otlp/v1/traces", "{}", http.StatusUnsupportedMediaType},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			ct := "application/json"
			if tc.path == "/otlp/v1/traces" {
				ct = "text/" + strings.Repeat("y", 5000)
			}
			code, body := call(t, tc.method, s.URL+tc.path, tc.body, "Content-Type", ct)
			head := body[:min(len(body), 200)]
			require.Equal(t, tc.status, code, head)
			assert.Less(t, len(body), 1000, head)
			if tc.path != "/otlp/v1/traces" {
				assert.True(t, strings.Contains(body, cut), head)
			}
		})
	}
}
