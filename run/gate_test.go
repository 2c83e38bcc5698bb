package run_test

import (
	"flag"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/assaylabs/assay/eval"
	"github.com/assaylabs/assay/run"
)

var _ flag.Value = (*run.MinGate)(nil)

func TestMinGate(t *testing.T) {
	t.Parallel()
	metrics := []string{"faithfulness", "answer_relevancy"}
	tests := map[string]struct {
		floors string
		scores []eval.Score
		want   map[string]float64 // metric -> floor
		setErr string
		check  string
		err    string
		misses []run.FloorMiss
	}{
		"one floor for all": {
			floors: "0.7",
			scores: []eval.Score{{Metric: "faithfulness", Value: 0.6}, {Metric: "answer_relevancy", Value: 0.7}},
			want:   map[string]float64{"faithfulness": 0.7, "answer_relevancy": 0.7},
			err:    "1 score(s) below --min (faithfulness 1 under 0.7)",
			misses: []run.FloorMiss{{Metric: "faithfulness", Floor: 0.7, Below: 1}},
		},
		"by metric, the rest ungated": {
			floors: "faithfulness=0.8",
			scores: []eval.Score{{Metric: "faithfulness", Value: 0.9}, {Metric: "answer_relevancy", Value: 0.1}},
			want:   map[string]float64{"faithfulness": 0.8, "answer_relevancy": 0},
		},
		"both, named wins": {
			floors: "0.5, faithfulness=0.8",
			scores: []eval.Score{
				{Metric: "faithfulness", Value: 0.75}, {Metric: "faithfulness", Value: 0.7},
				{Metric: "answer_relevancy", Value: 0.4},
			},
			want: map[string]float64{"faithfulness": 0.8, "answer_relevancy": 0.5},
			err:  "3 score(s) below --min (answer_relevancy 1 under 0.5, faithfulness 2 under 0.8)",
			misses: []run.FloorMiss{
				{Metric: "answer_relevancy", Floor: 0.5, Below: 1}, {Metric: "faithfulness", Floor: 0.8, Below: 2},
			},
		},
		"a value at the floor passes": {
			floors: "0.7",
			scores: []eval.Score{{Metric: "faithfulness", Value: 0.7}},
		},
		"a neutral default never passes": {
			floors: "0.3",
			scores: []eval.Score{{Metric: "faithfulness", Value: 0.5, Defaulted: true}},
			err:    "1 score(s) below --min (faithfulness 1 under 0.3)",
			misses: []run.FloorMiss{{Metric: "faithfulness", Floor: 0.3, Below: 1}},
		},
		"a skipped result never passes a floor": {
			floors: "faithfulness=0.01",
			scores: []eval.Score{
				{Metric: "faithfulness", Value: 1, Skipped: true}, {Metric: "faithfulness", Value: 0, Skipped: true},
				{Metric: "faithfulness", Value: 0.9}, {Metric: "answer_relevancy", Value: 0, Skipped: true},
			},
			err:    "2 score(s) below --min (faithfulness 2 under 0.01 (2 of them skipped: nothing to judge))",
			misses: []run.FloorMiss{{Metric: "faithfulness", Floor: 0.01, Below: 2, Skipped: 2}},
		},
		"out of range":                {floors: "1.5", setErr: `"1.5": want a value from 0 to 1, or METRIC=VALUE`},
		"NaN":                         {floors: "NaN", setErr: `"NaN": want a value from 0 to 1, or METRIC=VALUE`},
		"NaN by metric":               {floors: "faithfulness=nan", setErr: `"faithfulness=nan": want a value from 0 to 1, or METRIC=VALUE`},
		"not a number":                {floors: "faithfulness=high", setErr: `"faithfulness=high": want a value from 0 to 1, or METRIC=VALUE`},
		"two floors for every metric": {floors: "0.5,0.6", setErr: `"0.5,0.6": a floor for every metric is given twice; give one`},
		"one metric twice":            {floors: "faithfulness=0.5, faithfulness=0.6", setErr: `"faithfulness=0.5, faithfulness=0.6": faithfulness is given twice; give it one floor`},
		"no metric before =":          {floors: "=0.5", setErr: `"=0.5": no metric before =: want METRIC=VALUE, or the value alone for every metric`},
		"none":                        {floors: ""},
		"blank":                       {floors: " "},
		"an empty floor first":        {floors: ",faithfulness=0.8", setErr: `",faithfulness=0.8": an empty floor between commas: want VALUE or METRIC=VALUE in each place, as 0.7,faithfulness=0.8`},
		"an empty floor between":      {floors: "0.5,,faithfulness=0.8", setErr: `"0.5,,faithfulness=0.8": an empty floor between commas: want VALUE or METRIC=VALUE in each place, as 0.7,faithfulness=0.8`},
		"a comma at the end":          {floors: "faithfulness=0.8,", setErr: `"faithfulness=0.8,": an empty floor between commas: want VALUE or METRIC=VALUE in each place, as 0.7,faithfulness=0.8`},
		"a blank between commas":      {floors: "0.5, ,faithfulness=0.8", setErr: `"0.5, ,faithfulness=0.8": an empty floor between commas: want VALUE or METRIC=VALUE in each place, as 0.7,faithfulness=0.8`},
		"unjudged metric":             {floors: "faithfulnes=0.8", check: "--min faithfulnes=0.8: faithfulnes is not among the judged metrics (faithfulness, answer_relevancy)"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			g, err := run.ParseMinGate(tc.floors)
			if tc.setErr != "" {
				require.EqualError(t, err, tc.setErr)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.floors, g.String())
			if tc.check != "" {
				require.EqualError(t, g.Check(metrics), tc.check)
				return
			}
			require.NoError(t, g.Check(metrics))
			for m, want := range tc.want {
				assert.Equal(t, want, g.Floor(m), m)
			}
			for _, sc := range tc.scores {
				g.Add(sc)
			}
			if tc.err == "" {
				assert.NoError(t, g.Err())
				return
			}
			var be *run.BelowFloorError
			require.ErrorAs(t, g.Err(), &be)
			assert.EqualError(t, be, tc.err)
			assert.Equal(t, tc.misses, be.Metrics)
		})
	}
}

// TestMinGateZeroAndSetAgain: the zero gate gates nothing, and Set starts
// afresh, as a flag given twice keeps the last.
func TestMinGateZeroAndSetAgain(t *testing.T) {
	t.Parallel()
	var g run.MinGate
	g.Add(eval.Score{Metric: "faithfulness", Value: 0, Defaulted: true})
	require.NoError(t, g.Err())
	require.NoError(t, g.Check([]string{"faithfulness"}))
	require.NoError(t, g.Set("0.9"))
	g.Add(eval.Score{Metric: "faithfulness", Value: 0.5})
	require.Error(t, g.Err())
	require.NoError(t, g.Set("faithfulness=0.2"))
	assert.NoError(t, g.Err(), "the counts of the earlier floors are forgotten")
	assert.Zero(t, g.Floor("answer_relevancy"))
	assert.Equal(t, "faithfulness=0.2", g.String())
}
