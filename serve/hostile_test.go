package serve

import (
	"encoding/json"
	"net/http"
	"net/url"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestAQueueOfAnUnknownRunTellsNoServerPath: a run the store does not
// hold is a 404 naming the run field, on every route of the annotation
// queue, and its message does not give the run store's file, nor any
// folder of the server.
func TestAQueueOfAnUnknownRunTellsNoServerPath(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	s := start(t, Config{DataDir: filepath.Join(dir, "data"), Store: filepath.Join(dir, "store", "runs.db")})
	tests := map[string]struct {
		method, target, body string
		json                 bool
	}{
		"queue data":    {method: http.MethodGet, target: "/v1/queue?run=", json: true},
		"queue export":  {method: http.MethodGet, target: "/v1/queue/export?run=", json: true},
		"queue page":    {method: http.MethodGet, target: "/queue?run="},
		"queue label":   {method: http.MethodPost, target: "/v1/queue/labels", body: `{"run": "@R@", "item": "q1", "value": false}`, json: true},
		"queue metric":  {method: http.MethodGet, target: "/v1/queue?metric=faithfulness&run=", json: true},
		"queue graded":  {method: http.MethodGet, target: "/v1/queue?scale=graded&run=", json: true},
		"export labels": {method: http.MethodGet, target: "/v1/queue/export?label=ok&run=", json: true},
	}
	for name, tc := range tests {
		for _, ref := range []string{"20250101T000000Z-dead", "zzz", "../../etc/hosts"} {
			t.Run(name+"/"+ref, func(t *testing.T) {
				t.Parallel()
				target, body := tc.target, strings.ReplaceAll(tc.body, "@R@", ref)
				if strings.HasSuffix(target, "=") {
					target += url.QueryEscape(ref)
				}
				code, got := call(t, tc.method, s.URL+target, body, "Content-Type", "application/json")
				assert.Equal(t, http.StatusNotFound, code, got)
				assert.NotContains(t, got, dir)
				assert.NotContains(t, got, "runs.db")
				if tc.json {
					var eb ErrorBody
					require.NoError(t, json.Unmarshal([]byte(got), &eb), got)
					assert.Equal(t, "run", eb.Field)
					assert.Contains(t, eb.Error, "no run")
				}
			})
		}
	}
}
