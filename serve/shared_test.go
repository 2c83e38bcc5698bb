package serve

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sashabaranov/go-openai"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/assaylabs/assay/bench"
	"github.com/assaylabs/assay/eval"
	"github.com/assaylabs/assay/internal/llmtest"
	"github.com/assaylabs/assay/judging"
	"github.com/assaylabs/assay/llm/setup"
	"github.com/assaylabs/assay/queue"
)

// markedModel is an OpenAI-compatible fake that counts the requests it
// answers for each trace, by the marker (tq-NNN) in the trace's question.
type markedModel struct {
	url string
	mu  sync.Mutex
	by  map[string]int
}

var traceMarker = regexp.MustCompile(`tq-[a-z0-9]+`)

func newMarkedModel(t *testing.T) *markedModel {
	m := &markedModel{by: map[string]int{}}
	srv := llmtest.New(t, llmtest.Quiet(), llmtest.Func(func(req openai.ChatCompletionRequest) llmtest.Reply {
		var text strings.Builder
		for _, msg := range req.Messages {
			text.WriteString(msg.Content)
		}
		if mk := traceMarker.FindString(text.String()); mk != "" {
			m.mu.Lock()
			m.by[mk]++
			m.mu.Unlock()
		}
		return llmtest.JudgeReplies(req)
	}))
	m.url = srv.URL()
	return m
}

func (m *markedModel) counts() map[string]int {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make(map[string]int, len(m.by))
	for k, v := range m.by {
		out[k] = v
	}
	return out
}

func (m *markedModel) env(k string) string {
	return map[string]string{"OPENAI_BASE_URL": m.url, "OPENAI_API_KEY": "test"}[k]
}

// sharedJudging is the model client of the replicas and the workers: the
// same judges, so the workers take the replicas' tasks.
func sharedJudging() judging.Config {
	j := judging.Default()
	j.LLM = setup.Config{Spec: "openai:gpt-4o-mini", NoCache: true, Concurrency: 4, CallTimeout: 5 * time.Second, MaxRetryTime: 10 * time.Second}
	return j
}

// callsPerTrace is how many model requests judging one trace with the
// default trace metrics takes, judged directly (no queue).
func callsPerTrace(t *testing.T, m *markedModel) int {
	j, err := bench.OpenJudger(sharedJudging(), nil, nil, m.env)
	require.NoError(t, err)
	defer func() { _ = j.Close() }()
	scores, err := j.Judge(t.Context(), markedSample("tq-cal"), defaultTraceMetrics)
	require.NoError(t, err)
	for _, sc := range scores {
		require.False(t, sc.Defaulted, "%s: %v", sc.Metric, sc.Err)
	}
	n := m.counts()["tq-cal"]
	require.Positive(t, n)
	return n
}

func markedSample(marker string) eval.Sample {
	return eval.Sample{Query: "What does study " + marker + " find about sleep?",
		Answer:  "Study " + marker + " finds that sleep helps memory. Participants slept eight hours.",
		Sources: []eval.Source{{Text: "Study " + marker + " reports that sleep consolidates memory in adults."}}}
}

// markedBody is a POST /v1/traces body of the traces named by ids, whose
// questions carry their ids as markers.
func markedBody(t *testing.T, ids ...string) string {
	var traces []any
	for i, id := range ids {
		s := markedSample(id)
		traces = append(traces, map[string]any{"trace_id": id, "sample": map[string]any{
			"question": s.Query, "answer": s.Answer, "contexts": []string{s.Sources[0].Text},
			"metadata": map[string]any{"tenant": []string{"a", "b"}[i%2]},
		}})
	}
	return mustJSON(t, map[string]any{"traces": traces})
}

// natsFor starts an embedded NATS server listening on loopback.
func natsFor(t *testing.T) string {
	srv, err := queue.StartServer(queue.ServerConfig{StoreDir: t.TempDir(), Listen: "127.0.0.1:-1"})
	require.NoError(t, err)
	t.Cleanup(srv.Close)
	return srv.URL()
}

// replica is a serve replica on a loopback port sharing the queue at url.
type replica struct {
	*Server
	ts     *httptest.Server
	killed bool
}

func newReplica(t *testing.T, url string, m *markedModel) *replica {
	return newReplicaOf(t, Config{Queue: url, Env: m.env})
}

// newReplicaOf is a replica of cfg (its Queue and Env set), in a data
// folder of its own unless cfg names one, with the workers' judges and an
// alert window of 10.
func newReplicaOf(t *testing.T, cfg Config) *replica {
	if cfg.DataDir == "" {
		cfg.DataDir = t.TempDir()
	}
	cfg.Store = filepath.Join(cfg.DataDir, "runs.db")
	cfg.Judging, cfg.AlertWindow, cfg.ShutdownTimeout = sharedJudging(), 10, 10*time.Second
	s, err := New(cfg)
	require.NoError(t, err)
	require.NoError(t, s.Start(t.Context()))
	r := &replica{Server: s, ts: httptest.NewServer(s.Handler())}
	t.Cleanup(r.kill)
	return r
}

