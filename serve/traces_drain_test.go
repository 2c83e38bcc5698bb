package serve

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/sashabaranov/go-openai"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/assaylabs/assay/internal/llmtest"
)

// TestConcurrentTracesAreJournaledAndJudgedBeforeClose posts traces from
// many clients at once, then closes the server while most of them are
// still queued: every post is answered 202 (the journal's writers queue
// in Go instead of failing on SQLite's lock), and every trace answered
// 202 is judged before Close returns, none left for a restart.
func TestConcurrentTracesAreJournaledAndJudgedBeforeClose(t *testing.T) {
	t.Parallel()
	// The model answers nothing until gate is closed: the traces pile up
	// in the queue behind the workers' first calls.
	gate := make(chan struct{})
	var gateOnce sync.Once
	open := func() { gateOnce.Do(func() { close(gate) }) }
	t.Cleanup(open)
	model := llmtest.New(t, llmtest.Quiet(), llmtest.Func(func(req openai.ChatCompletionRequest) llmtest.Reply {
		<-gate
		return llmtest.JudgeReplies(req)
	}))
	dir := t.TempDir()
	// The shutdown timeout bounds a stuck test; nothing here is timed.
	cfg := withModel(Config{DataDir: dir, Store: filepath.Join(dir, "runs.db"), QueueSize: 1000, Workers: 2,
		ShutdownTimeout: 5 * time.Minute, TraceMetrics: []string{"faithfulness"}}, model.URL())
	cfg.Judging.LLM.CallTimeout, cfg.Judging.LLM.MaxRetryTime = 5*time.Minute, 5*time.Minute // the gate holds the first calls
	s, err := New(cfg)
	require.NoError(t, err)
	require.NoError(t, s.Start(t.Context()))
	ts := httptest.NewServer(s.Handler())

	const clients, posts, perPost = 16, 6, 2
	type answer struct {
		code int
		body string
		ids  []string
	}
	answers := make(chan answer, clients*posts)
	var wg sync.WaitGroup
	for c := range clients {
		wg.Go(func() {
			for p := range posts {
				var ids []string
				for k := range perPost {
					ids = append(ids, fmt.Sprintf("c%02d-p%d-t%d", c, p, k))
				}
				code, body := call(t, http.MethodPost, ts.URL+"/v1/traces", traceBody(t, ids, func(int) map[string]any { return nil }))
				answers <- answer{code, body, ids}
			}
		})
	}
	wg.Wait()
	close(answers)
	var accepted []string
	for a := range answers {
		require.Equal(t, http.StatusAccepted, a.code, a.body)
		accepted = append(accepted, a.ids...)
	}
	require.Len(t, accepted, clients*posts*perPost)
	_, metrics := call(t, http.MethodGet, ts.URL+"/metrics", "")
	assert.Contains(t, metrics, "assay_store_write_waits_total ")
	ts.Close()

	// Close while the traces are queued; the model answers only once the
	// queue has stopped taking traces, so none was judged before.
	closed := make(chan error, 1)
	go func() { closed <- s.Close() }()
	for s.queue.reserve(0) {
		time.Sleep(time.Millisecond) // polling for the stop, not timing it
	}
	open()
	require.NoError(t, <-closed)

	st, err := openStore(filepath.Join(dir, "serve.db"))
	require.NoError(t, err)
	defer func() { require.NoError(t, st.Close()) }()
	pending, err := st.pending(t.Context())
	require.NoError(t, err)
	var left []string
	for _, it := range pending {
		left = append(left, it.id)
	}
	assert.Empty(t, left, "traces answered 202 and left unjudged at Close")
	for _, id := range accepted {
		tr, err := st.trace(t.Context(), id)
		require.NoError(t, err, id)
		assert.True(t, tr.Judged, id)
		require.Len(t, tr.Scores, 1, id)
		assert.Equal(t, OutcomeScored, tr.Scores[0].Outcome, "%s: %s", id, tr.Scores[0].Error)
	}
}
