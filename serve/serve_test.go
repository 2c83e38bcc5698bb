package serve

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sashabaranov/go-openai"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/assaylabs/assay/agent"
	"github.com/assaylabs/assay/eval"
	"github.com/assaylabs/assay/internal/llmtest"
	"github.com/assaylabs/assay/judging"
	"github.com/assaylabs/assay/llm/setup"
)

// testServer is a Server answering on a loopback port.
type testServer struct {
	*Server
	URL string
}

// start builds a server of cfg (its data in a temporary folder unless
// cfg has one), starts it and serves it on 127.0.0.1; the test's end
// stops both.
func start(t *testing.T, cfg Config) *testServer {
	t.Helper()
	if cfg.DataDir == "" {
		cfg.DataDir = t.TempDir()
	}
	if cfg.Store == "" {
		cfg.Store = filepath.Join(cfg.DataDir, "runs.db")
	}
	s, err := New(cfg)
	require.NoError(t, err)
	require.NoError(t, s.Start(t.Context()))
	ts := httptest.NewServer(s.Handler())
	t.Cleanup(func() {
		ts.Close()
		_ = s.Close()
	})
	return &testServer{Server: s, URL: ts.URL}
}

// withModel is cfg judging with an OpenAI-compatible fake at url.
func withModel(cfg Config, url string) Config {
	cfg.Judging = judging.Default()
	cfg.Judging.LLM = setup.Config{Spec: "openai:gpt-4o-mini", NoCache: true, Concurrency: 4, CallTimeout: 5 * time.Second, MaxRetryTime: 10 * time.Second}
	env := map[string]string{"OPENAI_BASE_URL": url, "OPENAI_API_KEY": "test", "ASSAY_EMBEDDING_MODEL": "text-embedding-3-small"}
	cfg.Env = func(k string) string { return env[k] }
	return cfg
}

// call sends a request and returns the status and body.
func call(t *testing.T, method, url, body string, header ...string) (int, string) {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), method, url, strings.NewReader(body))
	require.NoError(t, err)
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

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	require.NoError(t, err)
	return string(b)
}

// contextInputs are retrievals of several kinds: the fixtures, and
// edge cases of seed 002's rules.
func contextInputs(t *testing.T) map[string]string {
	out := map[string]string{}
	for _, f := range []string{"good", "poor", "ambiguous"} {
		b, err := readFixture(filepath.Join("context", f+".json"))
		require.NoError(t, err)
		out[f] = b
	}
	out["no chunks"] = `{"query": "What is QUIC?", "chunks": []}`
	out["one chunk, rerank scores"] = `{"query": "What is QUIC and how does it differ from TCP?", "chunks": [{"content": "QUIC is a transport protocol over UDP, published as RFC 9000 in 2021.", "score": 0.4, "rerankScore": 0.2, "documentId": "a"}]}`
	out["one document, many chunks"] = `{"query": "Why is the sky blue?", "chunks": [{"content": "Rayleigh scattering", "score": 0.9, "documentId": "d"}, {"content": "shorter wavelengths", "score": 0.5, "documentId": "d"}, {"content": "blue light", "score": 0.1, "documentId": "d"}], "context": {"text": "Rayleigh scattering of blue light", "tokenCount": 12}}`
	return out
}

func readFixture(name string) (string, error) {
	b, err := os.ReadFile(filepath.Join("..", "fixtures", name))
	return string(b), err
}

func TestContextScoreIsAssayScores(t *testing.T) {
	t.Parallel()
	var seen recorder
	s := start(t, Config{Observers: []Observer{&seen}})
	inputs := contextInputs(t)
	for name, in := range inputs {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			code, got := call(t, http.MethodPost, s.URL+"/v1/context-score", in)
			require.Equal(t, http.StatusOK, code, got)
			out, err := agent.ScoreFile(t.Context(), agent.ScoreJob{File: "-", Stdin: strings.NewReader(in), Profile: "context", Judging: judging.Default()})
			require.NoError(t, err)
			var want bytes.Buffer
			require.NoError(t, out.Write(&want, "json"))
			assert.Equal(t, want.String(), got)
		})
	}
	t.Cleanup(func() {
		assert.Equal(t, len(inputs), seen.count("context_quality"), "one observation per context score")
	})
}

