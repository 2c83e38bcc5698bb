package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sashabaranov/go-openai"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/assaylabs/assay/heuristics/daily"
	"github.com/assaylabs/assay/internal/llmtest"
)

const (
	dailyDir   = "../../fixtures/daily/"
	dailyTruth = dailyDir + "truth.json"
	dailyRun   = dailyDir + "run.json"
)

func TestGoldenDaily(t *testing.T) {
	t.Parallel()
	score := func(format, report string) []string {
		return []string{"score", "--profile", "daily", "--truth", dailyTruth, "--telemetry", dailyRun, "--format", format, dailyDir + report}
	}
	tests := map[string]struct {
		args []string
		code int
	}{
		"daily-th-faithful.txt":  {score("text", "th-faithful.md"), 0},
		"daily-th-faithful.json": {score("json", "th-faithful.md"), 0},
		"daily-en-swap.json":     {score("json", "en-swap.md"), 0},
		"daily-en-format.txt":    {score("text", "en-format.md"), 0},
		"daily-th-format.yaml":   {score("yaml", "th-format.md"), 0},
		"daily-en-faithful.md":   {score("md", "en-faithful.md"), 0},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			code, out, errOut := runCLI(t, "", tc.args...)
			assert.Equal(t, tc.code, code, errOut)
			golden := filepath.Join("testdata", name+".golden")
			if *update {
				require.NoError(t, os.WriteFile(golden, []byte(out), 0o644))
			}
			want, err := os.ReadFile(golden)
			require.NoError(t, err)
			assert.Equal(t, string(want), out)
		})
	}
}

// TestDailyReviewExitsOne scores a report against a truth it contradicts:
// the gate sends it to review, names what failed, and the exit is 1.
func TestDailyReviewExitsOne(t *testing.T) {
	t.Parallel()
	truth := filepath.Join(t.TempDir(), "truth.json")
	require.NoError(t, os.WriteFile(truth, []byte(`{"values": {"uncertainty_score": 20, "atr_pct": 1.1, "vwap_pct": -8,
	  "volume_ratio": 2.5, "current_price": 150, "rsi": 30}, "percentiles": {"atr_pct": 10, "vwap_pct": 5}, "news": []}`), 0o644))
	code, out, errOut := runCLI(t, "", "score", "--profile", "daily", "--truth", truth, "--format", "json", dailyDir+"en-faithful.md")
	require.Equal(t, 1, code, errOut)
	var r daily.Result
	require.NoError(t, json.Unmarshal([]byte(out), &r))
	assert.Equal(t, daily.Review, r.Gate.Decision)
	require.NotEmpty(t, r.Gate.Failed)
	assert.True(t, strings.HasPrefix(r.Gate.Failed[0], "faithfulness_score "), r.Gate.Failed)
	assert.Contains(t, r.Faithfulness.Violations, "vwap_pct mismatch: narrative claims 43.79, actual is -8 (the report says above, the data is below)")
	assert.Contains(t, r.Faithfulness.Violations, "citation [1] is beyond the news list (0 items)")
	assert.Contains(t, r.Faithfulness.Violations, "uncertainty_score 20 interpreted as 'high' but should be 'stable'")
	assert.Nil(t, r.QoS)
}

func TestDailyBadInputs(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	write := func(name, data string) string {
		p := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(p, []byte(data), 0o644))
		return p
	}
	report := dailyDir + "th-faithful.md"
	tests := map[string]struct {
		args []string
		msg  string
	}{
		"no truth": {
			[]string{"score", "--profile", "daily", report}, "--truth: missing",
		},
		"a missing truth file": {
			[]string{"score", "--profile", "daily", "--truth", filepath.Join(dir, "nope.json"), report}, "nope.json",
		},
		"a value of the wrong type": {
			[]string{"score", "--profile", "daily", "--truth", write("t1.json", "{\n\"values\": {\n  \"rsi\": true}}"), report},
			"t1.json:3:10: values.rsi: must be a number, got bool",
		},
		"an unknown metric": {
			[]string{"score", "--profile", "daily", "--truth", write("t2.json", "{\"values\": {\n\"rsii\": 3}}"), report},
			"t2.json:2:1: values.rsii: unknown metric name",
		},
		"telemetry of the wrong type": {
			[]string{"score", "--profile", "daily", "--truth", dailyTruth, "--telemetry", write("r.json", "{\"total\": 3,\n \"errors\": \"none\"}"), report},
			"r.json:2:12: errors: must be a list, got string",
		},
		"truth without the daily profile": {
			[]string{"score", "--truth", dailyTruth, report}, "only the daily profile reads them",
		},
		"a daily profile file with a bad field": {
			[]string{"score", "--profile", write("mine.yaml", "name: mine\nkind: daily\nmetrics:\n  - name: a\n    unit: kg\n    names: {en: [a]}\n"), "--truth", dailyTruth, report},
			"mine.yaml:5: metrics[0].unit",
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			code, out, errOut := runCLI(t, "", tc.args...)
			assert.Equal(t, 2, code, errOut)
			assert.Empty(t, out)
			assert.Contains(t, errOut, tc.msg)
		})
	}
}

// TestDailyWithModelAddsTheSemanticVerdict: with a model, the reasoning
// judge's verdict is printed beside the deterministic reasoning score,
// labelled, and leaves the scores and the gate as they were.
func TestDailyWithModelAddsTheSemanticVerdict(t *testing.T) {
	t.Parallel()
	srv := llmtest.New(t, llmtest.Func(func(openai.ChatCompletionRequest) llmtest.Reply {
		return llmtest.Reply{Content: `{"clarity": 80, "coverage": 70, "specificity": 90, "alignment": 60, "minimality": 50, "consistency": 100, "issues": ["risk and advice overlap"]}`}
	}))
	env := map[string]string{"ASSAY_LLM": "openai:judge-model", "OPENAI_BASE_URL": srv.URL(), "ASSAY_CACHE_DIR": t.TempDir()}
	args := []string{"score", "--profile", "daily", "--truth", dailyTruth, "--format", "json", dailyDir + "en-faithful.md"}
	code, out, errOut := runEnv(t, env, args...)
	require.Equal(t, 0, code, errOut)
	assert.Equal(t, 1, srv.Calls())
	var r daily.Result
	require.NoError(t, json.Unmarshal([]byte(out), &r))
	require.NotNil(t, r.SemanticReasoning)
	// 0.2*80 + 0.2*70 + 0.2*90 + 0.15*60 + 0.15*50 + 0.1*100 = 74.5
	assert.InDelta(t, 74.5, r.SemanticReasoning.Score, 1e-9)
	assert.Equal(t, "llm:openai:judge-model", r.SemanticReasoning.Method)
	assert.Contains(t, r.SemanticReasoning.Label, "semantic, not in overall_quality")
	assert.InDelta(t, 100, r.Reasoning.OverallScore, 1e-9, "the deterministic score is unchanged")
	assert.Equal(t, daily.Publish, r.Gate.Decision)
	assert.Contains(t, errOut, "calls 1")

	_, text, _ := runEnv(t, env, append(args[:len(args)-3:len(args)-3], "--format", "text", dailyDir+"en-faithful.md")...)
	assert.Contains(t, text, "🤖 LLM reasoning verdict (semantic, not in overall_quality) (llm:openai:judge-model): 74.5/100")
}
