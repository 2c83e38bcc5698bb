package main

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/assaylabs/assay/internal/llmtest"
)

const labelledConversations = "../../fixtures/agents/labelled.jsonl"

// agreement is what the tests read of assay agree's JSON.
type agreement struct {
	Metric    string `json:"metric"`
	Label     string `json:"label"`
	N         int    `json:"n"`
	Positives int    `json:"positives"`
	Defaulted int    `json:"defaulted"`
	Rows      []struct {
		ID     string  `json:"id"`
		Value  float64 `json:"value"`
		Label  bool    `json:"label"`
		Method string  `json:"method"`
	} `json:"rows"`
}

// TestAgreeOnConversations: assay agree takes the conversation metrics
// unchanged, a human label per conversation, offline and with a model
// (the fake server).
func TestAgreeOnConversations(t *testing.T) {
	t.Parallel()
	srv := llmtest.New(t, llmtest.Func(llmtest.JudgeReplies))
	env := map[string]string{"ASSAY_LLM": "openai:judge-model", "OPENAI_BASE_URL": srv.URL(), "OPENAI_API_KEY": "x"}
	tests := map[string]struct {
		metric, label string
		env           map[string]string
		values        map[string]float64
	}{
		"tool call accuracy, deterministic": {"tool_call_accuracy", "tools_right", nil, map[string]float64{
			"right-paris": 1, "right-lyon": 1, "right-nice-float": 1, "wrong-city": 0.5, "wrong-day": 0.5, "no-call": 0, "duplicate": 0.5, "error-then-none": 1}},
		"trajectory, deterministic": {"trajectory_match", "tools_right", nil, map[string]float64{
			"right-paris": 1, "right-lyon": 1, "right-nice-float": 1, "wrong-city": 0, "wrong-day": 0, "no-call": 0, "duplicate": 0, "error-then-none": 1}},
		"task completion, the fake model": {"task_completion", "task_completed", env, map[string]float64{
			"right-paris": 0.75, "right-lyon": 0.75, "right-nice-float": 0.75, "wrong-city": 0.75, "wrong-day": 0.75, "no-call": 0.75, "duplicate": 0.75, "error-then-none": 0.75}},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			var out, errb bytes.Buffer
			getenv := func(k string) string { return tc.env[k] }
			code := run(context.Background(), []string{"agree", "--no-cache", "--metric", tc.metric, "--label", tc.label, "--format", "json", labelledConversations},
				getenv, strings.NewReader(""), &out, &errb)
			require.Equal(t, exitPass, code, errb.String())
			var got []agreement
			require.NoError(t, json.Unmarshal(out.Bytes(), &got), out.String())
			require.Len(t, got, 1)
			a := got[0]
			assert.Equal(t, tc.metric, a.Metric)
			assert.Equal(t, 8, a.N, "one label per conversation")
			assert.Equal(t, 4, a.Positives)
			assert.Zero(t, a.Defaulted)
			values := map[string]float64{}
			for _, r := range a.Rows {
				values[r.ID] = r.Value
				if tc.env != nil {
					assert.Equal(t, "llm:openai:judge-model", r.Method, "judged by the fake server")
				}
			}
			assert.Equal(t, tc.values, values)
		})
	}
}
