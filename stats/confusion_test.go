package stats_test

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/assaylabs/assay/stats"
)

func TestConfusionMetrics(t *testing.T) {
	t.Parallel()
	type metrics struct{ acc, prec, rec, spec, ba, f1, kappa float64 }
	tests := map[string]struct {
		c    stats.Confusion
		want metrics
	}{
		// N=10, po=0.7, pe=(4*5+6*5)/100=0.5, kappa=(0.7-0.5)/0.5.
		"mixed": {stats.Confusion{TP: 3, FP: 1, TN: 4, FN: 2}, metrics{0.7, 0.75, 0.6, 0.8, 0.7, 6.0 / 9, 0.4}},
		// Only true labels: balanced accuracy is the recall; pe=po=0.75.
		"labels all true": {stats.Confusion{TP: 3, FN: 1}, metrics{0.75, 1, 0.75, 0, 0.75, 6.0 / 7, 0}},
		// Only false labels: balanced accuracy is the specificity.
		"labels all false": {stats.Confusion{FP: 1, TN: 3}, metrics{0.75, 0, 0, 0.75, 0.75, 0, 0}},
		// pe=1: kappa is undefined (TestConfusionKappaUndefined).
		"all true, all predicted true":   {stats.Confusion{TP: 4}, metrics{1, 1, 1, 0, 1, 1, math.NaN()}},
		"all false, all predicted false": {stats.Confusion{TN: 5}, metrics{1, 0, 0, 1, 1, 0, math.NaN()}},
		// po=0, pe=(2*2+2*2)/16=0.5.
		"all wrong":   {stats.Confusion{FP: 2, FN: 2}, metrics{0, 0, 0, 0, 0, 0, -1}},
		"empty":       {stats.Confusion{}, metrics{kappa: math.NaN()}},
		"perfect mix": {stats.Confusion{TP: 2, TN: 2}, metrics{1, 1, 1, 1, 1, 1, 1}},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			c := tc.c
			got := metrics{c.Accuracy(), c.Precision(), c.Recall(), c.Specificity(), c.BalancedAccuracy(), c.F1(), c.Kappa()}
			for _, v := range []float64{got.acc, got.prec, got.rec, got.spec, got.ba, got.f1} {
				assert.False(t, math.IsNaN(v) || math.IsInf(v, 0))
			}
			if math.IsNaN(tc.want.kappa) {
				assert.True(t, math.IsNaN(got.kappa), "kappa %v, want NaN", got.kappa)
				got.kappa, tc.want.kappa = 0, 0
			}
			assert.InDelta(t, tc.want.acc, got.acc, 1e-12, "accuracy")
			assert.InDelta(t, tc.want.prec, got.prec, 1e-12, "precision")
			assert.InDelta(t, tc.want.rec, got.rec, 1e-12, "recall")
			assert.InDelta(t, tc.want.spec, got.spec, 1e-12, "specificity")
			assert.InDelta(t, tc.want.ba, got.ba, 1e-12, "balanced accuracy")
			assert.InDelta(t, tc.want.f1, got.f1, 1e-12, "F1")
			assert.InDelta(t, tc.want.kappa, got.kappa, 1e-12, "kappa")
		})
	}
}

func TestMCC(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		c    stats.Confusion
		want float64
	}{
		// (3*4 - 1*2) / sqrt(4*5*5*6) = 10/sqrt(600).
		"mixed":             {stats.Confusion{TP: 3, FP: 1, TN: 4, FN: 2}, 10 / math.Sqrt(600)},
		"perfect":           {stats.Confusion{TP: 2, TN: 3}, 1},
		"all wrong":         {stats.Confusion{FP: 2, FN: 2}, -1},
		"labels all true":   {stats.Confusion{TP: 3, FN: 1}, 0},
		"nothing predicted": {stats.Confusion{TN: 2, FN: 2}, 0},
		"empty":             {stats.Confusion{}, 0},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			assert.InDelta(t, tc.want, tc.c.MCC(), 1e-12)
		})
	}
}

