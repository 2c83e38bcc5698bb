package agree

import (
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestGroupsTakeTheWholesGradeScale holds that a group of a graded
// result puts the judge on the whole's grades: a group that observes
// only some grades must not map a value in [0, 1] onto its own narrower
// range (a judge right on every record would show an error in each group).
func TestGroupsTakeTheWholesGradeScale(t *testing.T) {
	t.Parallel()
	// The judge's value v is exactly (grade-1)/4 on grades 1-5: right on
	// every record. Group "lo" has grades 1-3, "hi" 3-5; records without
	// the label (for --estimate) carry 0.5 and 1.
	row := func(id, group string, v float64, grade float64, labelled bool) Row {
		r := Row{ID: id, Value: v, Group: group, Unlabelled: !labelled}
		if labelled {
			g := grade
			r.Grade = &g
		}
		return r
	}
	var rows []Row
	for i, g := range []float64{1, 2, 3, 1, 2, 3, 1, 2, 3, 2, 3, 4, 5, 3, 4, 5, 3, 4, 5, 4} {
		group := "lo"
		if i >= 10 {
			group = "hi"
		}
		rows = append(rows, row(string(rune('a'+i)), group, (g-1)/4, g, true))
	}
	unlabelled := append(slices.Clone(rows), row("u1", "lo", 0.5, 0, false), row("u2", "hi", 1, 0, false))
	tests := map[string]struct {
		opts Options
		// judgeOnly are the estimate's judge-alone means, per group
		// ("" the whole): the mean grade the judge says, on 1-5.
		judgeOnly map[string]float64
	}{
		"graded":               {opts: Options{Label: "grade", Graded: true, By: "meta.m"}},
		"graded, --grades 1-5": {opts: Options{Label: "grade", Graded: true, By: "meta.m", Grades: []float64{1, 2, 3, 4, 5}}},
		"graded with --estimate": {opts: Options{Label: "grade", Graded: true, By: "meta.m", Estimate: true},
			// lo: grades 1,2,3,1,2,3,1,2,3,2 and 3 (0.5); hi: 3,4,5,3,4,5,3,4,5,4 and 5 (1).
			judgeOnly: map[string]float64{"": 68.0 / 22, "lo": 23.0 / 11, "hi": 45.0 / 11}},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			rs := rows
			if tc.opts.Estimate {
				rs = unlabelled
			}
			res := Rows("judge", rs, 0, tc.opts)
			require.NotNil(t, res.GradedStats)
			require.Len(t, res.Groups, 2)
			assert.Equal(t, []float64{1, 2, 3, 4, 5}, res.Grades)
			assert.InDelta(t, 0, float64(res.MAE.Value), 1e-12)
			for _, g := range res.Groups {
				require.NotNil(t, g.GradedStats, g.Group)
				assert.Equal(t, res.Grades, g.Grades, "group %s: the whole's grades", g.Group)
				assert.Equal(t, "linear", g.JudgeOnGrades, g.Group)
				assert.InDelta(t, 0, float64(g.MAE.Value), 1e-12, "group %s: the judge is right on every record", g.Group)
				assert.InDelta(t, 1, float64(g.KappaQuadratic.Value), 1e-12, g.Group)
			}
			if tc.judgeOnly == nil {
				return
			}
			require.NotNil(t, res.Mean)
			assert.InDelta(t, tc.judgeOnly[""], float64(res.Mean.JudgeOnly), 1e-12)
			for _, g := range res.Groups {
				require.NotNil(t, g.Mean, g.Group)
				assert.InDelta(t, tc.judgeOnly[g.Group], float64(g.Mean.JudgeOnly), 1e-12, "group %s", g.Group)
			}
		})
	}
}