// recorder is an Observer that keeps what it sees.
type recorder struct {
	mu   sync.Mutex
	seen []observation
}

type observation struct {
	metric string
	value  float64
	meta   map[string]string
}

func (r *recorder) Observe(metric string, s eval.Score, meta map[string]string, _ time.Time) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.seen = append(r.seen, observation{metric, s.Value, meta})
}

func (r *recorder) count(metric string) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := 0
	for _, o := range r.seen {
		if o.metric == metric {
			n++
		}
	}
	return n
}

func TestBadRequestsNameTheField(t *testing.T) {
	t.Parallel()
	s := start(t, Config{MaxBody: 4096})
	tests := map[string]struct {
		path, body string
		code       int
		field      string
		msg        string
	}{
		"unknown field": {path: "/v1/judge", body: `{"sample": {"answer": "a"}, "metric": ["faithfulness"]}`,
			code: 400, field: "metric", msg: `unknown field "metric"`},
		"wrong type": {path: "/v1/judge", body: `{"sample": {"answer": "a"}, "metrics": "faithfulness"}`,
			code: 400, field: "metrics", msg: "want an array"},
		"syntax error": {path: "/v1/traces", body: `{"traces": [}`, code: 400, msg: "invalid JSON"},
		"trailing data": {path: "/v1/judge", body: `{"sample": {"answer": "a"}, "metrics": ["faithfulness"]} {}`,
			code: 400, msg: "more after"},
		"empty body":     {path: "/v1/score", body: ``, code: 400, msg: "empty body"},
		"unknown metric": {path: "/v1/judge", body: `{"sample": {"answer": "a"}, "metrics": ["nope"]}`, code: 400, field: "metrics", msg: `unknown metric "nope"`},
		"sample field of the wrong type": {path: "/v1/traces", body: `{"traces": [{"trace_id": "t", "sample": {"question": "q", "contexts": 3}}]}`,
			code: 400, field: "traces[0].sample.contexts", msg: "want an array of strings"},
		"missing trace id": {path: "/v1/traces", body: `{"traces": [{"sample": {"question": "q"}}]}`,
			code: 400, field: "traces[0].trace_id", msg: "missing"},
		"trace twice": {path: "/v1/traces", body: `{"traces": [{"trace_id": "a", "sample": {"answer": "x", "contexts": ["c"]}}, {"trace_id": "a", "sample": {"answer": "x", "contexts": ["c"]}}]}`,
			code: 400, field: "traces[1].trace_id", msg: "traces[0]'s too"},
		"what a metric needs": {path: "/v1/judge", body: `{"sample": {"question": "q", "answer": "a", "contexts": ["c"]}, "metrics": ["context_recall"]}`,
			code: 400, field: "sample.reference", msg: "no reference"},
		"chunk score": {path: "/v1/context-score", body: `{"query": "q", "chunks": [{"content": "c", "score": "high", "documentId": "d"}]}`,
			code: 400, field: "chunks[0].score", msg: "must be a finite number"},
		"context score unknown field": {path: "/v1/context-score", body: `{"query": "q", "chunks": [], "k": 3}`,
			code: 400, msg: `unknown field "k"`},
		"run of bad samples": {path: "/v1/runs", body: `{"metrics": ["faithfulness"], "samples": [{"answer": "a", "contexts": ["c"]}, {"id": 3.5, "contexts": {}}]}`,
			code: 400, field: "samples[1].contexts", msg: "samples[1]: contexts: want an array of strings"},
		"run metric": {path: "/v1/runs", body: `{"metrics": ["nope"], "samples": [{"answer": "a", "contexts": ["c"]}]}`,
			code: 400, field: "metrics", msg: `unknown metric "nope"`},
		"score profile":       {path: "/v1/score", body: `{"profile": "weekly", "report": "# R"}`, code: 400, field: "profile", msg: "want research, daily or context"},
		"daily without truth": {path: "/v1/score", body: `{"profile": "daily", "report": "# R"}`, code: 400, field: "truth", msg: "missing"},
		"body too large":      {path: "/v1/context-score", body: `{"query": "` + strings.Repeat("q", 5000) + `", "chunks": []}`, code: 413, msg: "larger than 4096 bytes"},
		"summary field":       {path: "/v1/traces/summary?by=a%22b", code: 400, field: "by", msg: "metadata field name"},
		"no such run":         {path: "/v1/runs/nope", code: 404, msg: "no run"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			method := http.MethodPost
			if strings.Contains(tc.path, "summary") || strings.HasPrefix(tc.path, "/v1/runs/") {
				method = http.MethodGet
			}
			code, body := call(t, method, s.URL+tc.path, tc.body)
			assert.Equal(t, tc.code, code, body)
			var eb ErrorBody
			require.NoError(t, json.Unmarshal([]byte(body), &eb), body)
			assert.Equal(t, tc.field, eb.Field, body)
			assert.Contains(t, eb.Error, tc.msg)
		})
	}
}

