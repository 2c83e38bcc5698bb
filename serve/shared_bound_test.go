package serve

import (
	"encoding/json"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sashabaranov/go-openai"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/assaylabs/assay/internal/llmtest"
)

// health reads the replica's /healthz.
func health(t *testing.T, r *replica) HealthResponse {
	t.Helper()
	code, body := call(t, http.MethodGet, r.ts.URL+"/healthz", "")
	require.Equal(t, http.StatusOK, code, body)
	var h HealthResponse
	require.NoError(t, json.Unmarshal([]byte(body), &h))
	return h
}

// TestSharedQueueSheds: the shared stream of trace tasks is bounded at 5
// (one task per trace and metric, two metrics a trace). With no worker
// yet, two traces fill four places; a third gets the fifth place for one
// of its tasks and is refused, 429, counted as shed on the replica that
// answered, and so is any trace on the other replica, while /healthz and
// /metrics show the stream's depth on both. A request that could never
// fit is 413. Once workers drain the stream, the refused traces sent
// again are accepted, and every accepted trace is judged once: the model
// asked for each what one judgement takes, the half of the third kept
// the first time not judged twice.
func TestSharedQueueSheds(t *testing.T) {
	t.Parallel()
	m := newMarkedModel(t)
	per := callsPerTrace(t, m)
	url := natsFor(t)
	const bound = 5
	a := newReplicaOf(t, Config{Queue: url, Env: m.env, QueueSize: bound})
	b := newReplicaOf(t, Config{Queue: url, Env: m.env, QueueSize: bound})

	for _, id := range []string{"tq-s0", "tq-s1"} {
		code, resp, err := post(a, markedBody(t, id))
		require.NoError(t, err)
		require.Equal(t, http.StatusAccepted, code)
		assert.Equal(t, 1, resp.Sampled)
	}
	refused := []struct {
		to *replica
		id string
	}{{a, "tq-s2"}, {b, "tq-s3"}, {b, "tq-s4"}}
	for _, tc := range refused {
		code, _, err := post(tc.to, markedBody(t, tc.id))
		require.NoError(t, err)
		assert.Equal(t, http.StatusTooManyRequests, code, tc.id)
	}
	for _, tc := range []struct {
		r    *replica
		shed float64
	}{{a, 1}, {b, 2}} {
		assert.Equal(t, HealthResponse{Status: "ok", Judge: tc.r.judger.Session().Judge(), QueueDepth: bound, QueueSize: bound, MaxInFlight: defaultInFlight}, health(t, tc.r))
		fams := scrape(t, tc.r.ts.URL)
		for _, want := range []struct {
			family string
			labels []string
			v      float64
		}{
			{"assay_shed_total", []string{"endpoint", routeTraces, "reason", ShedQueueFull}, tc.shed},
			{"assay_traces_total", []string{"decision", "shed"}, tc.shed},
			{"assay_trace_queue_depth", nil, bound},
			{"assay_trace_queue_capacity", nil, bound},
		} {
			got, ok := sample(fams, want.family, want.labels...)
			assert.True(t, ok, "%s%v", want.family, want.labels)
			assert.InDelta(t, want.v, got, 1e-9, "%s%v", want.family, want.labels)
		}
	}
	code, body := call(t, http.MethodPost, a.ts.URL+"/v1/traces", markedBody(t, "tq-x0", "tq-x1", "tq-x2"))
	assert.Equal(t, http.StatusRequestEntityTooLarge, code, body)

	startWorkers(t, url, m.env, 1)
	eventually(t, "the stream drained", func() bool { return health(t, a).QueueDepth == 0 })
	for _, tc := range refused {
		code, resp, err := post(tc.to, markedBody(t, tc.id))
		require.NoError(t, err)
		require.Equal(t, http.StatusAccepted, code, tc.id)
		assert.Equal(t, TracesResponse{Received: 1, Sampled: 1}, resp, "%s: not every task of it was there", tc.id)
	}
	ids := []string{"tq-s0", "tq-s1", "tq-s2", "tq-s3", "tq-s4"}
	eventually(t, "every accepted trace judged", func() bool {
		keys := resultKeys(t, b)
		for _, id := range ids {
			for _, metric := range defaultTraceMetrics {
				if keys[traceKey(id, metric)] != 1 {
					return false
				}
			}
		}
		return true
	})
	counts := m.counts()
	for _, id := range ids {
		assert.Equal(t, per, counts[id], "model requests for trace %s", id)
	}
	for _, id := range []string{"tq-x0", "tq-x1", "tq-x2"} {
		assert.Zero(t, counts[id], "%s: its request was refused whole", id)
	}
	assert.Equal(t, 0, health(t, b).QueueDepth)
}

