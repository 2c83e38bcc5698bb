package agent_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/assaylabs/assay/agent"
	"github.com/assaylabs/assay/eval"
)

// Score refuses a profile it cannot make a card of, as an input error,
// rather than panicking or passing a card that scored nothing.
func TestScoreRefusesProfileItCannotScore(t *testing.T) {
	t.Parallel()
	daily, err := agent.LoadProfile("daily")
	require.NoError(t, err)
	tests := map[string]struct {
		profile *agent.Profile
		want    string
	}{
		"nil profile": {
			profile: nil,
			want:    "profile: no profile: load one with LoadProfile",
		},
		"the built-in daily profile": {
			profile: daily,
			want:    `profile: profile "daily" is of kind daily, scored against its ground truth: use ScoreFile with a Truth file`,
		},
		"zero profile": {
			profile: &agent.Profile{},
			want:    "name: missing",
		},
		"no scorers": {
			profile: &agent.Profile{Name: "mine", Kind: agent.KindReport, Pass: agent.PassRule{Threshold: 1}},
			want:    `scorers: at least one scorer is needed (profile "mine")`,
		},
		"unknown metric": {
			profile: &agent.Profile{Name: "mine", Kind: agent.KindReport, Pass: agent.PassRule{Threshold: 1},
				Specs: []agent.ScorerSpec{{Metric: "nope", Max: 1}}},
			want: `scorers[0].metric: unknown metric "nope" for kind report`,
		},
		"no pass threshold": {
			profile: &agent.Profile{Name: "mine", Kind: agent.KindReport,
				Specs: []agent.ScorerSpec{{Metric: "clarity", Max: 1}}},
			want: `pass.threshold: must be above 0 and at most the scorers' total maximum 1, got 0 (profile "mine")`,
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			card, err := agent.Score(t.Context(), tc.profile, eval.Sample{Query: "q", Answer: "# T\n\nA claim.\n"}, agent.Options{})
			var ie *eval.InputError
			require.ErrorAs(t, err, &ie)
			assert.Contains(t, err.Error(), tc.want)
			assert.Empty(t, card.Status)
			assert.Empty(t, card.Scores)
		})
	}
}

// A profile a Go program builds, valid as a file would be, scores as one.
func TestScoreBuiltProfile(t *testing.T) {
	t.Parallel()
	p := &agent.Profile{Name: "mine", Kind: agent.KindReport, Pass: agent.PassRule{Threshold: 0.5},
		Specs: []agent.ScorerSpec{{Metric: "clarity", Max: 1}}}
	card, err := agent.Score(t.Context(), p, eval.Sample{Query: "q", Answer: "# T\n\nA claim.\n"}, agent.Options{NoRecency: true})
	require.NoError(t, err)
	require.Len(t, card.Scores, 1)
	assert.Equal(t, "clarity", card.Scores[0].Metric)
}