func TestTokenIsRequiredOffLoopback(t *testing.T) {
	t.Parallel()
	_, err := New(Config{Addr: "0.0.0.0:8080", DataDir: t.TempDir(), Store: filepath.Join(t.TempDir(), "runs.db")})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "--token")

	s := start(t, Config{Addr: "0.0.0.0:0", Token: "sesame"})
	tests := map[string]struct {
		path, auth string
		code       int
	}{
		"no token":          {path: "/v1/traces/summary", code: 401},
		"wrong token":       {path: "/v1/traces/summary", auth: "Bearer sesam", code: 401},
		"token":             {path: "/v1/traces/summary", auth: "Bearer sesame", code: 200},
		"metrics too":       {path: "/metrics", code: 401},
		"health needs none": {path: "/healthz", code: 200},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			var h []string
			if tc.auth != "" {
				h = []string{"Authorization", tc.auth}
			}
			code, body := call(t, http.MethodGet, s.URL+tc.path, "", h...)
			assert.Equal(t, tc.code, code, body)
		})
	}
}

func TestPanicIsA500AndTheServerGoesOn(t *testing.T) {
	t.Parallel()
	s := start(t, Config{})
	s.Handle("GET /boom", http.HandlerFunc(func(http.ResponseWriter, *http.Request) { panic("boom") }))
	code, body := call(t, http.MethodGet, s.URL+"/boom", "")
	assert.Equal(t, http.StatusInternalServerError, code)
	assert.Contains(t, body, "internal error")
	code, _ = call(t, http.MethodGet, s.URL+"/healthz", "")
	assert.Equal(t, http.StatusOK, code)
	_, m := call(t, http.MethodGet, s.URL+"/metrics", "")
	assert.Contains(t, m, "assay_panics_total 1")
	assert.Contains(t, m, `assay_http_requests_total{code="500",endpoint="GET /boom"} 1`)
}

// TestOnlyTimedRoutesTakeADeadline: a bounded route is given
// RequestTimeout as its context's deadline, unless it computes its answer
// from the body alone (context-score), which the deadline could not cut.
func TestOnlyTimedRoutesTakeADeadline(t *testing.T) {
	t.Parallel()
	s := start(t, Config{RequestTimeout: time.Hour})
	for name, timed := range map[string]bool{"timed": true, "cpu only": false} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			var has bool
			h := s.bound("POST /x", !timed, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				_, has = r.Context().Deadline()
				w.WriteHeader(http.StatusNoContent)
			}))
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, httptest.NewRequestWithContext(t.Context(), http.MethodPost, "/x", strings.NewReader("{}")))
			require.Equal(t, http.StatusNoContent, rec.Code)
			assert.Equal(t, timed, has)
		})
	}
	var cpu []string
	for _, rt := range s.apiRoutes() {
		if rt.cpu {
			cpu = append(cpu, rt.pattern)
		}
	}
	assert.Equal(t, []string{routeContext}, cpu)
}

