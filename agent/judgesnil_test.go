package agent_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/assaylabs/assay/agent"
)

// A nil registry given to Judges and JudgeDefinitions is the built-in
// metrics, whether the file is a judges file or a profile file.
func TestJudgesOfNilRegistryAreBuiltIn(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		path  string
		added []string
	}{
		"a judges file":  {path: "../examples/judges.yaml", added: []string{"polite_and_cites", "helpfulness", "matches_reference"}},
		"a profile file": {path: "../examples/profiles/plain-report.yaml", added: []string{"plain_words", "answers_the_question"}},
	}
	builtins := agent.Builtins().Metrics()
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			reg, err := agent.Judges(nil, tc.path)
			require.NoError(t, err)
			assert.ElementsMatch(t, append(append([]string{}, builtins...), tc.added...), reg.Metrics())

			defs, err := agent.JudgeDefinitions(nil, tc.path)
			require.NoError(t, err)
			names := make([]string, len(defs))
			for i, d := range defs {
				names[i] = d.Name
			}
			assert.Equal(t, tc.added, names)
		})
	}
}
