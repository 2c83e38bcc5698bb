package main

import (
	"testing"

	"github.com/sashabaranov/go-openai"
	"github.com/stretchr/testify/assert"

	"github.com/assaylabs/assay/internal/llmtest"
)

// TestScoreWithModel runs `score --llm` against a fake server: the card
// names the model, its completeness comes from the judge and its usage
// from the calls; a cached run makes no call, a dry run none either; a
// failing server or a spent --max-cost gives a card with the default
// counted, which --strict turns into exit 3.
func TestScoreWithModel(t *testing.T) {
	t.Parallel()
	report := "../../fixtures/reports/pass.md"
	fail := llmtest.Reply{Status: 400, Body: `{"error":{"message":"scripted failure","type":"invalid_request_error"}}`}
	tests := map[string]struct {
		reply    func(openai.ChatCompletionRequest) llmtest.Reply
		args     []string
		runs     int // identical runs; the checks apply to the last
		calls    int // model calls over all runs
		code     int
		stdout   []string
		stderr   []string
		noStdout []string
	}{
		"the judge runs": {
			reply: llmtest.JudgeReplies, runs: 1, calls: 1,
			stdout: []string{"judge: llm:openai:gpt-4o-mini", "completeness: 0.5/1", "defaulted_scores: 0", "llm_usage:\n  calls: 1"},
			stderr: []string{"calls 1 (retries 0, cache hits 0)"},
		},
		"json carries judge, defaults and usage": {
			reply: llmtest.JudgeReplies, args: []string{"--format", "json"}, runs: 1, calls: 1,
			stdout: []string{`"judge": "llm:openai:gpt-4o-mini"`, `"defaulted_scores": 0`, `"llm_usage": {`, `"calls": 1`},
		},
		"md carries judge, defaults and usage": {
			reply: llmtest.JudgeReplies, args: []string{"--format", "md"}, runs: 1, calls: 1,
			stdout: []string{"Judge: llm:openai:gpt-4o-mini. Neutral defaults after judge errors: 0. LLM calls: 1,"},
		},
		"a second identical run is served from the cache": {
			reply: llmtest.JudgeReplies, runs: 2, calls: 1,
			stdout: []string{"judge: llm:openai:gpt-4o-mini", "completeness: 0.5/1"},
			stderr: []string{"calls 0 (retries 0, cache hits 1)"},
		},
		"a dry run calls nothing": {
			reply: llmtest.JudgeReplies, args: []string{"--dry-run"}, runs: 1, calls: 0,
			stdout: []string{"no call made", "completeness                1"},
		},
		"a failing judge defaults and --strict exits 3": {
			reply: func(openai.ChatCompletionRequest) llmtest.Reply { return fail }, args: []string{"--strict"}, runs: 1, calls: 1, code: exitInfra,
			stdout: []string{"defaulted_scores: 1", "fell back to the neutral default"},
			stderr: []string{"neutral defaults 1", "--strict: 1 judge result(s)"},
		},
		"a tiny --max-cost stops the call and says so": {
			reply: llmtest.JudgeReplies, args: []string{"--max-cost", "0.0000001"}, runs: 1, calls: 0,
			stdout:   []string{"judge: llm:openai:gpt-4o-mini", "defaulted_scores: 1"},
			stderr:   []string{"--max-cost $0.0000001 reached: 1 call(s) were not started"},
			noStdout: []string{"llm_usage"},
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			srv := llmtest.New(t, llmtest.Func(tc.reply))
			env := map[string]string{"OPENAI_BASE_URL": srv.URL(), "ASSAY_CACHE_DIR": t.TempDir()}
			args := append([]string{"score", "--llm", "openai:gpt-4o-mini", "--now", "2026-11-23"}, tc.args...)
			args = append(args, report)
			var code int
			var stdout, stderr string
			for range tc.runs {
				code, stdout, stderr = runEnv(t, env, args...)
			}
			assert.Equal(t, tc.code, code, stderr)
			assert.Equal(t, tc.calls, srv.Calls())
			for _, s := range tc.stdout {
				assert.Contains(t, stdout, s)
			}
			for _, s := range tc.stderr {
				assert.Contains(t, stderr, s)
			}
			for _, s := range tc.noStdout {
				assert.NotContains(t, stdout, s)
			}
		})
	}
}