func TestRequestsBeyondTheBoundAre503(t *testing.T) {
	t.Parallel()
	s := start(t, Config{MaxInFlight: 1})
	release := make(chan struct{})
	entered := make(chan struct{})
	h := s.bound("POST /slow", true, http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		close(entered)
		<-release
		w.WriteHeader(http.StatusNoContent)
	}))
	first := make(chan int)
	go func() {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequestWithContext(t.Context(), http.MethodPost, "/slow", nil))
		first <- rec.Code
	}()
	<-entered
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequestWithContext(t.Context(), http.MethodPost, "/slow", nil))
	assert.Equal(t, http.StatusServiceUnavailable, rec.Code)
	assert.Equal(t, "1", rec.Header().Get("Retry-After"))
	close(release)
	assert.Equal(t, http.StatusNoContent, <-first)
	_, m := call(t, http.MethodGet, s.URL+"/metrics", "")
	assert.Contains(t, m, `assay_shed_total{endpoint="POST /slow",reason="busy"} 1`)
}

func TestSampledIsDeterministicAndNested(t *testing.T) {
	t.Parallel()
	rates := []float64{0, 0.01, 0.1, 0.25, 0.5, 0.9, 1}
	counts := make([]int, len(rates))
	const n = 20000
	for i := range n {
		id := fmt.Sprintf("trace-%d", i)
		prev := false
		for j, r := range rates {
			in := Sampled(id, r)
			assert.Equal(t, in, Sampled(id, r))
			if prev && !in {
				t.Fatalf("%s is sampled at %g but not at %g", id, rates[j-1], r)
			}
			prev = in
			if in {
				counts[j]++
			}
		}
	}
	for j, r := range rates {
		assert.InDelta(t, r, float64(counts[j])/n, 0.01, "rate %g", r)
	}
	// The rule as documented, computed apart: SHA-256's first 8 bytes.
	// 0x398acaee65c4e533 / 2^64 = 0.2248 (Python: hashlib.sha256).
	assert.True(t, Sampled("4bf92f3577b34da6a3ce929d0e0e4736", 0.225))
	assert.False(t, Sampled("4bf92f3577b34da6a3ce929d0e0e4736", 0.2247))
}

// fakeModel is a fake model server that answers judges, or holds every
// call while held is set.
type fakeModel struct {
	srv  *llmtest.Server
	hold atomic.Bool
}

func newFakeModel(t *testing.T) *fakeModel {
	f := &fakeModel{}
	f.srv = llmtest.New(t, llmtest.Quiet(), llmtest.Func(func(req openai.ChatCompletionRequest) llmtest.Reply {
		if f.hold.Load() {
			return llmtest.Reply{Delay: time.Hour} // ends when the client goes away
		}
		return llmtest.JudgeReplies(req)
	}))
	return f
}

func traceBody(t *testing.T, ids []string, meta func(i int) map[string]any) string {
	var traces []any
	for i, id := range ids {
		traces = append(traces, map[string]any{"trace_id": id, "sample": map[string]any{
			"question": "When was the Eiffel Tower completed?",
			"answer":   fmt.Sprintf("The Eiffel Tower was completed in 1889. It is %d metres tall.", 300+i),
			"contexts": []string{"The Eiffel Tower was completed in 1889 and is 330 metres tall."},
			"metadata": meta(i),
		}})
	}
	return mustJSON(t, map[string]any{"traces": traces})
}

// waitJudged polls the summary until it counts want judgements.
func waitJudged(t *testing.T, s *testServer, want int) *TraceSummary {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		sum, err := s.TraceSummary(t.Context(), SummaryQuery{})
		require.NoError(t, err)
		n := 0
		for _, g := range sum.Groups {
			n += g.N
		}
		if n >= want {
			require.Equal(t, want, n)
			return sum
		}
		require.True(t, time.Now().Before(deadline), "%d of %d judgements after a minute", n, want)
		time.Sleep(5 * time.Millisecond)
	}
}

