package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/assaylabs/assay/internal/llmtest"
)

// TestTheTwoRelevanciesAreTwoRunSeries: runs of answer_relevancy (RAGAS's
// generated questions, which needs an embedding model) and of
// answer_relevancy_grade (the model's direct 1-5 grade) on one dataset are
// two series in the run store: each trend holds its own runs only (a run
// of both is a point in each), and
// answer_relevancy without an embedding model is exit 2 with no call
// made and no run folder written, never a grade recorded under its name.
func TestTheTwoRelevanciesAreTwoRunSeries(t *testing.T) {
	t.Parallel()
	const data = "../../fixtures/rag/labelled.jsonl"
	srv := llmtest.New(t, llmtest.Func(llmtest.JudgeReplies))
	store := t.TempDir()
	env := func(embed string) map[string]string {
		return map[string]string{"ASSAY_LLM": "openai:judge-model", "OPENAI_BASE_URL": srv.URL(), "OPENAI_API_KEY": "test",
			"ASSAY_CACHE_DIR": t.TempDir(), "ASSAY_DATA_DIR": store, "ASSAY_EMBEDDING_MODEL": embed}
	}
	type step struct {
		metric, embed string
		code          int
		err           string // on standard error
		calls         bool   // the run called the model
		refused       bool   // the run stopped before it made its folder
	}
	steps := []step{
		{metric: "answer_relevancy", embed: "text-embedding-3-small", code: exitPass, calls: true},
		{metric: "answer_relevancy_grade", code: exitPass, calls: true},
		{metric: "answer_relevancy", code: exitInput, err: "--metric: answer_relevancy compares embeddings, and llm:openai:judge-model has no embedding model: " +
			"set ASSAY_EMBEDDING_MODEL, or ask for answer_relevancy_grade", refused: true},
		{metric: "answer_relevancy_grade", embed: "text-embedding-3-small", code: exitPass, calls: true},
		{metric: "answer_relevancy,answer_relevancy_grade", embed: "text-embedding-3-small", code: exitPass, calls: true},
	}
	for i, st := range steps {
		before := srv.Calls() + srv.EmbedCalls()
		out := filepath.Join(t.TempDir(), "run")
		code, _, errOut := runEnv(t, env(st.embed), "bench", "--metric", st.metric, "--out", out, data)
		require.Equal(t, st.code, code, "step %d: %s", i, errOut)
		assert.Contains(t, errOut, st.err, "step %d", i)
		assert.Equal(t, st.calls, srv.Calls()+srv.EmbedCalls() > before, "step %d: calls made", i)
		if st.refused {
			assert.NoDirExists(t, out, "step %d", i)
			assert.NotContains(t, errOut, "record ", "step %d: refused before any record", i)
		}
	}

	tests := map[string]struct {
		metric string
		points int
	}{
		"answer_relevancy holds its own two runs, not the refused one": {"answer_relevancy", 2},
		"answer_relevancy_grade holds its own three runs":              {"answer_relevancy_grade", 3},
		"a name is matched whole, never as a prefix":                   {"answer_relevanc", 0},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			code, stdout, stderr := runEnv(t, env(""), "runs", "trend", tc.metric, "--dataset", data, "--format", "json")
			if tc.points == 0 {
				require.Equal(t, exitInput, code, stderr)
				assert.Contains(t, stderr, "judged "+tc.metric)
				return
			}
			require.Equal(t, exitPass, code, stderr)
			assert.Equal(t, tc.points, strings.Count(stdout, `"run_id"`), stdout)
		})
	}
}
