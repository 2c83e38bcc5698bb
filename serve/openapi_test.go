package serve

import (
	"encoding/json"
	"net/http"
	"os"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// validate checks v (JSON text) against the named component schema.
func validate(t *testing.T, comps map[string]*jsonschema.Schema, name, v string) {
	t.Helper()
	s, ok := comps[name]
	require.True(t, ok, "no schema %s", name)
	rs, err := s.Resolve(nil)
	require.NoError(t, err, name)
	var doc any
	require.NoError(t, json.Unmarshal([]byte(v), &doc))
	assert.NoError(t, rs.Validate(doc), "%s: %s", name, v)
}

func TestOpenAPIDocumentsEveryRouteAndEachAnswers(t *testing.T) {
	t.Parallel()
	s := start(t, Config{})
	code, body := call(t, http.MethodGet, s.URL+"/openapi.json", "")
	require.Equal(t, http.StatusOK, code)
	var doc struct {
		OpenAPI string                                       `json:"openapi"`
		Paths   map[string]map[string]json.RawMessage        `json:"paths"`
		Comps   struct{ Schemas map[string]json.RawMessage } `json:"components"`
	}
	require.NoError(t, json.Unmarshal([]byte(body), &doc))
	assert.Equal(t, "3.1.0", doc.OpenAPI)

	// Every route the mux serves is documented, and nothing else.
	var documented []string
	for path, ops := range doc.Paths {
		for method := range ops {
			documented = append(documented, strings.ToUpper(method)+" "+path)
		}
	}
	sort.Strings(documented)
	assert.Equal(t, s.paths(), documented)
	for _, rt := range s.routes {
		_, pattern := s.mux.Handler(mustRequest(t, rt.pattern))
		assert.Equal(t, rt.pattern, pattern, "the mux serves %s", rt.pattern)
	}

	comps := map[string]*jsonschema.Schema{}
	for name, raw := range doc.Comps.Schemas {
		var sc jsonschema.Schema
		require.NoError(t, json.Unmarshal(raw, &sc), name)
		comps[name] = &sc
	}
	// Each route answers its example with its documented status, and a
	// JSON answer validates against its schema.
	for _, rt := range s.routes {
		t.Run(rt.pattern, func(t *testing.T) {
			method, path, _ := strings.Cut(docPattern(rt.pattern), " ")
			op := rt.doc
			body := ""
			if op.request != "" {
				body = mustJSON(t, op.example)
				validate(t, comps, op.request, body)
			}
			switch path {
			case "/v1/runs/{id}":
				_, created := call(t, http.MethodPost, s.URL+"/v1/runs", mustJSON(t, exampleRun))
				var st RunStatus
				require.NoError(t, json.Unmarshal([]byte(created), &st))
				path = "/v1/runs/" + st.ID
			case "/v1/traces/{id}":
				code, posted := call(t, http.MethodPost, s.URL+"/v1/traces", mustJSON(t, exampleTraces))
				require.Equal(t, http.StatusAccepted, code, posted)
				path = "/v1/traces/4bf92f3577b34da6a3ce929d0e0e4736"
			case "/v1/traces/summary":
				path += "?by=tenant"
			case "/v1/queue", "/v1/queue/export", "/v1/queue/labels", "/queue":
				// The example's trace, judged with faithfulness.
				code, posted := call(t, http.MethodPost, s.URL+"/v1/traces", mustJSON(t, exampleTraces))
				require.Equal(t, http.StatusAccepted, code, posted)
				waitTraceScored(t, s, "4bf92f3577b34da6a3ce929d0e0e4736", "faithfulness")
				if method == http.MethodGet {
					path += "?metric=faithfulness"
				}
			}
			var header []string
			if path == "/v1/queue/labels" {
				header = []string{"Content-Type", "application/json"}
			}
			if path == "/otlp/v1/traces" { // an OTLP export, not a documented JSON body
				b, err := os.ReadFile("../fixtures/agents/nocontent.spans.jsonl")
				require.NoError(t, err)
				body, header = string(b), []string{"Content-Type", "application/json"}
			}
			code, got := call(t, method, s.URL+path, body, header...)
			require.Equal(t, op.status, code, got)
			if op.response != "" {
				validate(t, comps, op.response, got)
			}
			switch op.contentType {
			case "text/plain":
				assert.Contains(t, got, "# TYPE assay_http_requests_total counter")
			case "text/html":
				title := "<title>Assay · live quality</title>"
				if path == "/queue?metric=faithfulness" {
					title = "<title>Assay · annotation queue</title>"
				}
				assert.Contains(t, got, title)
			}
		})
	}
	// The error answers validate too.
	_, bad := call(t, http.MethodPost, s.URL+"/v1/judge", `{"sample": {}, "metrics": ["nope"]}`)
	validate(t, comps, "Error", bad)
	assert.True(t, slices.Contains(s.paths(), routeContext))
	// The schemas reject what is not so.
	for name, v := range map[string]string{
		"ContextQualityScore": `{"profile": "context", "overall": "high"}`,
		"QualityInput":        `{"query": "q", "chunks": [{"content": "c", "score": -1, "documentId": "d"}]}`,
		"TracesRequest":       `{"traces": [{"trace_id": 7, "sample": {}}]}`,
		"JudgeResponse":       `{"results": [{"metric": "faithfulness"}], "extra": 1}`,
	} {
		rs, err := comps[name].Resolve(nil)
		require.NoError(t, err)
		var doc any
		require.NoError(t, json.Unmarshal([]byte(v), &doc))
		assert.Error(t, rs.Validate(doc), "%s accepts %s", name, v)
	}
}

// waitTraceScored polls the store until trace id has its score of
// metric.
func waitTraceScored(t *testing.T, s *testServer, id, metric string) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		got, err := s.store.scored(t.Context(), id)
		require.NoError(t, err)
		if got[metric] {
			return
		}
		require.True(t, time.Now().Before(deadline), "trace %s has no %s score after a minute", id, metric)
		time.Sleep(5 * time.Millisecond)
	}
}

func mustRequest(t *testing.T, pattern string) *http.Request {
	method, path, _ := strings.Cut(docPattern(pattern), " ")
	path = strings.ReplaceAll(path, "{id}", "x")
	r, err := http.NewRequestWithContext(t.Context(), method, path, nil)
	require.NoError(t, err)
	return r
}