// gatedModel is a fake model that holds every reply until released, and
// says when the first request came.
type gatedModel struct {
	env     func(string) string
	arrived chan struct{}
	release func()
}

func newGatedModel(t *testing.T) *gatedModel {
	gate, arrived := make(chan struct{}), make(chan struct{})
	var arrive, open sync.Once
	srv := llmtest.New(t, llmtest.Quiet(), llmtest.Func(func(req openai.ChatCompletionRequest) llmtest.Reply {
		arrive.Do(func() { close(arrived) })
		<-gate
		return llmtest.JudgeReplies(req)
	}))
	g := &gatedModel{env: withModel(Config{}, srv.URL()).Env, arrived: arrived, release: func() { open.Do(func() { close(gate) }) }}
	t.Cleanup(g.release) // before the server closes: no reply stays held
	return g
}

// TestAcceptedTraceNotJudgedYet: a trace accepted by one replica and
// held at the model by a worker is shown by both replicas, judged:false,
// with its metrics, day and metadata and no score yet, as the journal
// shows one without a shared queue; once the model answers, both show it
// judged.
func TestAcceptedTraceNotJudgedYet(t *testing.T) {
	t.Parallel()
	g := newGatedModel(t)
	url := natsFor(t)
	a := newReplicaOf(t, Config{Queue: url, Env: g.env})
	b := newReplicaOf(t, Config{Queue: url, Env: g.env})
	body := traceBody(t, []string{"held-1"}, func(int) map[string]any { return map[string]any{"tenant": "acme"} })

	// Waiting on the stream, no worker yet; then taken by one, its
	// judgement held.
	code, answer := call(t, http.MethodPost, a.ts.URL+"/v1/traces", body)
	require.Equal(t, http.StatusAccepted, code, answer)
	check := func(when string) {
		t.Helper()
		var first string
		for _, r := range []*replica{a, b} {
			code, got := call(t, http.MethodGet, r.ts.URL+"/v1/traces/held-1", "")
			require.Equal(t, http.StatusOK, code, "%s: %s", when, got)
			var tr Trace
			require.NoError(t, json.Unmarshal([]byte(got), &tr))
			assert.False(t, tr.Judged, when)
			assert.Equal(t, defaultTraceMetrics, tr.Metrics, when)
			assert.Equal(t, map[string]any{"tenant": "acme"}, tr.Metadata, when)
			assert.NotEmpty(t, tr.Received, when)
			assert.True(t, strings.HasPrefix(tr.Received, tr.Day), when)
			assert.Empty(t, tr.Scores, when)
			if first == "" {
				first = got
			} else {
				assert.JSONEq(t, first, got, "%s: both replicas answer alike", when)
			}
		}
	}
	check("waiting")
	startWorkers(t, url, g.env, 1)
	select {
	case <-g.arrived:
	case <-time.After(time.Minute):
		t.Fatal("no worker asked the model within a minute")
	}
	check("being judged")

	g.release()
	for _, r := range []*replica{a, b} {
		eventually(t, "judged", func() bool {
			tr, err := r.Trace(t.Context(), "held-1")
			require.NoError(t, err)
			return tr.Judged
		})
		tr, err := r.Trace(t.Context(), "held-1")
		require.NoError(t, err)
		assert.Len(t, tr.Scores, len(defaultTraceMetrics))
	}
	code, got := call(t, http.MethodGet, a.ts.URL+"/v1/traces/never-sent", "")
	assert.Equal(t, http.StatusNotFound, code, got)
}
