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

// TestWeightedReadsOneOnlyWhereItCannotBeTen: on a scale that goes to 10,
// a "1" among the alternatives is weighted as grade 1 only when the
// tokenizer shows it keeps "10" whole (an alternative "10"); from a
// tokenizer that splits numbers into digits it may be the start of 10,
// and the grade is left as sampled.
func TestWeightedReadsOneOnlyWhereItCannotBeTen(t *testing.T) {
	t.Parallel()
	content := `{"reason":"r","grade":9}`
	at := func(top ...llm.TopLogprob) []llm.TokenLogprob {
		return []llm.TokenLogprob{{Token: `{"reason":"r","grade":`}, {Token: "9", Top: top}, {Token: "}"}}
	}
	half := math.Log(0.5)
	tests := map[string]struct {
		scale string
		top   []llm.TopLogprob
		ok    bool
		mean  float64
	}{
		"torn between 9 and a split 10": {"1-10", []llm.TopLogprob{{Token: "9", Logprob: half}, {Token: "1", Logprob: half}}, false, 0},
		"on a 0-10 scale too":           {"0-10", []llm.TopLogprob{{Token: "9", Logprob: half}, {Token: " 1", Logprob: half}}, false, 0},
		"10 kept whole beside 1":        {"1-10", []llm.TopLogprob{{Token: "9", Logprob: half}, {Token: "10", Logprob: math.Log(0.3)}, {Token: "1", Logprob: math.Log(0.2)}}, true, 9*0.5 + 10*0.3 + 1*0.2},
		"no 1 among them":               {"1-10", []llm.TopLogprob{{Token: "9", Logprob: half}, {Token: "8", Logprob: half}}, true, 8.5},
		"a scale from 2 has no 1":       {"2-10", []llm.TopLogprob{{Token: "9", Logprob: half}, {Token: "1", Logprob: half}}, true, 9},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			sc, err := judges.ParseScale(tc.scale)
			require.NoError(t, err)
			mean, _, ok := sc.Weighted(at(tc.top...), content, "9")
			require.Equal(t, tc.ok, ok)
			if ok {
				assert.InDelta(t, tc.mean, mean, 1e-9)
			}
		})
	}
}
