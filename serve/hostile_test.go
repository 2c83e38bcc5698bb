package serve

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"strings"
	"sync"
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

// TestAScoreErrorNamesTheRequestField: /v1/score holds documents of its
// own (the report, its sources, the daily truth and telemetry); an
// error in one is a 400 whose field is the request's path to it, and
// whose message starts with that path.
func TestAScoreErrorNamesTheRequestField(t *testing.T) {
	t.Parallel()
	s := start(t, Config{})
	const report = `"# Solar output\n\nPanels gave 4 kWh on Monday."`
	tests := map[string]struct {
		body, field string
	}{
		"sources not a list":     {body: `{"report": ` + report + `, "sources": 17}`, field: "sources"},
		"source without url":     {body: `{"report": ` + report + `, "sources": [{"url": "https://a.example/x"}, {"title": "no link"}]}`, field: "sources[1].url"},
		"source url a number":    {body: `{"report": ` + report + `, "sources": [{"url": 404}]}`, field: "sources.url"},
		"source credibility":     {body: `{"report": ` + report + `, "sources": {"sources": [{"url": "https://b.example", "credibility_score": 99}]}}`, field: "sources[0].credibility_score"},
		"truth a list":           {body: `{"profile": "daily", "report": ` + report + `, "truth": [1, 2]}`, field: "truth"},
		"truth values text":      {body: `{"profile": "daily", "report": ` + report + `, "truth": {"values": "many"}}`, field: "truth.values"},
		"telemetry a string":     {body: `{"profile": "daily", "report": ` + report + `, "truth": {"values": {"rsi": 61.5}}, "telemetry": "fast"}`, field: "telemetry"},
		"retrieval not JSON":     {body: `{"profile": "context", "report": "query: solar"}`, field: "report"},
		"retrieval chunk score":  {body: `{"profile": "context", "report": "{\"query\": \"solar\", \"chunks\": [{\"content\": \"4 kWh\", \"score\": \"top\", \"documentId\": \"d1\"}]}"}`, field: "report.chunks[0].score"},
		"report with a NUL byte": {body: `{"report": "# Solar\u0000output"}`, field: "report"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			code, got := call(t, http.MethodPost, s.URL+"/v1/score", tc.body)
			require.Equal(t, http.StatusBadRequest, code, got)
			var eb ErrorBody
			require.NoError(t, json.Unmarshal([]byte(got), &eb), got)
			assert.Equal(t, tc.field, eb.Field, got)
			assert.True(t, strings.HasPrefix(eb.Error, tc.field+": "), "the message starts with its field: %s", eb.Error)
		})
	}
}

