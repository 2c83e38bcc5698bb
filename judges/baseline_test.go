package judges_test

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/assaylabs/assay/eval"
	"github.com/assaylabs/assay/judges"
)

// TestTokenOverlap: the share of the answer's tokens (else the query's)
// found in the contexts; a text with no token to look for is skipped,
// never a 0 that counts as a failure and pulls the mean down.
func TestTokenOverlap(t *testing.T) {
	t.Parallel()
	ctx := []eval.Source{{ID: "c1", Text: "The cat sat on the mat."}}
	tests := map[string]struct {
		sample  eval.Sample
		value   float64
		skipped bool
		reason  string
	}{
		"one of three answer tokens": {
			sample: eval.Sample{Answer: "the dog barked", Sources: ctx}, value: 1.0 / 3, reason: "33% of the answer's tokens occur in the contexts",
		},
		"the query, with no answer": {
			sample: eval.Sample{Query: "cat mat", Sources: ctx}, value: 1, reason: "100% of the query's tokens occur in the contexts",
		},
		"no answer and no query": {
			sample: eval.Sample{Sources: ctx}, skipped: true, reason: "skipped, not scored: no answer to judge",
		},
		"an answer of punctuation alone": {
			sample: eval.Sample{Query: "cat", Answer: "!!! ...", Sources: ctx}, skipped: true,
			reason: "skipped, not scored: no verifiable claims: the answer has no word to look for in the contexts",
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			sc, err := judges.TokenOverlap{}.Score(t.Context(), tc.sample)
			require.NoError(t, err)
			assert.Equal(t, judges.MetricTokenOverlap, sc.Metric)
			assert.Equal(t, tc.skipped, sc.Skipped)
			assert.InDelta(t, tc.value, sc.Value, 1e-9)
			assert.Equal(t, tc.reason, sc.Reason)
			if tc.skipped {
				assert.True(t, errors.Is(sc.Err, eval.ErrNoAnswer) || errors.Is(sc.Err, eval.ErrNoClaims), "%v", sc.Err)
			}
		})
	}
}
