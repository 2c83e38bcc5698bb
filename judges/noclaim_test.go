package judges_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/assaylabs/assay/eval"
	"github.com/assaylabs/assay/judges"
)

// TestOfflineFaithfulnessOfAnAnswerThatStatesNothing: offline, an answer
// that is a letter, punctuation, an emoji or "N/A" has no claim, and is
// skipped as one with no claims, however it is written; one that is a
// number or a word is judged against the contexts.
func TestOfflineFaithfulnessOfAnAnswerThatStatesNothing(t *testing.T) {
	t.Parallel()
	ctx := []eval.Source{{ID: "c1", Text: "Option B is the correct answer; it costs 42 dollars."}}
	tests := map[string]struct {
		answers []string
		skipped bool
		value   float64
	}{
		"a letter":      {answers: []string{"B", "B.", "(B)", "b)", "Q?"}, skipped: true},
		"punctuation":   {answers: []string{"-", "?", "...", "—"}, skipped: true},
		"an emoji":      {answers: []string{"👍", "🙂", "✅"}, skipped: true},
		"a placeholder": {answers: []string{"N/A", "n/a", "N/A.", "TBD", "null"}, skipped: true},
		"a number":      {answers: []string{"42", "42."}, value: 1},
		"a sentence":    {answers: []string{"Option B is the correct answer."}, value: 1},
	}
	f, err := judges.New(judges.MetricFaithfulness, nil)
	require.NoError(t, err)
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			for _, a := range tc.answers {
				sc, err := f.Score(t.Context(), eval.Sample{Query: "Which option, and at what price?", Answer: a, Sources: ctx})
				require.NoError(t, err, a)
				assert.Equal(t, tc.skipped, sc.Skipped, "%q: %s", a, sc.Reason)
				if tc.skipped {
					assert.ErrorIs(t, sc.Err, eval.ErrNoClaims, a)
					continue
				}
				assert.InDelta(t, tc.value, sc.Value, 1e-9, "%q: %s", a, sc.Reason)
			}
		})
	}
}