// TestConfusionKappaIsWeightedKappa checks the confusion matrix's kappa is
// WeightedKappa's, unweighted, over the same pairs, to the last digit:
// one kappa in the package.
func TestConfusionKappaIsWeightedKappa(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		c    stats.Confusion
		want float64
	}{
		// po = 14/16, pe = (10*10 + 6*6)/256: (po-pe)/(1-pe) = 11/15.
		"agree's fixture":          {stats.Confusion{TP: 9, FP: 1, TN: 5, FN: 1}, 11.0 / 15},
		"mixed (0.4, by hand too)": {stats.Confusion{TP: 3, FP: 1, TN: 4, FN: 2}, 0.4},
		"all wrong":                {stats.Confusion{FP: 2, FN: 2}, -1},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			var pred, label []float64
			add := func(n int, p, l float64) {
				for range n {
					pred, label = append(pred, p), append(label, l)
				}
			}
			add(tc.c.TP, 1, 1)
			add(tc.c.FP, 1, 0)
			add(tc.c.TN, 0, 0)
			add(tc.c.FN, 0, 1)
			assert.Equal(t, tc.want, tc.c.Kappa())
			assert.Equal(t, stats.WeightedKappa(pred, label, []float64{0, 1}, stats.Unweighted), tc.c.Kappa())
		})
	}
}

// TestConfusionKappaUndefined: Cohen's kappa, (po - pe)/(1 - pe) (Cohen
// 1960, "A coefficient of agreement for nominal scales", Educational and
// Psychological Measurement 20(1), eq. 1), is 0/0 when pe is 1: the
// predictions and the labels all of one and the same class, or no pair.
// It is NaN there, as WeightedKappa of the same pairs is, not 0, which
// reads as agreement no better than chance beside an accuracy of 1. A
// table with one class of labels but both kinds of prediction has pe below
// 1 and a kappa of 0, defined.
func TestConfusionKappaUndefined(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		c         stats.Confusion
		undefined bool
	}{
		"all true, all predicted true":   {stats.Confusion{TP: 4}, true},
		"all false, all predicted false": {stats.Confusion{TN: 5}, true},
		"no pair":                        {stats.Confusion{}, true},
		// po = 3/4, pe = 3/4 * 1 + 1/4 * 0: kappa 0, defined.
		"labels all true, predictions mixed": {stats.Confusion{TP: 3, FN: 1}, false},
		// po = 0, pe = 0: kappa 0.
		"labels all true, all predicted false": {stats.Confusion{FN: 2}, false},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			k := tc.c.Kappa()
			assert.Equal(t, tc.undefined, math.IsNaN(k), "kappa %v", k)
			if !tc.undefined {
				assert.Equal(t, 0.0, k)
			}
		})
	}
}

func TestConfusionAt(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		values    []float64
		labels    []bool
		threshold float64
		want      stats.Confusion
	}{
		"value equal to the threshold predicts true; NaN is left out": {
			[]float64{0.2, 0.5, 0.7, math.NaN()}, []bool{false, true, false, true}, 0.5,
			stats.Confusion{TP: 1, FP: 1, TN: 1},
		},
		"everything below": {[]float64{0.1, 0.2}, []bool{true, false}, 0.9, stats.Confusion{FN: 1, TN: 1}},
		"nothing":          {nil, nil, 0.5, stats.Confusion{}},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tc.want, stats.ConfusionAt(tc.values, tc.labels, tc.threshold))
		})
	}
}

func TestMismatchedLengthsPanic(t *testing.T) {
	t.Parallel()
	assert.Panics(t, func() { stats.ConfusionAt([]float64{1}, nil, 0.5) })
	assert.Panics(t, func() { stats.BestThreshold([]float64{1}, nil) })
	assert.Panics(t, func() { stats.AUC(nil, []bool{true}) })
}

