package main

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/assaylabs/assay/internal/llmtest"
)

// TestBadKeyExits3: the first 401 stops the run at once, with exit 3 and
// the server's message; no later call is sent.
func TestBadKeyExits3(t *testing.T) {
	t.Parallel()
	bad := llmtest.Reply{Status: 401, Body: `{"error":{"message":"Incorrect API key provided: sk-bad","type":"invalid_request_error","code":"invalid_api_key"}}`}
	tests := map[string][]string{
		"judge": {"judge", "--metric", "faithfulness", "--format", "json"},
		"agree": {"agree", "--metric", "faithfulness", "--label", "faithful"},
	}
	for name, args := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			srv := llmtest.New(t, llmtest.Default(bad))
			env := map[string]string{"ASSAY_LLM": "openai:judge-model", "OPENAI_BASE_URL": srv.URL()}
			args = append(args, "--no-cache", "--concurrency", "1", "../../fixtures/rag/labelled.jsonl")
			code, _, errOut := runEnv(t, env, args...)
			assert.Equal(t, exitInfra, code, errOut)
			assert.Contains(t, errOut, "refused the credentials")
			assert.Contains(t, errOut, "status 401: Incorrect API key provided: sk-bad")
			assert.Equal(t, 1, srv.Calls(), "one call, for six records")
		})
	}
}

// TestHungServerFailsFast: a server that never answers is taken as down
// after three timed-out attempts; every later call fails at once, its
// judge's default naming the cause, instead of each waiting out its
// --call-timeout and retries.
func TestHungServerFailsFast(t *testing.T) {
	t.Parallel()
	srv := llmtest.New(t, llmtest.Default(llmtest.Reply{Delay: time.Hour}))
	env := map[string]string{"ASSAY_LLM": "openai:judge-model", "OPENAI_BASE_URL": srv.URL()}
	code, out, errOut := runEnv(t, env, "judge", "--strict", "--no-cache", "--concurrency", "2", "--call-timeout", "100ms",
		"--metric", "source_relevance", "--format", "json", "../../fixtures/rag/labelled.jsonl")
	assert.Equal(t, exitInfra, code, errOut)
	var results []judgeResult
	require.NoError(t, json.Unmarshal([]byte(out), &results))
	require.Len(t, results, 6)
	for _, r := range results {
		assert.True(t, r.Defaulted, r.ID)
		assert.Contains(t, r.Error, "model server unreachable: ", r.ID)
		assert.Contains(t, r.Error, "context deadline exceeded", r.ID)
	}
	assert.LessOrEqual(t, srv.Calls(), 2+2, "the calls in flight, and one per slot freed before the verdict")
	assert.Contains(t, errOut, "neutral defaults 6")
}