// kill stops the replica abruptly: its connections are cut (requests in
// flight end without an answer), then it is closed.
func (r *replica) kill() {
	if r.killed {
		return
	}
	r.killed = true
	r.ts.CloseClientConnections()
	r.ts.Close()
	_ = r.Close()
}

// startWorkers runs n `assay worker` loops (bench.Work) on the queue at
// url until the test ends.
func startWorkers(t *testing.T, url string, env func(string) string, n int) {
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	for range n {
		wg.Go(func() {
			err := bench.Work(ctx, bench.WorkerJob{URL: url, Judging: sharedJudging(), Env: env, Concurrency: 4})
			if err != nil && ctx.Err() == nil {
				t.Errorf("worker: %v", err)
			}
		})
	}
	t.Cleanup(func() {
		cancel()
		wg.Wait()
	})
}

// post posts body to the replica, and returns the status and the answer
// (a zero answer when the connection failed).
func post(r *replica, body string) (int, TracesResponse, error) {
	req, err := http.NewRequestWithContext(context.Background(), http.MethodPost, r.ts.URL+"/v1/traces", strings.NewReader(body))
	if err != nil {
		return 0, TracesResponse{}, err
	}
	resp, err := r.ts.Client().Do(req)
	if err != nil {
		return 0, TracesResponse{}, err
	}
	defer func() { _ = resp.Body.Close() }()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return 0, TracesResponse{}, err
	}
	var out TracesResponse
	if resp.StatusCode == http.StatusAccepted {
		err = json.Unmarshal(b, &out)
	}
	return resp.StatusCode, out, err
}

// resultKeys are the trace results in the queue's bucket, by key.
func resultKeys(t *testing.T, r *replica) map[string]int {
	entries, err := r.shared.conn.Entries(t.Context(), traceKeyPrefix+">")
	require.NoError(t, err)
	out := map[string]int{}
	for _, e := range entries {
		out[e.Key]++
	}
	return out
}

func applied(r *replica) int {
	r.shared.mu.Lock()
	defer r.shared.mu.Unlock()
	return r.shared.applied
}

// TestReplicasShareOneQueue: two replicas and two workers on one NATS
// server. Traces posted to either (one of them twice, to the other) are
// each judged once: the model is asked for each trace exactly what one
// judgement takes, and the bucket holds one result per trace and metric.
// Both replicas answer the same for each trace and the summary, and
// their monitors, fed from the same ordered results, hold the same
// windows.
func TestReplicasShareOneQueue(t *testing.T) {
	t.Parallel()
	m := newMarkedModel(t)
	per := callsPerTrace(t, m)
	url := natsFor(t)
	a, b := newReplica(t, url, m), newReplica(t, url, m)
	startWorkers(t, url, m.env, 2)

	const n = 24
	var ids []string
	for i := range n {
		ids = append(ids, fmt.Sprintf("tq-%03d", i))
	}
	for i := 0; i < n; i += 2 {
		to := []*replica{a, b}[i/2%2]
		code, resp, err := post(to, markedBody(t, ids[i], ids[i+1]))
		require.NoError(t, err)
		require.Equal(t, http.StatusAccepted, code)
		assert.Equal(t, TracesResponse{Received: 2, Sampled: 2}, resp)
	}
	// The same trace again, to the other replica: a duplicate.
	code, resp, err := post(b, markedBody(t, ids[0]))
	require.NoError(t, err)
	require.Equal(t, http.StatusAccepted, code)
	assert.Equal(t, TracesResponse{Received: 1, Duplicates: 1}, resp)

	want := n * len(defaultTraceMetrics)
	for _, r := range []*replica{a, b} {
		eventually(t, "every result applied", func() bool { return applied(r) >= want })
	}
	keys := resultKeys(t, a)
	require.Len(t, keys, want)
	counts := m.counts()
	for _, id := range ids {
		assert.Equal(t, per, counts[id], "model requests for trace %s", id)
		for _, metric := range defaultTraceMetrics {
			assert.Equal(t, 1, keys[traceKey(id, metric)], "results of %s %s", id, metric)
		}
	}
	assert.Equal(t, want, applied(a), "results applied once")
	assert.Equal(t, want, applied(b), "results applied once")

	for _, id := range []string{ids[0], ids[7], ids[n-1]} {
		codeA, bodyA := call(t, http.MethodGet, a.ts.URL+"/v1/traces/"+id, "")
		codeB, bodyB := call(t, http.MethodGet, b.ts.URL+"/v1/traces/"+id, "")
		require.Equal(t, http.StatusOK, codeA, bodyA)
		require.Equal(t, http.StatusOK, codeB, bodyB)
		assert.JSONEq(t, bodyA, bodyB)
		var tr Trace
		require.NoError(t, json.Unmarshal([]byte(bodyA), &tr))
		assert.True(t, tr.Judged)
		assert.Equal(t, defaultTraceMetrics, tr.Metrics)
		require.Len(t, tr.Scores, len(defaultTraceMetrics))
		for _, sc := range tr.Scores {
			assert.Equal(t, OutcomeScored, sc.Outcome, "%s %s: %s", id, sc.Metric, sc.Error)
		}
	}
	code, body := call(t, http.MethodGet, a.ts.URL+"/v1/traces/tq-none", "")
	assert.Equal(t, http.StatusNotFound, code, body)

	_, sumA := call(t, http.MethodGet, a.ts.URL+"/v1/traces/summary?by=tenant", "")
	_, sumB := call(t, http.MethodGet, b.ts.URL+"/v1/traces/summary?by=tenant", "")
	assert.JSONEq(t, sumA, sumB)
	var sum TraceSummary
	require.NoError(t, json.Unmarshal([]byte(sumA), &sum))
	total := 0
	for _, g := range sum.Groups {
		total += g.N
		require.NotNil(t, g.Group)
		assert.Contains(t, []string{"a", "b"}, *g.Group)
	}
	assert.Equal(t, want, total)

	snapA, snapB := a.Live().Snapshot(), b.Live().Snapshot()
	require.Len(t, snapA.Metrics, len(snapB.Metrics))
	for i, ma := range snapA.Metrics {
		mb := snapB.Metrics[i]
		assert.Equal(t, ma.Metric, mb.Metric)
		assert.Equal(t, 10, ma.N, "%s: a full window", ma.Metric)
		assert.Equal(t, ma.N, mb.N, ma.Metric)
		assert.Equal(t, ma.Mean, mb.Mean, "%s: the windows' means", ma.Metric)
		assert.Equal(t, ma.Baseline, mb.Baseline, "%s: the first windows' means", ma.Metric)
		assert.Equal(t, ma.Observed, mb.Observed, ma.Metric)
	}
}