func TestBalancedAccuracyCI(t *testing.T) {
	t.Parallel()
	// n rows per class; the judge is right on 80% of each class.
	rows := func(n int) ([]float64, []bool) {
		var vs []float64
		var ls []bool
		for i := range n {
			right := i%5 != 0
			vs = append(vs, map[bool]float64{true: 0.9, false: 0.1}[right])
			ls = append(ls, true)
			vs = append(vs, map[bool]float64{true: 0.1, false: 0.9}[right])
			ls = append(ls, false)
		}
		return vs, ls
	}
	widths := map[string]struct {
		n        int
		maxWidth float64
		minWidth float64
	}{
		"20 a class: wide":    {n: 20, minWidth: 0.15, maxWidth: 0.35},
		"75 a class (BEGIN)":  {n: 75, minWidth: 0.08, maxWidth: 0.18},
		"1000 a class: tight": {n: 1000, minWidth: 0.02, maxWidth: 0.05},
	}
	for name, tc := range widths {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			vs, ls := rows(tc.n)
			lo, hi := stats.BalancedAccuracyCI(vs, ls, 0.5, 2000, 1)
			assert.LessOrEqual(t, lo, 0.8)
			assert.GreaterOrEqual(t, hi, 0.8)
			assert.Greater(t, hi-lo, tc.minWidth)
			assert.Less(t, hi-lo, tc.maxWidth)
			lo2, hi2 := stats.BalancedAccuracyCI(vs, ls, 0.5, 2000, 1)
			assert.Equal(t, [2]float64{lo, hi}, [2]float64{lo2, hi2}, "the same on every run")
		})
	}
	exact := map[string]struct {
		values []float64
		labels []bool
		lo, hi float64
	}{
		// Every resample keeps one positive and one negative, both right.
		"all right: a point": {[]float64{0.9, 0.2}, []bool{true, false}, 1, 1},
		// Two positives, one right; the negative right. A resample's recall
		// is 0, 1/2 or 1 with chances 1/4, 1/2, 1/4 (its specificity is
		// 1), so its balanced accuracy 0.5, 0.75 or 1: of 2,000 resamples
		// about 500 at each end, far more than the 50 that each 2.5% tail
		// holds.
		"one positive of two missed": {[]float64{0.9, 0.1, 0.2}, []bool{true, true, false}, 0.5, 1},
		// A NaN value is left out, as from ConfusionAt: not a missed
		// positive.
		"NaN left out": {[]float64{0.9, math.NaN(), 0.2}, []bool{true, true, false}, 1, 1},
		// One class: the balanced accuracy is the recall of the class
		// present (0.5 here), and the interval the recall's over resamples
		// of that class, not the point alone: of two positives, one
		// missed, a resample's recall is 0, 1/2 or 1 with chances 1/4,
		// 1/2, 1/4 (the percentile bootstrap, Efron and Tibshirani 1993,
		// ch. 13), so the ends are 0 and 1.
		"one class: the recall's interval": {[]float64{0.9, 0.1}, []bool{true, true}, 0, 1},
		// Of three negatives, one called true: a resample's specificity
		// is 1 - k/3 for k ~ Binomial(3, 1/3) calls of it, 0 with chance
		// 1/27 (about 74 of 2,000), more than the 2.5% tail.
		"one class of negatives": {[]float64{0.9, 0.1, 0.2}, []bool{false, false, false}, 0, 1},
		// No pair: no balanced accuracy, no interval.
		"nothing": {nil, nil, math.NaN(), math.NaN()},
	}
	for name, tc := range exact {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			lo, hi := stats.BalancedAccuracyCI(tc.values, tc.labels, 0.5, 2000, 1)
			if math.IsNaN(tc.lo) {
				assert.True(t, math.IsNaN(lo) && math.IsNaN(hi), "[%v, %v], want NaN", lo, hi)
				return
			}
			assert.Equal(t, [2]float64{tc.lo, tc.hi}, [2]float64{lo, hi})
		})
	}
	t.Run("no resamples: the point estimate", func(t *testing.T) {
		t.Parallel()
		lo, hi := stats.BalancedAccuracyCI([]float64{0.9, 0.1, 0.2}, []bool{true, true, false}, 0.5, 0, 1)
		assert.Equal(t, [2]float64{0.75, 0.75}, [2]float64{lo, hi})
	})
	assert.Panics(t, func() { stats.BalancedAccuracyCI([]float64{1}, nil, 0.5, 10, 1) })
}
