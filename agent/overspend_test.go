package agent

import (
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/assaylabs/assay/eval"
	"github.com/assaylabs/assay/internal/llmtest"
	"github.com/assaylabs/assay/judging"
	"github.com/assaylabs/assay/llm"
)

// TestResearchSaysItsCallsSpentPastTheBudget: a research run whose calls,
// each within --max-cost by its estimate, spent past it together (none
// refused) fails with the budget's failure (exit 3), as bench and judge
// do, instead of passing in silence.
func TestResearchSaysItsCallsSpentPastTheBudget(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		out  int
		want string // "": within the budget
	}{
		// gpt-4o-mini: 1,000 in x $0.15/M + 5,000 out x $0.60/M = $0.00315 a call.
		"three long replies past a budget of one": {out: 5000, want: "budget passed: the calls spent $0.0095, over --max-cost $0.005"},
		"short replies within it":                 {out: 100},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			const calls, budget = 3, 0.005
			var round sync.WaitGroup
			round.Add(calls)
			c := llm.New(llm.Config{Backend: llmtest.RoundBackend{Model: "openai:gpt-4o-mini", Round: &round, Content: `{"relevant": true}`, Usage: eval.Usage{TokensIn: 1000, TokensOut: tc.out}}, Concurrency: calls, MaxCostUSD: budget})
			cfg := judging.Default()
			cfg.Model = c
			cfg.LLM.MaxCostUSD = budget
			s, err := cfg.Open(&strings.Builder{}, func(string) string { return "" })
			require.NoError(t, err)
			defer func() { _ = s.Close() }()
			var wg sync.WaitGroup
			for i := range calls {
				wg.Go(func() {
					_, err := c.Chat(t.Context(), llm.Request{Messages: []llm.Message{{Role: llm.User, Content: strings.Repeat("is it relevant? ", i+1)}}})
					assert.NoError(t, err)
				})
			}
			wg.Wait()
			require.Zero(t, c.BudgetStops(), "no call was refused")
			job := ResearchJob{Judging: cfg}
			fs := job.failures(t.Context(), s, nil, nil, &Run{Status: StatusPass})
			if tc.want == "" {
				assert.Empty(t, fs)
				return
			}
			require.Len(t, fs, 1)
			assert.Equal(t, judging.FailBudget, fs[0].Kind)
			assert.ErrorContains(t, fs[0], tc.want)
		})
	}
}
