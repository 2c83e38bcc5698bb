package serve

import (
	"encoding/json"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestARepeatedQueryParameterIsA400: no parameter of the API takes
// several values, so one given twice is a 400 naming it, on every route
// that reads a query; it used to be read as its first value without a
// word (limit=1&limit=1000 answered one event).
func TestARepeatedQueryParameterIsA400(t *testing.T) {
	t.Parallel()
	s := start(t, Config{})
	tests := map[string]struct {
		path  string
		code  int
		field string
		msg   string
	}{
		"one limit":                {path: "/v1/alerts?limit=1", code: http.StatusOK},
		"different parameters":     {path: "/v1/traces/summary?by=tenant&metric=faithfulness", code: http.StatusOK},
		"alerts limit twice":       {path: "/v1/alerts?limit=1&limit=1000", code: http.StatusBadRequest, field: "limit", msg: `query parameter "limit" given 2 times: give it once`},
		"summary metric twice":     {path: "/v1/traces/summary?metric=a&metric=b", code: http.StatusBadRequest, field: "metric", msg: `query parameter "metric" given 2 times`},
		"the same value twice":     {path: "/v1/traces/summary?by=tenant&by=tenant", code: http.StatusBadRequest, field: "by", msg: `query parameter "by" given 2 times`},
		"three times":              {path: "/v1/traces/summary?to=2026-01-01&to=2026-01-02&to=2026-01-03", code: http.StatusBadRequest, field: "to", msg: `query parameter "to" given 3 times`},
		"the first repeated name":  {path: "/v1/traces/summary?to=x&by=a&to=y&by=b", code: http.StatusBadRequest, field: "by", msg: `query parameter "by" given 2 times`},
		"queue limit twice":        {path: "/v1/queue?limit=1&limit=2", code: http.StatusBadRequest, field: "limit", msg: `query parameter "limit" given 2 times`},
		"export run twice":         {path: "/v1/queue/export?run=a&run=b", code: http.StatusBadRequest, field: "run", msg: `query parameter "run" given 2 times`},
		"a hidden name, escaped":   {path: "/v1/alerts?a%E2%80%AE=1&a%E2%80%AE=2", code: http.StatusBadRequest, field: "a\u202e", msg: `query parameter "a\u202e" given 2 times`},
		"empty values count twice": {path: "/v1/alerts?limit=&limit=5", code: http.StatusBadRequest, field: "limit", msg: `query parameter "limit" given 2 times`},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			code, body := call(t, http.MethodGet, s.URL+tc.path, "")
			require.Equal(t, tc.code, code, body)
			if tc.code == http.StatusOK {
				return
			}
			var eb ErrorBody
			require.NoError(t, json.Unmarshal([]byte(body), &eb), body)
			assert.Equal(t, tc.field, eb.Field)
			assert.Contains(t, eb.Error, tc.msg)
		})
	}
}