// TestTextThatIsNotUTF8IsRefusedWhereItIs: a string of a request that
// holds bytes no UTF-8 text has (a cut sequence, an encoded surrogate, a
// byte never used) is a 400 naming the field it is in; it is never
// changed into U+FFFD and judged, journaled or stored.
func TestTextThatIsNotUTF8IsRefusedWhereItIs(t *testing.T) {
	t.Parallel()
	s := start(t, Config{})
	const ok = `{"question": "Who wrote Dubliners?", "answer": "James Joyce.", "contexts": ["Dubliners is by James Joyce."]}`
	tests := map[string]struct {
		path, body, field string
	}{
		"judge question": {path: "/v1/judge", field: "sample.question",
			body: `{"metrics": ["faithfulness"], "sample": {"question": "Who wrote @B@?", "answer": "Joyce.", "contexts": ["x"]}}`},
		"judge second context": {path: "/v1/judge", field: "sample.contexts[1]",
			body: `{"metrics": ["faithfulness"], "sample": {"question": "q", "answer": "Joyce.", "contexts": ["fine", "bad @B@"]}}`},
		"trace id": {path: "/v1/traces", field: "traces[1].trace_id",
			body: `{"traces": [{"trace_id": "t-utf-a", "sample": ` + ok + `}, {"trace_id": "t-@B@", "sample": ` + ok + `}]}`},
		"trace metadata": {path: "/v1/traces", field: "traces[0].sample.metadata.team",
			body: `{"traces": [{"trace_id": "t-utf-b", "sample": {"question": "q", "answer": "a", "contexts": ["c"], "metadata": {"team": "@B@"}}}]}`},
		"run sample answer": {path: "/v1/runs", field: "samples[0].answer",
			body: `{"metrics": ["faithfulness"], "samples": [{"question": "q", "answer": "J@B@yce", "contexts": ["c"]}]}`},
		"run dataset": {path: "/v1/runs", field: "dataset",
			body: `{"metrics": ["faithfulness"], "dataset": "question,answer,contexts\nq,@B@,c\n", "format": "csv"}`},
		"score query": {path: "/v1/score", field: "query", body: `{"report": "# R\n\nText.", "query": "@B@"}`},
		"label note":  {path: "/v1/queue/labels", field: "note", body: `{"item": "t1", "value": true, "note": "see @B@"}`},
		"label who":   {path: "/v1/queue/labels", field: "labeler", body: `{"item": "t1", "value": true, "labeler": "an@B@"}`},
		"a key":       {path: "/v1/judge", field: "sample.metadata", body: `{"metrics": ["faithfulness"], "sample": {"question": "q", "answer": "a", "contexts": ["c"], "metadata": {"@B@": 1}}}`},
	}
	for name, tc := range tests {
		for bname, bad := range map[string]string{"cut": "\xc3(", "surrogate": "\xed\xa0\x80", "never used": "\xff"} {
			t.Run(name+"/"+bname, func(t *testing.T) {
				t.Parallel()
				code, got := call(t, http.MethodPost, s.URL+tc.path, strings.ReplaceAll(tc.body, "@B@", bad), "Content-Type", "application/json")
				require.Equal(t, http.StatusBadRequest, code, got)
				var eb ErrorBody
				require.NoError(t, json.Unmarshal([]byte(got), &eb), got)
				assert.Equal(t, tc.field, eb.Field, got)
				assert.Contains(t, eb.Error, "UTF-8")
			})
		}
	}
}

// TestPathAt: the path of the value holding a byte, through arrays in
// arrays, after closed objects and at the top level.
func TestPathAt(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		doc, at, want string
	}{
		"top level string":      {doc: `"@"`, at: "@", want: ""},
		"array in array":        {doc: `[[1, 2], [3, "@"]]`, at: "@", want: "[1][1]"},
		"after a closed object": {doc: `{"a": {"b": [1, {"c": 2}]}, "d": {"e": "@"}}`, at: "@", want: "d.e"},
		"a number":              {doc: `{"n": [0, 1, 27]}`, at: "27", want: "n[2]"},
		"a key of the top":      {doc: `{"x": 1, "@": 2}`, at: "@", want: ""},
		"after a syntax error":  {doc: `{"x": ] "@"}`, at: "@", want: ""},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tc.want, pathAt([]byte(tc.doc), int64(strings.Index(tc.doc, tc.at))))
		})
	}
}

// TestAnOTLPJSONExportIsOneWholeDocument: what follows the export
// request's object (a second export pasted after it, stray text), or a
// string that is not UTF-8, is a 400, as the protobuf encoding's own
// checks answer; never a 200 for the first object alone, the rest
// dropped unsaid.
func TestAnOTLPJSONExportIsOneWholeDocument(t *testing.T) {
	t.Parallel()
	s := start(t, Config{})
	span := func(trace, name string) string {
		return `{"resourceSpans": [{"scopeSpans": [{"spans": [{"traceId": "` + trace + `", "spanId": "00f067aa0ba902b7", "name": "` + name +
			`", "attributes": [{"key": "gen_ai.operation.name", "value": {"stringValue": "chat"}}]}]}]}]}`
	}
	a, b := span("0af7651916cd43dd8448eb211c80319c", "chat one"), span("1bf7651916cd43dd8448eb211c80319d", "chat two")
	tests := map[string]string{
		"two exports one after the other": a + "\n" + b,
		"stray text after the export":     a + " thanks",
		"a second value":                  a + " []",
		"a span name that is not UTF-8":   span("2cf7651916cd43dd8448eb211c80319e", "chat \xfe"),
	}
	for name, body := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			code, got := call(t, http.MethodPost, s.URL+"/otlp/v1/traces", body, "Content-Type", "application/json")
			assert.Equal(t, http.StatusBadRequest, code, got)
		})
	}
	code, got := call(t, http.MethodPost, s.URL+"/otlp/v1/traces", a+"\n\t ", "Content-Type", "application/json")
	assert.Equal(t, http.StatusOK, code, "white space after the export is no second document: %s", got)
}

