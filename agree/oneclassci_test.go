package agree_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/assaylabs/assay/agree"
)

// TestOneClassBalancedAccuracyInterval: with the labels all of one class
// the balanced accuracy is that class's recall (2/3 here: 0.9 and 0.8
// called true at 0.5, 0.2 not), and its 95% interval is the recall's over
// resamples of the three rows (percentile bootstrap, Efron and Tibshirani
// 1993, ch. 13): a resample's recall is k/3 for k ~ Binomial(3, 2/3),
// 0 with chance 1/27 (more than the 2.5% tail) and 1 with 8/27, so the
// interval is [0, 1]. The JSON wrote [2/3, 2/3], an interval of no width
// from three rows, and the Markdown left it out. With no row scored there
// is no interval at all.
func TestOneClassBalancedAccuracyInterval(t *testing.T) {
	t.Parallel()
	th := 0.5
	tests := map[string]struct {
		values []float64
		labels []bool
		ci     any // the JSON balanced_accuracy_ci95, nil when absent
		cell   string
	}{
		"labels all true":  {values: []float64{0.9, 0.2, 0.8}, labels: []bool{true, true, true}, ci: []any{0.0, 1.0}, cell: "0.667 [0.000, 1.000]"},
		"labels all false": {values: []float64{0.1, 0.2, 0.8}, labels: []bool{false, false, false}, ci: []any{0.0, 1.0}, cell: "0.667 [0.000, 1.000]"},
		"both kinds":       {values: []float64{0.9, 0.2}, labels: []bool{true, false}, ci: []any{1.0, 1.0}, cell: "1.000 [1.000, 1.000]"},
		"no row":           {values: nil, labels: nil, ci: nil, cell: "n/a"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			rows := make([]agree.Row, len(tc.values))
			for i, v := range tc.values {
				rows[i] = agree.Row{ID: string(rune('a' + i)), Line: i + 1, Value: v, Label: tc.labels[i]}
			}
			res := agree.Rows("faithfulness", rows, 0, agree.Options{Label: "faithful", Threshold: &th})
			b, err := json.Marshal(res)
			require.NoError(t, err)
			var got struct {
				Fixed map[string]any `json:"fixed"`
			}
			require.NoError(t, json.Unmarshal(b, &got))
			assert.Equal(t, tc.ci, got.Fixed["balanced_accuracy_ci95"])
			// The balanced accuracy is the ninth cell of the fixed row.
			line, _, _ := strings.Cut(res.Markdown(), "\n")
			cells := strings.Split(line, " | ")
			require.Greater(t, len(cells), 8, line)
			assert.Equal(t, tc.cell, cells[8], line)
		})
	}
}
