package agree

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestGradedLeavesAValueOffTheScaleUndefined holds that a judge value
// that is no grade and off [0, 1] (2.5, a mean of two raters' grades) is
// not clamped onto [0, 1] and read as the top grade: the statistics that
// need the judge on the grades are undefined, the correlations stay, and
// --estimate refuses it naming its record.
func TestGradedLeavesAValueOffTheScaleUndefined(t *testing.T) {
	t.Parallel()
	labels := []float64{1, 2, 3, 1, 2, 3, 1, 2, 3, 2, 3, 1}
	tests := map[string]struct {
		values []float64
		grades []float64
		how    string // JudgeOnGrades
		mae    float64
		record string // the record --estimate names
	}{
		"a half grade":                    {values: []float64{1, 2, 2.5, 1, 2, 3, 1, 2, 3, 2, 3, 1}, how: "none: 2.5 is no grade and off [0, 1]", mae: math.NaN(), record: "c"},
		"below 0":                         {values: []float64{0, 0.5, 1, -0.25, 0.5, 1, 0, 0.5, 1, 0.5, 1, 0}, how: "none: -0.25 is no grade and off [0, 1]", mae: math.NaN(), record: "d"},
		"just above 1":                    {values: []float64{0, 0.5, 1, 0, 0.5, 1.0001, 0, 0.5, 1, 0.5, 1, 0}, how: "none: 1.0001 is no grade and off [0, 1]", mae: math.NaN(), record: "f"},
		"in [0, 1]: linear":               {values: []float64{0, 0.5, 1, 0, 0.5, 1, 0, 0.5, 1, 0.5, 1, 0}, how: "linear", mae: 0},
		"half grades given":               {values: []float64{1, 2, 2.5, 1, 2, 3, 1, 2, 3, 2, 3, 1}, grades: []float64{1, 1.5, 2, 2.5, 3}, how: "as given", mae: 0.5 / 12},
		"grades beside a value in [0, 1]": {values: []float64{1, 2, 3, 1, 2, 3, 1, 2, 3, 2, 3, 0.5}, how: "none: 2 is off [0, 1], and not every value is a grade", mae: math.NaN(), record: "b"},
		"whole grades: as given":          {values: []float64{1, 2, 3, 1, 2, 3, 1, 2, 3, 2, 3, 2}, how: "as given", mae: 1.0 / 12},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			var rows []Row
			for i, v := range tc.values {
				g := labels[i]
				rows = append(rows, Row{ID: string(rune('a' + i)), Line: i + 1, Value: v, Grade: &g})
			}
			g := Graded(rows, tc.grades)
			assert.Equal(t, tc.how, g.JudgeOnGrades)
			if math.IsNaN(tc.mae) {
				for _, e := range []Estimate{g.KappaLinear, g.KappaQuadratic, g.AlphaOrdinal, g.AlphaInterval, g.MAE} {
					assert.True(t, math.IsNaN(float64(e.Value)), "%v", e.Value)
					assert.True(t, math.IsNaN(float64(e.CI95[0])) && math.IsNaN(float64(e.CI95[1])), "%v", e.CI95)
				}
			} else {
				assert.InDelta(t, tc.mae, float64(g.MAE.Value), 1e-12)
			}
			assert.False(t, math.IsNaN(float64(g.Spearman.Value)), "the correlations need no common scale")

			// --estimate: the same records and as many without the label.
			for i, v := range tc.values {
				rows = append(rows, Row{ID: "u" + string(rune('a'+i)), Line: 20 + i, Value: v, Unlabelled: true})
			}
			res := Rows("meta.judge", rows, 0, Options{Label: "grade", Graded: true, Grades: tc.grades, Estimate: true})
			err := checkEstimate("d.jsonl", res)
			if !math.IsNaN(tc.mae) {
				require.NoError(t, err)
				return
			}
			require.Error(t, err)
			assert.Contains(t, err.Error(), "d.jsonl:")
			assert.Contains(t, err.Error(), "record "+tc.record+": meta.judge: ")
			assert.Contains(t, err.Error(), tc.how[len("none: "):])
			assert.True(t, math.IsNaN(float64(res.Mean.Estimate)), "no estimate from a judge off the grades")
		})
	}
}