// logBuffer is a log the server writes from its goroutines.
type logBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *logBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *logBuffer) lines() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return strings.Split(l.b.String(), "\n")
}

// TestAClientWritesNoLineOfTheLog: the log line of a request that made
// a handler panic names its path, and a path whose escapes decode to a
// line break (or a carriage return) cannot start a line of its own that
// would pass for the server's.
func TestAClientWritesNoLineOfTheLog(t *testing.T) {
	t.Parallel()
	var log logBuffer
	s := start(t, Config{Log: &log})
	s.Handle("GET /explode/{rest...}", http.HandlerFunc(func(http.ResponseWriter, *http.Request) { panic("boom") }))
	tests := map[string]string{
		"line feed":       "/explode/a%0Aassay%20serve:%20FORGED%20admin%20signed%20in",
		"carriage return": "/explode/b%0D%0Aassay%20serve:%20FORGED%20run%20deleted",
		"line separator":  "/explode/c%E2%80%A8assay%20serve:%20FORGED%20unicode",
		"escaped panic":   "/explode/d%0AFORGED",
	}
	for name, path := range tests {
		t.Run(name, func(t *testing.T) {
			code, got := call(t, http.MethodGet, s.URL+path, "")
			require.Equal(t, http.StatusInternalServerError, code, got)
			assert.NotContains(t, got, "FORGED")
		})
	}
	panics := 0
	for _, l := range log.lines() {
		l = strings.TrimLeft(l, "\r")
		assert.False(t, strings.HasPrefix(l, "assay serve: FORGED") || strings.HasPrefix(l, "FORGED"), "a line of the log came from a request: %q", l)
		if strings.HasPrefix(l, "assay serve: panic answering GET /explode/") {
			panics++
			assert.NotContains(t, l, "\u2028", "a Unicode line separator is escaped")
		}
	}
	assert.Equal(t, len(tests), panics, "a line for each panic")
}

// TestAShedExportIsCountedUnderItsEndpoint: a request refused 429 for a
// full trace queue is counted in assay_shed_total under the endpoint it
// came to, an OTLP export under POST /otlp/v1/traces, not under
// /v1/traces.
func TestAShedExportIsCountedUnderItsEndpoint(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	s, err := New(Config{DataDir: dir, Store: filepath.Join(dir, "runs.db"), QueueSize: 1})
	require.NoError(t, err)
	// Not started: no worker takes a trace off the queue, which stays full.
	ts := httptest.NewServer(s.Handler())
	t.Cleanup(func() {
		ts.Close()
		_ = s.Close()
	})
	export := func(trace string) string {
		return `{"resourceSpans": [{"scopeSpans": [{"spans": [{"traceId": "` + trace + `", "spanId": "a1b2c3d4e5f60718", "name": "chat", ` +
			`"attributes": [{"key": "gen_ai.operation.name", "value": {"stringValue": "chat"}}, {"key": "gen_ai.prompt", "value": {"stringValue": "hi"}}]}]}]}]}`
	}
	posts := []struct {
		path, body string
		code       int
	}{
		{"/otlp/v1/traces", export("4c9e1f0a2b3d4e5f60718293a4b5c6d7"), http.StatusOK},
		{"/otlp/v1/traces", export("5d0f2a1b3c4e5f60718293a4b5c6d7e8"), http.StatusTooManyRequests},
		{"/otlp/v1/traces", export("6e1a3b2c4d5f60718293a4b5c6d7e8f9"), http.StatusTooManyRequests},
		{"/v1/traces", `{"traces": [{"trace_id": "shed-one", "sample": {"question": "q", "answer": "a", "contexts": ["c"]}}]}`, http.StatusTooManyRequests},
	}
	for _, p := range posts {
		code, got := call(t, http.MethodPost, ts.URL+p.path, p.body, "Content-Type", "application/json")
		require.Equal(t, p.code, code, "%s: %s", p.path, got)
	}
	fams := scrape(t, ts.URL)
	for endpoint, want := range map[string]float64{routeOTLP: 2, routeTraces: 1} {
		got, _ := sample(fams, "assay_shed_total", "endpoint", endpoint, "reason", ShedQueueFull)
		assert.Equal(t, want, got, endpoint)
	}
}
