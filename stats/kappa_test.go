package stats_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/assaylabs/assay/stats"
)

// cohen1968 is Table 1 of Cohen (1968), "Weighted kappa", Psychological
// Bulletin 70(4): 200 cases, three diagnoses (personality disorder,
// neurosis, psychosis), one judge in rows and the other in columns; the
// paper prints proportions .44 .07 .09 / .05 .20 .05 / .01 .03 .06.
var cohen1968 = [][]int{{88, 14, 18}, {10, 40, 10}, {2, 6, 12}}

// skinCondition is the agreement study of the SAS/STAT PROC FREQ "Getting
// Started" chapter: two dermatologists grade 88 patients terrible, poor,
// marginal, clear.
var skinCondition = [][]int{{10, 4, 1, 0}, {5, 10, 12, 2}, {2, 4, 12, 5}, {0, 2, 6, 13}}

// TestWeightedKappa checks kappa against published figures and against the
// same tables worked by hand in exact fractions (k x k table of counts,
// disagreement v = 1, |i-j| or (i-j)^2, kappa = 1 - sum(v*po)/sum(v*pe)).
func TestWeightedKappa(t *testing.T) {
	t.Parallel()
	cohenA, cohenB := expand(cohen1968)
	skinA, skinB := expand(skinCondition)
	tests := map[string]struct {
		a, b, grades []float64
		w            stats.Weight
		want         float64
	}{
		// Cohen (1968) reports unweighted kappa .49: po = .70, pe = .41,
		// (.70-.41)/(1-.41) = 29/59.
		"cohen 1968 unweighted": {cohenA, cohenB, nil, stats.Unweighted, 29.0 / 59},
		// SAS prints simple kappa 0.3449 for the skin study: observed
		// disagreement 43/88, chance 361/484, kappa = 249/722.
		"sas skin condition unweighted": {skinA, skinB, nil, stats.Unweighted, 249.0 / 722},
		// The same table by hand: sum(|i-j| po) = 25/44,
		// sum(|i-j| pe) = 4473/3872, kappa = 2273/4473; quadratic
		// 8/11 over 2075/968, kappa = 1371/2075.
		"sas skin condition linear":    {skinA, skinB, nil, stats.Linear, 2273.0 / 4473},
		"sas skin condition quadratic": {skinA, skinB, nil, stats.Quadratic, 1371.0 / 2075},
		// Eight items graded 1-5 by hand: table of 8 pairs, po = 4/8,
		// pe = 7/32, unweighted (1/2 - 7/32)/(1 - 7/32) = 9/25; linear 7/11;
		// quadratic 5/6.
		"small unweighted":              {small1, small2, nil, stats.Unweighted, 9.0 / 25},
		"small linear":                  {small1, small2, nil, stats.Linear, 7.0 / 11},
		"small quadratic":               {small1, small2, nil, stats.Quadratic, 5.0 / 6},
		"grades given in another order": {small1, small2, []float64{5, 4, 3, 2, 1}, stats.Quadratic, 5.0 / 6},
		// Observed grades 1, 2, 4: with grades nil, 4 is one step from 2
		// (linear 2/5, quadratic 4/7); declaring 1..4 makes it two steps
		// (linear 8/23, quadratic 8/17).
		"unobserved grades are not steps": {gap1, gap2, nil, stats.Linear, 2.0 / 5},
		"declared grades are steps":       {gap1, gap2, []float64{1, 2, 3, 4}, stats.Linear, 8.0 / 23},
		"unobserved grades quadratic":     {gap1, gap2, nil, stats.Quadratic, 4.0 / 7},
		"declared grades quadratic":       {gap1, gap2, []float64{1, 2, 3, 4}, stats.Quadratic, 8.0 / 17},
		"perfect agreement":               {[]float64{1, 2, 3}, []float64{1, 2, 3}, nil, stats.Quadratic, 1},
		"a value not in the grades":       {[]float64{1, 2, 6}, []float64{1, 2, 3}, []float64{1, 2, 3, 4, 5}, stats.Linear, nan},
		"one grade used by both raters":   {[]float64{3, 3}, []float64{3, 3}, nil, stats.Linear, nan},
		"one grade even with a grade set": {[]float64{3, 3}, []float64{3, 3}, []float64{1, 2, 3}, stats.Unweighted, nan},
		"empty":                           {nil, nil, nil, stats.Linear, nan},
		"lengths differ":                  {[]float64{1, 2}, []float64{1}, nil, stats.Linear, nan},
		"a NaN":                           {[]float64{1, nan}, []float64{1, 2}, nil, stats.Linear, nan},
		"a weight that is not a constant": {[]float64{1, 2}, []float64{2, 1}, nil, stats.Weight(7), nan},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			assertFloat(t, tc.want, stats.WeightedKappa(tc.a, tc.b, tc.grades, tc.w))
		})
	}
}

// TestWeightedKappaLeavesArguments checks the grade set is not sorted in
// place: the caller's --grades slice is the caller's.
func TestWeightedKappaLeavesArguments(t *testing.T) {
	t.Parallel()
	grades := []float64{5, 4, 3, 2, 1}
	stats.WeightedKappa(small1, small2, grades, stats.Linear)
	assert.Equal(t, []float64{5, 4, 3, 2, 1}, grades)
}

func TestWeightString(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		w    stats.Weight
		want string
	}{
		"unweighted": {stats.Unweighted, "unweighted"},
		"linear":     {stats.Linear, "linear"},
		"quadratic":  {stats.Quadratic, "quadratic"},
		"unknown":    {stats.Weight(9), "Weight(9)"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tc.want, tc.w.String())
		})
	}
}

var (
	small1 = []float64{1, 2, 3, 4, 5, 3, 2, 4}
	small2 = []float64{1, 3, 3, 5, 4, 2, 2, 4}
	gap1   = []float64{1, 2, 4, 4, 2, 1}
	gap2   = []float64{1, 4, 4, 2, 2, 2}
)

// expand turns a table of counts into the two raters' grades, grade i+1 for
// row or column i.
func expand(table [][]int) (a, b []float64) {
	for i, row := range table {
		for j, count := range row {
			for range count {
				a = append(a, float64(i+1))
				b = append(b, float64(j+1))
			}
		}
	}
	return a, b
}
