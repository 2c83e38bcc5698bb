package judges_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/assaylabs/assay/internal/llmtest"
	"github.com/assaylabs/assay/judges"
	"github.com/assaylabs/assay/metric"
)

// TestPrepareSteps: a run's judges without steps have them written once,
// before any grade, and follow them; a resumed run's record of the same
// judge and version is followed with no call; a record of another version
// is not; a judge with its own steps records them and asks nothing; a
// metric that is no defined judge has no record.
func TestPrepareSteps(t *testing.T) {
	t.Parallel()
	const file = "judges:\n" +
		"  - name: matches\n    criterion: The answer says what the reference says.\n    scale: 0-10\n    fields: [answer, reference]\n" +
		"  - name: kind\n    criterion: The answer is kind.\n    steps: [Read the answer., Judge its tone.]\n    scale: pass/fail\n"
	kept := []string{"Compare the facts.", "Compare the numbers."}
	written := []string{"Read the fields the criterion is about.", "Check each thing the criterion asks for.", "Choose the grade whose description fits best."}
	tests := map[string]struct {
		earlier   []judges.StepsRecord
		wantSteps []string
		wantCalls int
	}{
		"a new run writes them":           {nil, written, 1},
		"a resumed run keeps its own":     {[]judges.StepsRecord{{Name: "matches", Version: "", Steps: kept, Generated: true}}, kept, 0},
		"another version is written anew": {[]judges.StepsRecord{{Name: "matches", Version: "000000000000", Steps: kept, Generated: true}}, written, 1},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			defs, err := judges.ReadDefinitions("judges.yaml", []byte(file), &metric.Registry{})
			require.NoError(t, err)
			var reg metric.Registry
			for _, d := range defs {
				require.NoError(t, reg.Add(d.Entry()))
			}
			earlier := tc.earlier
			for i := range earlier {
				if earlier[i].Version == "" {
					earlier[i].Version = defs[0].Version()
				}
			}
			srv := llmtest.New(t, llmtest.Func(llmtest.JudgeReplies))
			m := definedClient(t, srv, nil)
			recs, _, err := judges.PrepareSteps(t.Context(), &reg, []string{"kind", "faithfulness", "matches"}, m, earlier)
			require.NoError(t, err)
			require.Len(t, recs, 2, "the defined judges, in the order of the metrics")
			assert.Equal(t, judges.StepsRecord{Name: "kind", Version: defs[1].Version(), Steps: []string{"Read the answer.", "Judge its tone."}}, recs[0])
			assert.Equal(t, "matches", recs[1].Name)
			assert.Equal(t, defs[0].Version(), recs[1].Version)
			assert.True(t, recs[1].Generated)
			assert.Equal(t, tc.wantSteps, recs[1].Steps)
			assert.Equal(t, tc.wantCalls, srv.Calls())

			// Every scorer built from the definition follows them, asking
			// only for grades.
			sc := scorer(t, defs[0], m)
			_, err = sc.Score(t.Context(), supportSample)
			require.NoError(t, err)
			assert.Equal(t, tc.wantCalls+1, srv.Calls())
			last := srv.Requests()[srv.Calls()-1]
			assert.Equal(t, "defined_grade", last.ResponseFormat.JSONSchema.Name)
			assert.Contains(t, last.Messages[0].Content, "- "+recs[1].Steps[0])
		})
	}
}

// TestPrepareStepsFailing: steps the model could not write leave the
// judge out of the records, with the error, and its scorers ask again.
func TestPrepareStepsFailing(t *testing.T) {
	t.Parallel()
	d := defined(t, "judges:\n  - name: matches\n    criterion: Same facts.\n    scale: 1-5\n    fields: [answer]\n")
	var reg metric.Registry
	require.NoError(t, reg.Add(d.Entry()))
	srv := llmtest.New(t, llmtest.Default(llmtest.Reply{Status: 400, Body: `{"error":{"message":"no","type":"invalid_request_error"}}`}))
	recs, _, err := judges.PrepareSteps(t.Context(), &reg, []string{"matches"}, definedClient(t, srv, nil), nil)
	require.ErrorContains(t, err, "judge matches: write its evaluation steps")
	assert.Empty(t, recs)
}
