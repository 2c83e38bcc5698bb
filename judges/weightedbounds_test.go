package judges_test

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/assaylabs/assay/judges"
	"github.com/assaylabs/assay/llm"
)

// TestWeightedHoldsLogprobsToProbabilities: a server's log-probability
// over 0 (a probability over 1, which a misbehaving server can send, up
// to one whose exponential overflows) counts as a probability of 1, so
// that the weighted grade stays a grade of the scale and never NaN,
// which no result can carry.
func TestWeightedHoldsLogprobsToProbabilities(t *testing.T) {
	t.Parallel()
	content := `{"reason":"clear steps","grade":4}`
	at := func(top ...llm.TopLogprob) []llm.TokenLogprob {
		return []llm.TokenLogprob{{Token: `{"reason":"clear steps","grade":`}, {Token: "4", Top: top}, {Token: "}"}}
	}
	tests := map[string]struct {
		top  []llm.TopLogprob
		mean float64
	}{
		"a log-probability whose exponential overflows": {
			top:  []llm.TopLogprob{{Token: "4", Logprob: 800}, {Token: "5", Logprob: -50}},
			mean: 4,
		},
		"two that overflow": {
			top:  []llm.TopLogprob{{Token: "4", Logprob: 1e308}, {Token: "2", Logprob: 710}},
			mean: 3,
		},
		"one above 0 beside one below": {
			top:  []llm.TopLogprob{{Token: "4", Logprob: 2.5}, {Token: "5", Logprob: math.Log(0.5)}},
			mean: (4*1 + 5*0.5) / 1.5,
		},
	}
	sc, err := judges.ParseScale("1-5")
	require.NoError(t, err)
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			mean, probs, ok := sc.Weighted(at(tc.top...), content, "4")
			require.True(t, ok)
			assert.InDelta(t, tc.mean, mean, 1e-9)
			for g, p := range probs {
				assert.False(t, math.IsNaN(p) || p < 0 || p > 1, "p(%s) = %v", g, p)
			}
		})
	}
}