func TestTracesAreSampledJournaledAndJudgedOnce(t *testing.T) {
	t.Parallel()
	model := newFakeModel(t)
	rate := 0.5
	var seen recorder
	s := start(t, withModel(Config{SampleRate: &rate, TraceMetrics: []string{"faithfulness"}, Observers: []Observer{&seen}}, model.srv.URL()))
	var ids []string
	want := 0
	for i := range 40 {
		id := fmt.Sprintf("trace-%02d", i)
		ids = append(ids, id)
		if Sampled(id, rate) {
			want++
		}
	}
	tenant := func(i int) map[string]any { return map[string]any{"tenant": []string{"acme", "globex"}[i%2], "n": i} }
	code, body := call(t, http.MethodPost, s.URL+"/v1/traces", traceBody(t, ids, tenant))
	require.Equal(t, http.StatusAccepted, code, body)
	var resp TracesResponse
	require.NoError(t, json.Unmarshal([]byte(body), &resp))
	assert.Equal(t, TracesResponse{Received: 40, Sampled: want, NotSampled: 40 - want, QueueDepth: resp.QueueDepth}, resp)
	waitJudged(t, s, want)

	// Posted again: duplicates, judged no more.
	code, body = call(t, http.MethodPost, s.URL+"/v1/traces", traceBody(t, ids, tenant))
	require.Equal(t, http.StatusAccepted, code, body)
	require.NoError(t, json.Unmarshal([]byte(body), &resp))
	assert.Equal(t, want, resp.Duplicates)
	assert.Zero(t, resp.Sampled)

	code, body = call(t, http.MethodGet, s.URL+"/v1/traces/summary?by=tenant&metric=faithfulness", "")
	require.Equal(t, http.StatusOK, code, body)
	var sum TraceSummary
	require.NoError(t, json.Unmarshal([]byte(body), &sum))
	byTenant := map[string]int{}
	for _, g := range sum.Groups {
		require.NotNil(t, g.Group)
		byTenant[*g.Group] += g.N
		assert.Equal(t, g.N, g.Scored, "judged by the model, none defaulted")
		assert.Equal(t, time.Now().UTC().Format(time.DateOnly), g.Day)
	}
	wantTenant := map[string]int{}
	for i, id := range ids {
		if Sampled(id, rate) {
			wantTenant[[]string{"acme", "globex"}[i%2]]++
		}
	}
	assert.Equal(t, wantTenant, byTenant)
	assert.Equal(t, want, seen.count("faithfulness"))

	var sampledID string
	for _, id := range ids {
		if Sampled(id, rate) {
			sampledID = id
			break
		}
	}
	code, body = call(t, http.MethodGet, s.URL+"/v1/traces/"+sampledID, "")
	require.Equal(t, http.StatusOK, code, body)
	var tr Trace
	require.NoError(t, json.Unmarshal([]byte(body), &tr))
	require.Len(t, tr.Scores, 1)
	assert.True(t, tr.Judged)
	assert.Equal(t, "scored", tr.Scores[0].Outcome)
	assert.Contains(t, tr.Scores[0].Method, "gpt-4o-mini")

	_, m := call(t, http.MethodGet, s.URL+"/metrics", "")
	assert.Contains(t, m, fmt.Sprintf(`assay_judgements_total{metric="faithfulness",outcome="scored"} %d`, want))
	assert.Contains(t, m, fmt.Sprintf(`assay_traces_total{decision="duplicate"} %d`, want))
	assert.Contains(t, m, "assay_trace_queue_depth 0")
}

