package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestDeterministicMetricsTakeMetricFlag: the deterministic metrics that a
// RAG sample carries what they need for (the token-overlap baseline and
// grounding) are asked for with --metric like the judges; the others are
// refused, naming those that are taken.
func TestDeterministicMetricsTakeMetricFlag(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		stdin string
		args  []string
		code  int
		out   []string
		err   string
		once  string // a line stdout holds exactly once
	}{
		"judge token_overlap": {
			args: []string{"judge", "--metric", "token_overlap", "--format", "text", "../../fixtures/rag/eiffel.json"},
			out:  []string{"eiffel token_overlap 0.6316 (0.6316/1) [baseline]", "63% of the answer's tokens occur in the contexts"},
		},
		"judge grounding: an answer that cites nothing": {
			args: []string{"judge", "--metric", "grounding", "--format", "text", "../../fixtures/rag/eiffel.json"},
			out:  []string{"eiffel grounding 0.000 (0/5) [heuristic]", "0 of 3 claims cited"},
		},
		"judge grounding: an answer that cites its source": {
			stdin: `{"id":"cited","question":"When was it completed?","answer":"The tower was completed in 1889 ([source](https://example.org/eiffel \"completed in 1889\")).","contexts":["It was completed in 1889."]}`,
			args:  []string{"judge", "--metric", "grounding", "--format", "text", "-"},
			out:   []string{"cited grounding 1.000 (5/5) [heuristic]", "the 1 claim is cited"},
		},
		"with a judge, one table": {
			args: []string{"judge", "--metric", "faithfulness,token_overlap", "--format", "text", "../../fixtures/rag/eiffel.json"},
			out:  []string{"eiffel faithfulness", "eiffel token_overlap 0.6316"},
		},
		"token_overlap needs contexts": {
			stdin: `{"question":"q","answer":"It is tall."}`,
			args:  []string{"judge", "--metric", "token_overlap", "-"},
			code:  exitInput, err: "token_overlap: sample has no contexts or sources",
		},
		"clarity is a report's": {
			args: []string{"judge", "--metric", "clarity", "../../fixtures/rag/eiffel.json"},
			code: exitInput, err: `unknown metric "clarity" (have answer_correctness, answer_relevancy, answer_relevancy_grade, completeness, contains, contains_all, contains_any, context_precision, context_recall, conversation_relevancy, equals, factual_correctness, factual_correctness_precision, factual_correctness_recall, faithfulness, grounding, is_json, json_schema, knowledge_retention, length, reasoning, regex, role_adherence, semantic_similarity, source_relevance, task_completion, token_overlap, tool_call_accuracy, tool_call_errors, tool_call_f1, tool_call_loops, trajectory_match)`,
		},
		"a value is no metric": {
			args: []string{"judge", "--metric", "retrieval_confidence", "../../fixtures/rag/eiffel.json"},
			code: exitInput, err: `unknown metric "retrieval_confidence"`,
		},
		"agree: the baseline of token_overlap is itself, one row": {
			args: []string{"agree", "--metric", "token_overlap", "--label", "faithful", "--baseline", "../../fixtures/rag/labelled.jsonl"},
			once: "| token_overlap | faithful | 6 (3/3) | 0 | 0 | 0 | 0.778 | 0.8 |",
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			code, out, errOut := runCLI(t, tc.stdin, tc.args...)
			require.Equal(t, tc.code, code, errOut)
			for _, w := range tc.out {
				assert.Contains(t, out, w)
			}
			if tc.err != "" {
				assert.Contains(t, errOut, tc.err)
			}
			if tc.once != "" {
				assert.Equal(t, 1, strings.Count(out, tc.once), out)
			}
		})
	}
}

// TestBenchTakesDeterministicMetrics: a bench run of deterministic metrics
// keeps their results and summary, and makes no call.
func TestBenchTakesDeterministicMetrics(t *testing.T) {
	t.Parallel()
	out := filepath.Join(t.TempDir(), "run")
	env := map[string]string{"ASSAY_DATA_DIR": t.TempDir()}
	code, _, errOut := runEnv(t, env, "bench", "-q", "--metric", "token_overlap,grounding", "--out", out, "../../fixtures/rag/labelled.jsonl")
	require.Equal(t, 0, code, errOut)
	b, err := os.ReadFile(filepath.Join(out, "summary.json"))
	require.NoError(t, err)
	var s struct {
		Metrics []struct {
			Metric string `json:"metric"`
			N      int    `json:"n"`
		} `json:"metrics"`
	}
	require.NoError(t, json.Unmarshal(b, &s))
	got := map[string]int{}
	for _, m := range s.Metrics {
		got[m.Metric] = m.N
	}
	assert.Equal(t, map[string]int{"token_overlap": 6, "grounding": 6}, got)
	assert.Contains(t, errOut, "calls 0")
}
