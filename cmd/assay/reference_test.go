package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/assaylabs/assay/internal/llmtest"
)

// TestReferenceMetricsInJudgeBenchAndAgree: the metrics against a
// reference and the assertions are asked for with --metric in judge,
// bench and agree alike, with a model (the fake server, embeddings on) and
// offline; the assertions make no call either way.
func TestReferenceMetricsInJudgeBenchAndAgree(t *testing.T) {
	t.Parallel()
	const data = "../../fixtures/rag/checks.jsonl"
	const metrics = "answer_correctness,factual_correctness,factual_correctness_precision,semantic_similarity,equals,contains_all,regex,json_schema,length"
	for _, withModel := range []bool{false, true} {
		name := map[bool]string{false: "offline", true: "with a model"}[withModel]
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			env := map[string]string{"ASSAY_DATA_DIR": t.TempDir(), "ASSAY_CACHE_DIR": t.TempDir()}
			var srv *llmtest.Server
			if withModel {
				srv = llmtest.New(t, llmtest.Func(llmtest.JudgeReplies))
				env["ASSAY_LLM"], env["OPENAI_BASE_URL"], env["ASSAY_EMBEDDING_MODEL"] = "openai:judge-model", srv.URL(), "text-embedding-3-small"
			}
			code, out, errOut := runEnv(t, env, "judge", "--metric", metrics, "--format", "jsonl", data)
			require.Equal(t, 0, code, errOut)
			assert.Contains(t, errOut, "neutral defaults 0")
			methods := map[string]string{}
			for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
				var r struct{ ID, Metric, Method string }
				require.NoError(t, json.Unmarshal([]byte(line), &r), line)
				methods[r.Metric] = r.Method
			}
			assert.Equal(t, "assertion", methods["json_schema"])
			if withModel {
				assert.Equal(t, "llm:openai:judge-model (statements+embeddings)", methods["answer_correctness"])
				assert.Equal(t, "llm:openai:judge-model (embeddings)", methods["semantic_similarity"])
				assert.Positive(t, srv.EmbedCalls())
			} else {
				assert.Equal(t, "offline (approximate)", methods["answer_correctness"])
			}

			dir := filepath.Join(t.TempDir(), "run")
			code, _, errOut = runEnv(t, env, "bench", "-q", "--metric", metrics, "--gate", "equals.pass_rate>=0.25", "--out", dir, data)
			require.Equal(t, 0, code, errOut)
			b, err := os.ReadFile(filepath.Join(dir, "summary.json"))
			require.NoError(t, err)
			for _, m := range strings.Split(metrics, ",") {
				assert.Contains(t, string(b), `"`+m+`"`, "summary.json has %s", m)
			}

			code, out, errOut = runEnv(t, env, "agree", "-q", "--metric", "contains_all,factual_correctness", "--label", "correct", data)
			require.Equal(t, 0, code, errOut)
			assert.Contains(t, out, "| contains_all | correct | 4 (3/1) |")
			assert.Contains(t, out, "| factual_correctness | correct | 4 (3/1) |")
		})
	}
}

// TestAssertionArgumentMissingIsExit2: a record without an assertion's
// argument stops the run before any work, naming file, line and field.
func TestAssertionArgumentMissingIsExit2(t *testing.T) {
	t.Parallel()
	file := filepath.Join(t.TempDir(), "data.jsonl")
	require.NoError(t, os.WriteFile(file, []byte(
		`{"id":"a","question":"q","answer":"2025-01-02","reference":"2025-01-02","metadata":{"regex":"^\\d{4}"}}`+"\n"+
			`{"id":"b","question":"q","answer":"soon","reference":"2025-01-03"}`+"\n"), 0o644))
	tests := map[string]struct {
		args []string
		err  string
	}{
		"regex without its pattern":        {[]string{"judge", "--metric", "regex", file}, file + ":2: metadata.regex: missing"},
		"bench, too":                       {[]string{"bench", "--metric", "equals,regex", "--out", filepath.Join(t.TempDir(), "r"), file}, file + ":2: metadata.regex: missing"},
		"answer correctness, no reference": {[]string{"judge", "--metric", "answer_correctness", "-"}, "<stdin>:1: reference: answer_correctness: sample has no reference answer"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			var code int
			var errOut string
			if tc.args[len(tc.args)-1] == "-" {
				code, _, errOut = runCLI(t, `{"question":"q","answer":"a"}`, tc.args...)
			} else {
				code, _, errOut = runEnv(t, map[string]string{"ASSAY_DATA_DIR": t.TempDir()}, tc.args...)
			}
			assert.Equal(t, exitInput, code)
			assert.Contains(t, errOut, tc.err)
		})
	}
}