func TestAFullQueueIs429AndCounted(t *testing.T) {
	t.Parallel()
	model := newFakeModel(t)
	model.hold.Store(true)
	s := start(t, withModel(Config{QueueSize: 3, Workers: 1, TraceMetrics: []string{"faithfulness"}, ShutdownTimeout: time.Millisecond}, model.srv.URL()))
	one := func(id string) string { return traceBody(t, []string{id}, func(int) map[string]any { return nil }) }
	for i := range 3 {
		code, body := call(t, http.MethodPost, s.URL+"/v1/traces", one(fmt.Sprint("t", i)))
		require.Equal(t, http.StatusAccepted, code, body)
	}
	code, body := call(t, http.MethodPost, s.URL+"/v1/traces", one("t3"))
	assert.Equal(t, http.StatusTooManyRequests, code, body)
	assert.Contains(t, body, "queue is full")
	_, err := s.Trace(t.Context(), "t3")
	assert.ErrorIs(t, err, errNoTrace, "a refused trace is not kept")
	code, body = call(t, http.MethodPost, s.URL+"/v1/traces", traceBody(t, []string{"a", "b", "c", "d"}, func(int) map[string]any { return nil }))
	assert.Equal(t, http.StatusRequestEntityTooLarge, code, body)
	_, m := call(t, http.MethodGet, s.URL+"/metrics", "")
	assert.Contains(t, m, `assay_shed_total{endpoint="POST /v1/traces",reason="queue_full"} 1`)
	assert.Contains(t, m, `assay_traces_total{decision="shed"} 1`)
	assert.Contains(t, m, "assay_trace_queue_depth 3")
}

func TestARestartJudgesWhatTheJournalHolds(t *testing.T) {
	t.Parallel()
	model := newFakeModel(t)
	model.hold.Store(true)
	dir := t.TempDir()
	cfg := withModel(Config{DataDir: dir, Store: filepath.Join(dir, "runs.db"), QueueSize: 100, Workers: 2, ShutdownTimeout: time.Millisecond, TraceMetrics: []string{"faithfulness", "answer_relevancy"}}, model.srv.URL())
	first, err := New(cfg)
	require.NoError(t, err)
	require.NoError(t, first.Start(t.Context()))
	ts := httptest.NewServer(first.Handler())
	var ids []string
	for i := range 10 {
		ids = append(ids, fmt.Sprint("trace-", i))
	}
	code, body := call(t, http.MethodPost, ts.URL+"/v1/traces", traceBody(t, ids, func(int) map[string]any { return nil }))
	require.Equal(t, http.StatusAccepted, code, body)
	ts.Close()
	require.NoError(t, first.Close()) // the model holds every call: the judgements are cut

	model.hold.Store(false)
	second := start(t, cfg)
	waitJudged(t, second, 2*len(ids))
	for _, id := range ids {
		tr, err := second.Trace(t.Context(), id)
		require.NoError(t, err)
		assert.True(t, tr.Judged, id)
		require.Len(t, tr.Scores, 2, id)
		for _, sc := range tr.Scores {
			assert.Equal(t, OutcomeScored, sc.Outcome, "%s %s: %s", id, sc.Metric, sc.Error)
		}
	}
}

func TestJudgeWithAModel(t *testing.T) {
	t.Parallel()
	model := newFakeModel(t)
	s := start(t, withModel(Config{}, model.srv.URL()))
	code, body := call(t, http.MethodPost, s.URL+"/v1/judge", mustJSON(t, exampleJudge))
	require.Equal(t, http.StatusOK, code, body)
	var resp JudgeResponse
	require.NoError(t, json.Unmarshal([]byte(body), &resp))
	require.Len(t, resp.Results, 2)
	for i, m := range []string{"faithfulness", "answer_relevancy_grade"} {
		r := resp.Results[i]
		assert.Equal(t, m, r.Metric)
		assert.Equal(t, "eiffel", r.ID)
		assert.False(t, r.Defaulted, r.Error)
		assert.Contains(t, r.Method, "gpt-4o-mini")
	}
}

func TestJudgeTimesOut(t *testing.T) {
	t.Parallel()
	model := newFakeModel(t)
	model.hold.Store(true)
	s := start(t, withModel(Config{RequestTimeout: 50 * time.Millisecond}, model.srv.URL()))
	code, body := call(t, http.MethodPost, s.URL+"/v1/judge", mustJSON(t, exampleJudge))
	assert.Equal(t, http.StatusGatewayTimeout, code, body)
	assert.Contains(t, body, "timed out")
}

