package setup_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/assaylabs/assay/internal/llmtest"
	"github.com/assaylabs/assay/llm"
	"github.com/assaylabs/assay/llm/setup"
)

// TestOpenCheckerRefusesWhatIsNoServer: a checker is an OpenAI-compatible
// server; offline, langchain and no spec at all are refused, naming
// --checker.
func TestOpenCheckerRefusesWhatIsNoServer(t *testing.T) {
	t.Parallel()
	for _, spec := range []string{"", "offline", "langchain:anthropic:claude-3-5-haiku", "nosuch:model", "vllm:"} {
		_, _, err := setup.OpenChecker(setup.DefaultConfig(), spec, envOf(map[string]string{"OPENAI_API_KEY": "k"}))
		require.Error(t, err, spec)
		assert.Contains(t, err.Error(), "--checker", spec)
	}
}

// TestOpenCheckerReadsItsOwnURL: $ASSAY_CHECKER_BASE_URL points the
// checker at its server while $OPENAI_BASE_URL stays the judging
// model's; without it the checker reads $OPENAI_BASE_URL as --llm does.
func TestOpenCheckerReadsItsOwnURL(t *testing.T) {
	t.Parallel()
	checker := llmtest.New(t, llmtest.Default(llmtest.Reply{Content: "Yes"}))
	judge := llmtest.New(t, llmtest.Default(llmtest.Reply{Content: "No"}))
	tests := []struct {
		name string
		env  map[string]string
		want *llmtest.Server
	}{
		{"its own URL", map[string]string{"ASSAY_CHECKER_BASE_URL": checker.URL(), "OPENAI_BASE_URL": judge.URL()}, checker},
		{"the judging model's URL", map[string]string{"OPENAI_BASE_URL": judge.URL()}, judge},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := setup.DefaultConfig()
			before := tt.want.Calls()
			c, closer, err := setup.OpenChecker(cfg, "openai:bespoke-minicheck", envOf(tt.env))
			require.NoError(t, err)
			defer func() { require.NoError(t, closer.Close()) }()
			assert.Equal(t, "openai:bespoke-minicheck", c.Name())
			_, err = c.Chat(context.Background(), llm.Request{Messages: []llm.Message{{Role: llm.User, Content: "Document: a\nClaim: a"}}})
			require.NoError(t, err)
			assert.Equal(t, before+1, tt.want.Calls())
		})
	}
}

// TestOpenCheckerSharesTheBudget: a checker under --max-cost spends from
// the budget it is given (the judging model's), so it needs a price; one
// without is refused before any call, naming --prices.
func TestOpenCheckerSharesTheBudget(t *testing.T) {
	t.Parallel()
	checker := llmtest.New(t, llmtest.Default(llmtest.Reply{Content: "Yes"}))
	env := envOf(map[string]string{"ASSAY_CHECKER_BASE_URL": checker.URL()})
	cfg := setup.DefaultConfig()
	cfg.Budget = llm.NewBudget(1)
	_, _, err := setup.OpenChecker(cfg, "openai:bespoke-minicheck", env)
	require.ErrorContains(t, err, "--checker: --max-cost: model bespoke-minicheck is not in the price table")
	assert.Equal(t, 0, checker.Calls())

	prices := filepath.Join(t.TempDir(), "prices.yaml")
	require.NoError(t, os.WriteFile(prices, []byte("bespoke-minicheck: {in: 1, out: 1}\n"), 0o600))
	cfg.PricesFile = prices
	c, closer, err := setup.OpenChecker(cfg, "openai:bespoke-minicheck", env)
	require.NoError(t, err)
	defer func() { require.NoError(t, closer.Close()) }()
	assert.Same(t, cfg.Budget, c.Budget(), "the budget it was given, not one of its own")
	assert.InDelta(t, 1.0, c.MaxCost(), 1e-12)
}

// TestOpenCheckerNamesItsVariables: a checker that finds no server and
// no key says which variables it reads, its own first.
func TestOpenCheckerNamesItsVariables(t *testing.T) {
	t.Parallel()
	_, _, err := setup.OpenChecker(setup.DefaultConfig(), "openai:bespoke-minicheck", envOf(map[string]string{}))
	require.Error(t, err)
	assert.Equal(t, "--checker: openai:bespoke-minicheck: OPENAI_API_KEY is not set (or set OPENAI_BASE_URL for a local server) "+
		"(the checker reads $ASSAY_CHECKER_BASE_URL and $ASSAY_CHECKER_API_KEY before them)", err.Error())
}
