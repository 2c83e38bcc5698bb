package setup_test

import (
	"context"
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
// --max-cost does not count the checker, which has no price.
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
			cfg.MaxCostUSD = 1
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
