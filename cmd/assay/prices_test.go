package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/assaylabs/assay/internal/llmtest"
)

// TestPricesAreReadStrictly: a typo in --prices (input for in) used to
// price every call at $0 and switch --max-cost off, so that the run went
// on under a budget it never counted; now it is exit 2 naming the file,
// the line and the key, before any call. A model the table lacks is
// named once, and its cost shown as unknown, never as $0.0000.
func TestPricesAreReadStrictly(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	typo := filepath.Join(dir, "typo.yaml")
	require.NoError(t, os.WriteFile(typo, []byte("judge-model:\n  input: 5\n  output: 10\n"), 0o600))
	tests := map[string]struct {
		args    []string
		code    int
		stderr  []string
		nothing string // not in stderr
		called  bool
	}{
		"a typo under a budget is exit 2": {
			args: []string{"--prices", typo, "--max-cost", "0.0001"}, code: exitInput,
			stderr: []string{"assay: --prices: " + typo + `:2:3: judge-model.input: unknown key "input": a price has in and out`},
		},
		"a typo without a budget is exit 2": {
			args: []string{"--prices", typo}, code: exitInput,
			stderr: []string{typo + ":2:3: judge-model.input: "},
		},
		"an unpriced model's cost is unknown": {
			code: exitPass, called: true, nothing: "$0.0000",
			stderr: []string{
				"assay: model judge-model is not in the price table, so the cost of its calls is unknown; give --prices FILE",
				", cost unknown; neutral defaults 0",
			},
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			srv := llmtest.New(t, llmtest.Func(llmtest.JudgeReplies))
			env := map[string]string{"ASSAY_LLM": "openai:judge-model", "OPENAI_BASE_URL": srv.URL(), "ASSAY_DATA_DIR": t.TempDir()}
			args := append([]string{"judge", "--no-cache", "--metric", "faithfulness", "--format", "jsonl"}, tc.args...)
			code, _, errOut := runEnv(t, env, append(args, "../../fixtures/rag/labelled.jsonl")...)
			assert.Equal(t, tc.code, code, errOut)
			for _, s := range tc.stderr {
				assert.Contains(t, errOut, s)
			}
			assert.LessOrEqual(t, strings.Count(errOut, "is not in the price table"), 1, "named once")
			if tc.nothing != "" {
				assert.NotContains(t, errOut, tc.nothing)
			}
			assert.Equal(t, tc.called, srv.Calls() > 0, "calls made: %d", srv.Calls())
		})
	}
}

// TestResumeComparesPrices: --resume at other --prices used to go on,
// mixing costs at the old and the new prices in one run; now the run
// keeps its models' prices in config.json and a resume at others is
// refused (exit 2), naming the model and both prices.
func TestResumeComparesPrices(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	cheap, dear := filepath.Join(dir, "cheap.yaml"), filepath.Join(dir, "dear.yaml")
	require.NoError(t, os.WriteFile(cheap, []byte("judge-model: {in: 1, out: 2}\n"), 0o600))
	require.NoError(t, os.WriteFile(dear, []byte("judge-model: {in: 3, out: 2}\n"), 0o600))
	tests := map[string]struct {
		prices []string
		code   int
		want   string
	}{
		"the same prices": {prices: []string{"--prices", cheap}, code: exitPass, want: "bench: resuming"},
		"other prices":    {prices: []string{"--prices", dear}, code: exitInput, want: `price of openai:judge-model was "in $1, out $2 per million tokens, batch share 0.5", now "in $3, out $2 per million tokens, batch share 0.5"`},
		"no price at all": {code: exitInput, want: `price of openai:judge-model was "in $1, out $2 per million tokens, batch share 0.5", now "no price"`},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			srv := llmtest.New(t, llmtest.Func(llmtest.JudgeReplies))
			env := map[string]string{"ASSAY_LLM": "openai:judge-model", "OPENAI_BASE_URL": srv.URL(), "ASSAY_DATA_DIR": t.TempDir()}
			out := filepath.Join(t.TempDir(), "run")
			data := "../../fixtures/rag/labelled.jsonl"
			code, _, errOut := runEnv(t, env, "bench", "-q", "--no-cache", "--metric", "faithfulness", "--prices", cheap, "--out", out, data)
			require.Equal(t, exitPass, code, errOut)
			args := append([]string{"bench", "--no-cache", "--metric", "faithfulness", "--resume", "--out", out}, tc.prices...)
			code, _, errOut = runEnv(t, env, append(args, data)...)
			assert.Equal(t, tc.code, code, errOut)
			assert.Contains(t, errOut, tc.want)
		})
	}
}