func TestRunsRunAndResumeAfterARestart(t *testing.T) {
	t.Parallel()
	model := newFakeModel(t)
	model.hold.Store(true)
	dir := t.TempDir()
	cfg := withModel(Config{DataDir: dir, Store: filepath.Join(dir, "runs.db")}, model.srv.URL())
	var samples []any
	for i := range 6 {
		samples = append(samples, map[string]any{"id": fmt.Sprint("s", i), "question": "When was the Eiffel Tower completed?",
			"answer": "It was completed in 1889.", "contexts": []string{"The Eiffel Tower was completed in 1889."}})
	}
	first, err := New(cfg)
	require.NoError(t, err)
	require.NoError(t, first.Start(t.Context()))
	ts := httptest.NewServer(first.Handler())
	code, body := call(t, http.MethodPost, ts.URL+"/v1/runs", mustJSON(t, map[string]any{"metrics": []string{"faithfulness"}, "samples": samples}))
	require.Equal(t, http.StatusAccepted, code, body)
	var st RunStatus
	require.NoError(t, json.Unmarshal([]byte(body), &st))
	assert.Equal(t, 6, st.Records)
	// Wait until the run has begun (its config written), then stop.
	deadline := time.Now().Add(30 * time.Second)
	for st.State != RunRunning || st.Total == 0 {
		require.True(t, time.Now().Before(deadline), "the run never began: %+v", st)
		_, body = call(t, http.MethodGet, ts.URL+"/v1/runs/"+st.ID, "")
		require.NoError(t, json.Unmarshal([]byte(body), &st))
		time.Sleep(5 * time.Millisecond)
	}
	ts.Close()
	require.NoError(t, first.Close())

	model.hold.Store(false)
	second := start(t, cfg)
	for st.State != RunDone {
		require.True(t, time.Now().Before(deadline), "the run never finished: %+v", st)
		_, body = call(t, http.MethodGet, second.URL+"/v1/runs/"+st.ID, "")
		require.NoError(t, json.Unmarshal([]byte(body), &st))
		time.Sleep(5 * time.Millisecond)
	}
	require.NotNil(t, st.Summary, body)
	require.NotNil(t, st.Passed)
	assert.Equal(t, 6, st.Total)
	assert.Equal(t, st.ID, st.Summary.RunID, "the run store's id is the server's")
	require.Len(t, st.Summary.Metrics, 1)
	assert.Equal(t, 6, st.Summary.Metrics[0].N)
	assert.Equal(t, 6, st.Summary.Metrics[0].Scored, "no default: %v", st.Failures)
}

func TestScoreIsAssayScore(t *testing.T) {
	t.Parallel()
	s := start(t, Config{Now: func() time.Time { return time.Date(2026, 1, 2, 0, 0, 0, 0, time.UTC) }})
	report, err := readFixture("reports/pass.md")
	require.NoError(t, err)
	truth, err := readFixture("daily/truth.json")
	require.NoError(t, err)
	daily, err := readFixture("daily/en-faithful.md")
	require.NoError(t, err)
	tests := map[string]struct {
		req ScoreRequest
		job agent.ScoreJob
	}{
		"research": {req: ScoreRequest{Report: report, Query: "How does HTTP/3 differ from HTTP/2?"},
			job: agent.ScoreJob{File: "../fixtures/reports/pass.md", Query: "How does HTTP/3 differ from HTTP/2?"}},
		"daily": {req: ScoreRequest{Profile: "daily", Report: daily, Truth: json.RawMessage(truth)},
			job: agent.ScoreJob{Profile: "daily", File: "../fixtures/daily/en-faithful.md", Truth: "../fixtures/daily/truth.json"}},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			code, got := call(t, http.MethodPost, s.URL+"/v1/score", mustJSON(t, tc.req))
			require.Equal(t, http.StatusOK, code, got)
			tc.job.Now, tc.job.Judging = s.cfg.Now, judging.Default()
			out, err := agent.ScoreFile(t.Context(), tc.job)
			require.NoError(t, err)
			var want bytes.Buffer
			require.NoError(t, out.Write(&want, "json"))
			assert.Equal(t, want.String(), got)
		})
	}
}

