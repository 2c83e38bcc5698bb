package judging

import (
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/assaylabs/assay/eval"
	"github.com/assaylabs/assay/internal/llmtest"
	"github.com/assaylabs/assay/llm"
)

// TestBudgetPassedFailsTheRun: calls in flight together, each within the
// budget by its estimate, whose replies cost more than estimated, take
// the run past --max-cost though the budget refused no call: the run
// fails (exit 3) saying what it spent, rather than exit 0 in silence.
func TestBudgetPassedFailsTheRun(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		out, calls int
		max        float64
		want       string // "" : within the budget, no failure
	}{
		// gpt-4o-mini: 1,000 in x $0.15/M + 5,000 out x $0.60/M = $0.00315 a call.
		"three long replies past a budget of one": {out: 5000, calls: 3, max: 0.005, want: "spent $0.0095, over --max-cost $0.005"},
		// 1,000 in + 100 out = $0.00021 a call.
		"short replies within it": {out: 100, calls: 3, max: 0.005},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			var round sync.WaitGroup
			round.Add(tc.calls)
			c := llm.New(llm.Config{Backend: llmtest.RoundBackend{Model: "openai:gpt-4o-mini", Round: &round, Content: `{"grade": 4, "reason": "long"}`, Usage: eval.Usage{TokensIn: 1000, TokensOut: tc.out}}, Concurrency: tc.calls, MaxCostUSD: tc.max})
			cfg := Default()
			cfg.Model = c
			cfg.LLM.MaxCostUSD = tc.max
			s, err := cfg.Open(&strings.Builder{}, func(string) string { return "" })
			require.NoError(t, err)
			defer func() { _ = s.Close() }()
			var wg sync.WaitGroup
			for i := range tc.calls {
				wg.Go(func() {
					_, err := c.Chat(t.Context(), llm.Request{Messages: []llm.Message{{Role: llm.User, Content: strings.Repeat("grade this ", i+1)}}})
					assert.NoError(t, err)
				})
			}
			wg.Wait()
			require.Zero(t, c.BudgetStops(), "no call was refused")
			fs := s.Failures(Defaults{Total: tc.calls})
			if tc.want == "" {
				assert.Empty(t, fs)
				return
			}
			require.Len(t, fs, 1)
			assert.Equal(t, FailBudget, fs[0].Kind)
			assert.False(t, fs[0].Kind.Scored(), "exit 3")
			assert.ErrorContains(t, fs[0], tc.want)
		})
	}
}
