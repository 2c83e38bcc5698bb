package agent

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestProfileRefusesAFractionForAWholeNumber: a whole-number setting
// written with a fraction was truncated by the YAML decoder without a
// word (min_unique 4.9 asked for 4 sources, relevance_cutoff 2.5 kept
// grade 2); it is refused, naming the line and field.
func TestProfileRefusesAFractionForAWholeNumber(t *testing.T) {
	t.Parallel()
	const head = "name: x\nkind: report\npass: {threshold: 1}\n"
	tests := map[string]struct {
		yaml, want string
	}{
		"min_unique 4.9":         {head + "scorers:\n  - metric: source_diversity\n    max: 1\n    min_unique: 4.9\n", "p.yaml:7: scorers[0].min_unique: must be a whole number, got 4.9"},
		"relevance_cutoff 2.5":   {head + "gate:\n  relevance_cutoff: 2.5\nscorers:\n  - metric: grounding\n    max: 5\n", "p.yaml:5: gate.relevance_cutoff: must be a whole number, got 2.5"},
		"a stage of 5.5":         {head + "scorers:\n  - metric: clarity\n    max: 1\nfixes:\n  - metric: clarity\n    rerun_stages: [5.5, 6]\n", "p.yaml:9: fixes[0].rerun_stages[0]: must be a whole number, got 5.5"},
		"a priority of 1.5":      {head + "scorers:\n  - metric: clarity\n    max: 1\nfixes:\n  - {metric: clarity, priority: 1.5}\n", "p.yaml:8: fixes[0].priority: must be a whole number, got 1.5"},
		"max_sentence_words 0.5": {head + "scorers:\n  - metric: clarity\n    max: 1\n    max_sentence_words: 0.5\n", "p.yaml:7: scorers[0].max_sentence_words: must be a whole number, got 0.5"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			_, err := ParseProfile("p.yaml", []byte(tc.yaml))
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
		})
	}
}
