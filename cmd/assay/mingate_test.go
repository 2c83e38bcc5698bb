package main

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestMinGate(t *testing.T) {
	metrics := []string{"faithfulness", "answer_relevancy"}
	tests := map[string]struct {
		flag    string
		results []judgeResult
		floors  map[string]float64 // metric -> floor
		setErr  string
		check   string
		exit    string
	}{
		"one floor for all": {
			flag:    "0.7",
			results: []judgeResult{{Metric: "faithfulness", Value: 0.6}, {Metric: "answer_relevancy", Value: 0.7}},
			floors:  map[string]float64{"faithfulness": 0.7, "answer_relevancy": 0.7},
			exit:    "1 score(s) below --min (faithfulness 1 under 0.7)",
		},
		"by metric, the rest ungated": {
			flag:    "faithfulness=0.8",
			results: []judgeResult{{Metric: "faithfulness", Value: 0.9}, {Metric: "answer_relevancy", Value: 0.1}},
			floors:  map[string]float64{"faithfulness": 0.8, "answer_relevancy": 0},
		},
		"both, named wins": {
			flag: "0.5, faithfulness=0.8",
			results: []judgeResult{
				{Metric: "faithfulness", Value: 0.75}, {Metric: "faithfulness", Value: 0.7},
				{Metric: "answer_relevancy", Value: 0.4},
			},
			floors: map[string]float64{"faithfulness": 0.8, "answer_relevancy": 0.5},
			exit:   "3 score(s) below --min (answer_relevancy 1 under 0.5, faithfulness 2 under 0.8)",
		},
		"a neutral default never passes": {
			flag:    "0.3",
			results: []judgeResult{{Metric: "faithfulness", Value: 0.5, Defaulted: true}},
			exit:    "1 score(s) below --min (faithfulness 1 under 0.3)",
		},
		"a skipped result never passes a floor": {
			flag: "faithfulness=0.01",
			results: []judgeResult{
				{Metric: "faithfulness", Value: 1, Skipped: true}, {Metric: "faithfulness", Value: 0, Skipped: true},
				{Metric: "faithfulness", Value: 0.9}, {Metric: "answer_relevancy", Value: 0, Skipped: true},
			},
			exit: "2 score(s) below --min (faithfulness 2 under 0.01 (2 of them skipped: nothing to judge))",
		},
		"out of range":    {flag: "1.5", setErr: `"1.5": want a value from 0 to 1`},
		"NaN":             {flag: "NaN", setErr: `"NaN": want a value from 0 to 1`},
		"NaN by metric":   {flag: "faithfulness=nan", setErr: `"faithfulness=nan": want a value from 0 to 1`},
		"not a number":    {flag: "faithfulness=high", setErr: `"faithfulness=high": want a value`},
		"unjudged metric": {flag: "faithfulnes=0.8", check: "--min faithfulnes=0.8: faithfulnes is not among the judged metrics (faithfulness, answer_relevancy)"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			var g minGate
			err := g.Set(tc.flag)
			if tc.setErr != "" {
				require.ErrorContains(t, err, tc.setErr)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.flag, g.String())
			if tc.check != "" {
				require.EqualError(t, g.check(metrics), tc.check)
				return
			}
			require.NoError(t, g.check(metrics))
			for m, want := range tc.floors {
				assert.Equal(t, want, g.floor(m), m)
			}
			for _, r := range tc.results {
				g.count(r)
			}
			if tc.exit == "" {
				assert.NoError(t, g.err())
				return
			}
			var ee *exitError
			require.ErrorAs(t, g.err(), &ee)
			assert.Equal(t, exitFailed, ee.code)
			assert.EqualError(t, ee.err, tc.exit)
		})
	}
}