func TestShutdownLetsRequestsFinish(t *testing.T) {
	t.Parallel()
	s, err := New(Config{DataDir: t.TempDir(), Store: filepath.Join(t.TempDir(), "runs.db")})
	require.NoError(t, err)
	entered, release := make(chan struct{}), make(chan struct{})
	s.Handle("GET /slow", http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		close(entered)
		<-release
		_, _ = io.WriteString(w, "finished")
	}))
	ln, err := (&net.ListenConfig{}).Listen(t.Context(), "tcp", "127.0.0.1:0")
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(t.Context())
	served := make(chan error, 1)
	go func() { served <- s.Serve(ctx, ln) }()
	got := make(chan string, 1)
	go func() {
		_, body := call(t, http.MethodGet, "http://"+ln.Addr().String()+"/slow", "")
		got <- body
	}()
	<-entered
	cancel() // SIGTERM, as assay serve has it
	// The listener closes first: from then on the request is in flight
	// during the shutdown.
	for {
		c, err := (&net.Dialer{}).DialContext(t.Context(), "tcp", ln.Addr().String())
		if err != nil {
			break
		}
		_ = c.Close()
		time.Sleep(time.Millisecond)
	}
	close(release)
	assert.Equal(t, "finished", <-got)
	require.NoError(t, <-served)
}

func TestWrapAndHandleAreTheMountPoints(t *testing.T) {
	t.Parallel()
	s := start(t, Config{Wrap: func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("X-Wrapped", r.URL.Path)
			next.ServeHTTP(w, r)
		})
	}})
	s.Handle("GET /extra", http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = io.WriteString(w, "extra") }))
	var seen recorder
	s.AddObserver(&seen)
	req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, s.URL+"/extra", nil)
	require.NoError(t, err)
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	require.NoError(t, resp.Body.Close())
	assert.Equal(t, "extra", string(b))
	assert.Equal(t, "/extra", resp.Header.Get("X-Wrapped"))
	code, _ := call(t, http.MethodPost, s.URL+"/v1/context-score", mustJSON(t, exampleContext))
	require.Equal(t, http.StatusOK, code)
	assert.Equal(t, 1, seen.count("context_quality"))
	_, m := call(t, http.MethodGet, s.URL+"/metrics", "")
	assert.Contains(t, m, `assay_http_requests_total{code="200",endpoint="GET /extra"} 1`)
}

// TestContextScoresAreCounted: every /v1/context-score answered is in
// /metrics, by status, and each score made among the judgements; no series
// is there before its first count.
func TestContextScoresAreCounted(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		good, bad int
		want      []string
		absent    []string
	}{
		"none yet": {absent: []string{`assay_http_requests_total{code="200",endpoint="POST /v1/context-score"}`, `metric="context_quality"`}},
		"three scored, one refused": {good: 3, bad: 1, want: []string{
			`assay_http_requests_total{code="200",endpoint="POST /v1/context-score"} 3`,
			`assay_http_requests_total{code="400",endpoint="POST /v1/context-score"} 1`,
			`assay_judgements_total{metric="context_quality",outcome="scored"} 3`,
			`assay_http_request_duration_seconds_count{endpoint="POST /v1/context-score"} 4`,
		}},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			s := start(t, Config{})
			for range tc.good {
				code, _ := call(t, http.MethodPost, s.URL+"/v1/context-score", mustJSON(t, exampleContext))
				require.Equal(t, http.StatusOK, code)
			}
			for range tc.bad {
				code, _ := call(t, http.MethodPost, s.URL+"/v1/context-score", `{"query": "q"}`)
				require.Equal(t, http.StatusBadRequest, code)
			}
			_, m := call(t, http.MethodGet, s.URL+"/metrics", "")
			for _, w := range tc.want {
				assert.Contains(t, m, w)
			}
			for _, a := range tc.absent {
				assert.False(t, strings.Contains(m, a), "%s in /metrics", a)
			}
		})
	}
}
