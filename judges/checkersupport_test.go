package judges

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/assaylabs/assay/eval"
	"github.com/assaylabs/assay/llm"
)

// TestSupportHoldsLogprobsToProbabilities: the checker's probability of
// support stays a probability when the server sends log-probabilities
// over 0 (one whose exponential overflows made it NaN, a claim neither
// supported nor counted as failed).
func TestSupportHoldsLogprobsToProbabilities(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		top  []llm.TopLogprob
		want float64
	}{
		"yes overflowing, no likely": {top: []llm.TopLogprob{{Token: "Yes", Logprob: 900}, {Token: "No", Logprob: -0.2}}, want: 1 / (1 + math.Exp(-0.2))},
		"both overflowing":           {top: []llm.TopLogprob{{Token: "Yes", Logprob: 1e300}, {Token: " no", Logprob: 750}}, want: 0.5},
		"no above 0, yes below":      {top: []llm.TopLogprob{{Token: "No", Logprob: 3}, {Token: "Yes", Logprob: math.Log(0.25)}}, want: 0.25 / 1.25},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			p, from, err := support(llm.Response{Content: "Yes", Logprobs: []llm.TokenLogprob{{Token: "Yes", Logprob: 0, Top: tc.top}}})
			require.NoError(t, err)
			assert.Equal(t, eval.CheckLogprobs, from)
			assert.InDelta(t, tc.want, p, 1e-9)
		})
	}
}
