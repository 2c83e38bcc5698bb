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
