package run

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/assaylabs/assay/dataset"
	"github.com/assaylabs/assay/stats"
)

// writeResults writes results as a run's results.jsonl in a new folder.
func writeResults(t *testing.T, results ...Result) string {
	t.Helper()
	var data []byte
	for _, r := range results {
		b, err := json.Marshal(r)
		require.NoError(t, err)
		data = append(append(data, b...), '\n')
	}
	path := filepath.Join(t.TempDir(), FileResults)
	require.NoError(t, os.WriteFile(path, data, 0o644))
	return path
}

// labelled are records with the binary label "faithful" (a, b, c, d; d
// as the number 1), one with a grade (g) and one without (u).
func labelled() []dataset.Record {
	return []dataset.Record{
		{ID: "a", Human: map[string]any{"faithful": true}},
		{ID: "b", Human: map[string]any{"faithful": false}},
		{ID: "c", Human: map[string]any{"faithful": "no"}},
		{ID: "d", Human: map[string]any{"faithful": 1.0}},
		{ID: "g", Human: map[string]any{"faithful": 4.0}},
		{ID: "u"},
	}
}

func TestSummaryAddCalibration(t *testing.T) {
	t.Parallel()
	labels, err := dataset.ReadLabels(dataset.All(labelled()), "faithful")
	require.NoError(t, err)
	// faithfulness: a-d scored 0.9, 0.8, 0.3, 0.1 against true, false,
	// false, true; g (a grade) and u (no label) are left out, and so is a
	// neutral default; relevancy has no labelled value scored.
	path := writeResults(t,
		Result{ID: "a", Metric: "faithfulness", Value: 0.9},
		Result{ID: "a", Metric: "answer_relevancy", Value: 0.5, Defaulted: true},
		Result{ID: "b", Metric: "faithfulness", Value: 0.8},
		Result{ID: "b", Metric: "answer_relevancy", Skipped: true},
		Result{ID: "c", Metric: "faithfulness", Value: 0.3, Error: "one claim unverified"},
		Result{ID: "d", Metric: "faithfulness", Value: 0.1},
		Result{ID: "g", Metric: "faithfulness", Value: 0.7},
		Result{ID: "g", Metric: "answer_relevancy", Value: 0.7},
		Result{ID: "u", Metric: "faithfulness", Value: 0.2},
		Result{ID: "u", Metric: "answer_relevancy", Value: 0.2},
		Result{ID: "d", Metric: "answer_relevancy", Value: 0.5, Defaulted: true},
	)
	s := Summary{Metrics: []MetricStats{{Metric: "faithfulness"}, {Metric: "answer_relevancy"}}}
	require.NoError(t, s.AddCalibration(path, labels))

	assert.Equal(t, "faithful", s.Label)
	assert.Nil(t, s.Metrics[1].Calibration, "no labelled value of answer_relevancy was scored")
	c := s.Metrics[0].Calibration
	require.NotNil(t, c)
	values, ys := []float64{0.9, 0.8, 0.3, 0.1}, []bool{true, false, false, true}
	// By hand: Brier (0.1^2 + 0.8^2 + 0.3^2 + 0.9^2)/4 = 1.55/4; each
	// value alone in its bin, ECE (0.1 + 0.8 + 0.3 + 0.9)/4 = 2.1/4.
	assert.InDelta(t, 0.3875, c.Brier, 1e-12)
	assert.InDelta(t, 0.525, c.ECE, 1e-12)
	// And the stats package's figures, bin for bin.
	assert.InDelta(t, stats.Brier(values, ys), c.Brier, 1e-15)
	assert.InDelta(t, stats.ECE(values, ys, CalibrationBins), c.ECE, 1e-15)
	table := stats.Reliability(values, ys, CalibrationBins)
	require.Len(t, c.Reliability, CalibrationBins)
	for i, b := range table {
		assert.Equal(t, stats.Bin{Lo: b.Lo, Hi: b.Hi, N: b.N, MeanPredicted: b.MeanPredicted, FractionPositive: b.FractionPositive}, c.Reliability[i], "bin %d", i)
	}
	assert.Equal(t, stats.Bin{Lo: 0.8, Hi: 0.9, N: 1, MeanPredicted: 0.8, FractionPositive: 0}, c.Reliability[8])

	// In summary.json beside the metric's figures; absent without one.
	b, err := json.Marshal(s)
	require.NoError(t, err)
	var back struct {
		Label   string `json:"label"`
		Metrics []map[string]json.RawMessage
	}
	require.NoError(t, json.Unmarshal(b, &back))
	assert.Equal(t, "faithful", back.Label)
	assert.Contains(t, back.Metrics[0], "calibration")
	assert.NotContains(t, back.Metrics[1], "calibration")
}

func TestSummaryAddCalibrationErrors(t *testing.T) {
	t.Parallel()
	labels, err := dataset.ReadLabels(dataset.All(labelled()), "faithful")
	require.NoError(t, err)
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.jsonl")
	require.NoError(t, os.WriteFile(bad, []byte("{\"id\":\"a\",\"metric\":\"faithfulness\",\"value\":0.9}\nnot json\n"), 0o644))
	tests := map[string]struct {
		path string
		want string
	}{
		"no results file":    {path: filepath.Join(dir, "missing.jsonl"), want: "reading results"},
		"a line that is bad": {path: bad, want: "bad.jsonl:2"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			s := Summary{Metrics: []MetricStats{{Metric: "faithfulness"}}}
			err := s.AddCalibration(tc.path, labels)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
			assert.Nil(t, s.Metrics[0].Calibration)
			assert.Empty(t, s.Label)
		})
	}
}