// TestAKilledReplicaLosesNoAcceptedTrace: posters send traces to replica
// a, and to b once a is gone; a is killed abruptly in the middle. Every
// trace either answered 202 is judged once: its results are in the
// bucket, b shows it judged, and the model was asked for it what one
// judgement takes, no more.
func TestAKilledReplicaLosesNoAcceptedTrace(t *testing.T) {
	t.Parallel()
	m := newMarkedModel(t)
	per := callsPerTrace(t, m)
	url := natsFor(t)
	a, b := newReplica(t, url, m), newReplica(t, url, m)
	startWorkers(t, url, m.env, 2)

	const n, posters, killAfter = 60, 4, 12
	var mu sync.Mutex
	accepted := map[string]bool{}
	fromA := 0
	var dying atomic.Bool
	killed := make(chan struct{})
	kill := func() {
		dying.Store(true)
		a.kill()
		close(killed)
	}
	var killOnce sync.Once
	var wg sync.WaitGroup
	for p := range posters {
		wg.Go(func() {
			for i := p; i < n; i += posters {
				id := fmt.Sprintf("tq-k%03d", i)
				body := markedBody(t, id)
				code, _, err := post(a, body)
				viaA := code == http.StatusAccepted && err == nil
				if !viaA {
					if !dying.Load() {
						t.Errorf("replica a, before it was killed: %d %v", code, err)
						return
					}
					// a is gone: the load balancer sends the trace on.
					<-killed
					if code, _, err = post(b, body); code != http.StatusAccepted || err != nil {
						t.Errorf("replica b: %d %v", code, err)
						return
					}
				}
				mu.Lock()
				accepted[id] = true
				if viaA {
					if fromA++; fromA == killAfter {
						killOnce.Do(func() { go kill() })
					}
				}
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	killOnce.Do(kill)
	<-killed
	require.Len(t, accepted, n)
	t.Logf("%d traces accepted by a before it was killed", fromA)

	eventually(t, "every accepted trace judged", func() bool {
		keys := resultKeys(t, b)
		for id := range accepted {
			for _, metric := range defaultTraceMetrics {
				if keys[traceKey(id, metric)] != 1 {
					return false
				}
			}
		}
		return true
	})
	counts := m.counts()
	for id := range accepted {
		assert.Equal(t, per, counts[id], "model requests for trace %s", id)
		tr, err := b.Trace(t.Context(), id)
		require.NoError(t, err)
		assert.True(t, tr.Judged, id)
	}
	eventually(t, "b applied every result", func() bool { return applied(b) >= n*len(defaultTraceMetrics) })
	assert.Equal(t, n*len(defaultTraceMetrics), applied(b))
}
