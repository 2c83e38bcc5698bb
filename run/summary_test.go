package run

import (
	"bytes"
	"encoding/json"
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/assaylabs/assay/eval"
)

// brief is what the compact table shows of a metric's stats.
type brief struct {
	Metric                                string
	N, Scored, Defaulted, Skipped, Passed int
	NotEvaluable                          int
	Mean, Min, Threshold                  float64
}

func TestStatsBrief(t *testing.T) {
	score := func(metric string, v float64, defaulted bool) eval.Score {
		return eval.Score{Metric: metric, Value: v, Defaulted: defaulted}
	}
	skipped := func(metric string) eval.Score {
		return eval.Score{Metric: metric, Skipped: true, Err: eval.ErrNoAnswer}
	}
	notEvaluable := func(metric string) eval.Score {
		return eval.Score{Metric: metric, Skipped: true, Err: eval.ErrNotEvaluable, Reason: eval.NotEvaluableReason("no content")}
	}
	tests := map[string]struct {
		scores    []eval.Score
		threshold func(string) float64
		want      []brief
		table     string
	}{
		"nothing": {want: []brief{}, table: "metric  scored  mean  min  passed  defaulted\n"},
		"defaults are counted, not averaged": {
			scores: []eval.Score{score("faithfulness", 1, false), score("faithfulness", 0.5, true), score("faithfulness", 0.25, false)},
			want:   []brief{{Metric: "faithfulness", N: 3, Scored: 2, Defaulted: 1, Mean: 0.625, Min: 0.25, Passed: 1, Threshold: 0.5}},
			table: "metric        scored  mean   min    passed        defaulted\n" +
				"faithfulness  2/3     0.625  0.250  1/2 (>= 0.5)  1 (33%)\n",
		},
		"metrics in first-seen order, each with its threshold": {
			scores:    []eval.Score{score("relevance", 0.5, false), score("faithfulness", 0.8, false), score("relevance", 0.75, false)},
			threshold: func(m string) float64 { return map[string]float64{"faithfulness": 0.75, "relevance": 0.6}[m] },
			want: []brief{
				{Metric: "relevance", N: 2, Scored: 2, Mean: 0.625, Min: 0.5, Passed: 1, Threshold: 0.6},
				{Metric: "faithfulness", N: 1, Scored: 1, Mean: 0.8, Min: 0.8, Passed: 1, Threshold: 0.75},
			},
		},
		"a threshold of two in three prints to four digits": {
			scores:    []eval.Score{score("faithfulness", 1, false), score("faithfulness", 0.5, false)},
			threshold: func(string) float64 { return 2.0 / 3 },
			want:      []brief{{Metric: "faithfulness", N: 2, Scored: 2, Mean: 0.75, Min: 0.5, Passed: 1, Threshold: 2.0 / 3}},
			table: "metric        scored  mean   min    passed           defaulted\n" +
				"faithfulness  2/2     0.750  0.500  1/2 (>= 0.6667)  0\n",
		},
		"skipped records are counted apart: not in the mean, never passed": {
			scores: []eval.Score{score("faithfulness", 1, false), skipped("faithfulness"), score("faithfulness", 0.5, true), skipped("faithfulness"),
				score("answer_relevancy", 0.25, false)},
			want: []brief{
				{Metric: "faithfulness", N: 4, Scored: 1, Defaulted: 1, Skipped: 2, Mean: 1, Min: 1, Passed: 1, Threshold: 0.5},
				{Metric: "answer_relevancy", N: 1, Scored: 1, Mean: 0.25, Min: 0.25, Threshold: 0.5},
			},
			table: "metric            scored  mean   min    passed        defaulted  skipped\n" +
				"faithfulness      1/4     1.000  1.000  1/1 (>= 0.5)  1 (25%)    2\n" +
				"answer_relevancy  1/1     0.250  0.250  0/1 (>= 0.5)  0          0\n",
		},
		"all skipped: no mean, not zero": {
			scores: []eval.Score{skipped("faithfulness")},
			want:   []brief{{Metric: "faithfulness", N: 1, Skipped: 1, Mean: math.NaN(), Min: math.NaN(), Threshold: 0.5}},
			table: "metric        scored  mean  min  passed  defaulted  skipped\n" +
				"faithfulness  0/1     -     -    -       0          1\n",
		},
		"conversations not evaluable: skipped, and counted apart as such": {
			scores: []eval.Score{score("task_completion", 0.75, false), notEvaluable("task_completion"), skipped("task_completion")},
			want:   []brief{{Metric: "task_completion", N: 3, Scored: 1, Skipped: 2, NotEvaluable: 1, Mean: 0.75, Min: 0.75, Passed: 1, Threshold: 0.5}},
			table: "metric           scored  mean   min    passed        defaulted  skipped  not_evaluable\n" +
				"task_completion  1/3     0.750  0.750  1/1 (>= 0.5)  0          2        1\n",
		},
		"all defaulted: no mean, not zero": {
			scores: []eval.Score{score("faithfulness", 0.5, true)},
			want:   []brief{{Metric: "faithfulness", N: 1, Defaulted: 1, Mean: math.NaN(), Min: math.NaN(), Threshold: 0.5}},
			table: "metric        scored  mean  min  passed  defaulted\n" +
				"faithfulness  0/1     -     -    -       1 (100%)\n",
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			stats := Stats{Threshold: tc.threshold}
			for _, s := range tc.scores {
				stats.Add(ResultOf("id", s))
			}
			got := stats.Metrics()
			wantSkipped := 0
			for _, w := range tc.want {
				wantSkipped += w.Skipped
			}
			assert.Equal(t, wantSkipped, stats.Skipped())
			require.Len(t, got, len(tc.want))
			for i, w := range tc.want {
				g := got[i]
				assert.Equal(t, w.Metric, g.Metric)
				assert.Equal(t, [6]int{w.N, w.Scored, w.Defaulted, w.Skipped, w.NotEvaluable, w.Passed},
					[6]int{g.N, g.Scored, g.Defaulted, g.Skipped, g.NotEvaluable, g.Passed})
				assert.Equal(t, w.Threshold, g.Threshold)
				if math.IsNaN(w.Mean) {
					assert.True(t, math.IsNaN(float64(g.Mean)) && math.IsNaN(float64(g.Min)), "mean %v min %v", g.Mean, g.Min)
				} else {
					assert.InDelta(t, w.Mean, float64(g.Mean), 1e-9)
					assert.InDelta(t, w.Min, float64(g.Min), 1e-9)
				}
			}
			if tc.table != "" {
				var b bytes.Buffer
				require.NoError(t, FormatBrief(&b, got))
				assert.Equal(t, tc.table, b.String())
			}
		})
	}
}

// A judge defined on a scale of grades shows the grade its threshold
// stands for beside the value, in both tables; summary.json keeps the
// value only.
func TestThresholdGradeShown(t *testing.T) {
	t.Parallel()
	ms := Summarize([]Result{{ID: "a", Metric: "tone", Value: 0.75}, {ID: "b", Metric: "tone", Value: 0.5}}, func(string) float64 { return 0.75 })
	require.Len(t, ms, 1)
	ms[0].ThresholdGrade = "grade 4 of 1-5"
	var brief, full bytes.Buffer
	require.NoError(t, FormatBrief(&brief, ms))
	require.NoError(t, FormatMetricStats(&full, ms))
	assert.Contains(t, brief.String(), "1/2 (>= 0.75, grade 4 of 1-5)")
	assert.Contains(t, full.String(), "50% (>= 0.75, grade 4 of 1-5)")
	b, err := json.Marshal(ms[0])
	require.NoError(t, err)
	assert.NotContains(t, string(b), "grade")
	assert.Contains(t, string(b), `"threshold":0.75`)
}
