package bench

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestConfusionMetrics(t *testing.T) {
	t.Parallel()
	type metrics struct{ acc, prec, rec, spec, ba, f1, kappa float64 }
	tests := map[string]struct {
		c    Confusion
		want metrics
	}{
		// N=10, po=0.7, pe=(4*5+6*5)/100=0.5, kappa=(0.7-0.5)/0.5.
		"mixed": {Confusion{TP: 3, FP: 1, TN: 4, FN: 2}, metrics{0.7, 0.75, 0.6, 0.8, 0.7, 6.0 / 9, 0.4}},
		// Only true labels: balanced accuracy is the recall; pe=po=0.75.
		"labels all true": {Confusion{TP: 3, FN: 1}, metrics{0.75, 1, 0.75, 0, 0.75, 6.0 / 7, 0}},
		// Only false labels: balanced accuracy is the specificity.
		"labels all false": {Confusion{FP: 1, TN: 3}, metrics{0.75, 0, 0, 0.75, 0.75, 0, 0}},
		// pe=1: kappa is undefined, so 0.
		"all true, all predicted true":   {Confusion{TP: 4}, metrics{1, 1, 1, 0, 1, 1, 0}},
		"all false, all predicted false": {Confusion{TN: 5}, metrics{1, 0, 0, 1, 1, 0, 0}},
		// po=0, pe=(2*2+2*2)/16=0.5.
		"all wrong":   {Confusion{FP: 2, FN: 2}, metrics{0, 0, 0, 0, 0, 0, -1}},
		"empty":       {Confusion{}, metrics{}},
		"perfect mix": {Confusion{TP: 2, TN: 2}, metrics{1, 1, 1, 1, 1, 1, 1}},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			c := tc.c
			got := metrics{c.Accuracy(), c.Precision(), c.Recall(), c.Specificity(), c.BalancedAccuracy(), c.F1(), c.Kappa()}
			for _, v := range []float64{got.acc, got.prec, got.rec, got.spec, got.ba, got.f1, got.kappa} {
				assert.False(t, math.IsNaN(v) || math.IsInf(v, 0))
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

func TestConfusionAt(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		values    []float64
		labels    []bool
		threshold float64
		want      Confusion
	}{
		"value equal to the threshold predicts true; NaN is left out": {
			[]float64{0.2, 0.5, 0.7, math.NaN()}, []bool{false, true, false, true}, 0.5,
			Confusion{TP: 1, FP: 1, TN: 1},
		},
		"everything below": {[]float64{0.1, 0.2}, []bool{true, false}, 0.9, Confusion{FN: 1, TN: 1}},
		"nothing":          {nil, nil, 0.5, Confusion{}},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tc.want, ConfusionAt(tc.values, tc.labels, tc.threshold))
		})
	}
}

func TestBestThreshold(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		values    []float64
		labels    []bool
		threshold float64
		want      Confusion
	}{
		// Sorted: 0.1F 0.2T 0.3F 0.6F 0.7T 0.9T. Balanced accuracy at
		// 0.1: 1/2; 0.15: 2/3; 0.25: 1/2; 0.45: 2/3; 0.65: (2/3+1)/2 = 5/6;
		// 0.8: 2/3; above 0.9: 1/2.
		"one clear best": {
			[]float64{0.7, 0.1, 0.6, 0.9, 0.3, 0.2}, []bool{true, false, false, true, false, true},
			0.65, Confusion{TP: 2, TN: 3, FN: 1},
		},
		// 0.25F 0.375T 0.625F 0.75T: 0.3125 and 0.6875 both give 3/4 and
		// lie 0.1875 from 0.5; the smaller wins.
		"a tie goes to the smaller of two equally close": {
			[]float64{0.25, 0.375, 0.625, 0.75}, []bool{false, true, false, true},
			0.3125, Confusion{TP: 2, FP: 1, TN: 1},
		},
		// 0.25T 0.5F 0.75T: all true gives 1/2, 0.375 (1/2+0)/2, 0.625
		// (1/2+1)/2 = 3/4, above 0.75 (0+1)/2.
		"a negative in the middle": {
			[]float64{0.25, 0.5, 0.75}, []bool{true, false, true},
			0.625, Confusion{TP: 1, TN: 1, FN: 1},
		},
		// All candidates give 1/2; 0.5 itself is closest to 0.5.
		"all values equal": {
			[]float64{0.5, 0.5}, []bool{true, false},
			0.5, Confusion{TP: 1, FP: 1},
		},
		"one class: everything predicted true": {
			[]float64{0.9, 0.2, 0.6}, []bool{true, true, true},
			0.2, Confusion{TP: 3},
		},
		"one class: everything predicted false": {
			[]float64{0.9, 0.2}, []bool{false, false},
			math.Nextafter(0.9, 1), Confusion{TN: 2},
		},
		"NaN left out": {
			[]float64{math.NaN(), 0.9}, []bool{false, true},
			0.9, Confusion{TP: 1},
		},
		"nothing": {nil, nil, 0.5, Confusion{}},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			th, c := BestThreshold(tc.values, tc.labels)
			assert.InDelta(t, tc.threshold, th, 1e-12)
			assert.Equal(t, tc.want, c)
			assert.Equal(t, c, ConfusionAt(tc.values, tc.labels, th), "the threshold gives its confusion")
		})
	}
}

func TestBestThresholdIsOrderIndependent(t *testing.T) {
	t.Parallel()
	values := []float64{0.25, 0.375, 0.625, 0.75, 0.5, 0.5}
	labels := []bool{false, true, false, true, true, false}
	th, c := BestThreshold(values, labels)
	for range 5 {
		// Reverse and compare.
		rv := make([]float64, len(values))
		rl := make([]bool, len(labels))
		for i := range values {
			rv[len(values)-1-i], rl[len(labels)-1-i] = values[i], labels[i]
		}
		th2, c2 := BestThreshold(rv, rl)
		assert.Equal(t, th, th2)
		assert.Equal(t, c, c2)
		values, labels = rv, rl
	}
}

func TestAUC(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		values []float64
		labels []bool
		want   float64
	}{
		// Pairs (pos, neg): (0.4,0.1)=1, (0.4,0.4)=1/2, (0.8,0.1)=1,
		// (0.8,0.4)=1: 3.5/4.
		"a tie across classes counts a half": {[]float64{0.1, 0.4, 0.4, 0.8}, []bool{false, true, false, true}, 0.875},
		"all tied":                           {[]float64{0.5, 0.5, 0.5}, []bool{true, false, true}, 0.5},
		"perfect":                            {[]float64{0.9, 0.1, 0.8}, []bool{true, false, true}, 1},
		"inverted":                           {[]float64{0.1, 0.9}, []bool{true, false}, 0},
		// (0.6 vs 0.3)=1, (0.6 vs 0.7)=0, (0.2 vs 0.3)=0, (0.2 vs 0.7)=0.
		"one of four":         {[]float64{0.6, 0.3, 0.2, 0.7}, []bool{true, false, true, false}, 0.25},
		"NaN left out":        {[]float64{math.NaN(), 0.2, 0.4}, []bool{false, false, true}, 1},
		"one class undefined": {[]float64{0.2, 0.4}, []bool{true, true}, 0},
		"nothing":             {nil, nil, 0},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			assert.InDelta(t, tc.want, AUC(tc.values, tc.labels), 1e-12)
		})
	}
}

func TestMismatchedLengthsPanic(t *testing.T) {
	t.Parallel()
	assert.Panics(t, func() { ConfusionAt([]float64{1}, nil, 0.5) })
	assert.Panics(t, func() { BestThreshold([]float64{1}, nil) })
	assert.Panics(t, func() { AUC(nil, []bool{true}) })
}

func TestBootstrapBalancedAccuracy(t *testing.T) {
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
	tests := map[string]struct {
		n        int
		maxWidth float64
		minWidth float64
	}{
		"20 a class: wide":    {n: 20, minWidth: 0.15, maxWidth: 0.35},
		"75 a class (BEGIN)":  {n: 75, minWidth: 0.08, maxWidth: 0.18},
		"1000 a class: tight": {n: 1000, minWidth: 0.02, maxWidth: 0.05},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			vs, ls := rows(tc.n)
			lo, hi := BootstrapBalancedAccuracy(vs, ls, 0.5, 2000)
			assert.LessOrEqual(t, lo, 0.8)
			assert.GreaterOrEqual(t, hi, 0.8)
			assert.Greater(t, hi-lo, tc.minWidth)
			assert.Less(t, hi-lo, tc.maxWidth)
			lo2, hi2 := BootstrapBalancedAccuracy(vs, ls, 0.5, 2000)
			assert.Equal(t, [2]float64{lo, hi}, [2]float64{lo2, hi2}, "the same on every run")
		})
	}
	t.Run("one class: the point estimate", func(t *testing.T) {
		lo, hi := BootstrapBalancedAccuracy([]float64{0.9, 0.1}, []bool{true, true}, 0.5, 2000)
		assert.Equal(t, [2]float64{0.5, 0.5}, [2]float64{lo, hi}, "the recall of the one class present")
	})
}

func TestMCC(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		c    Confusion
		want float64
	}{
		// (3*4 - 1*2) / sqrt(4*5*5*6) = 10/sqrt(600).
		"mixed":             {Confusion{TP: 3, FP: 1, TN: 4, FN: 2}, 10 / math.Sqrt(600)},
		"perfect":           {Confusion{TP: 2, TN: 3}, 1},
		"all wrong":         {Confusion{FP: 2, FN: 2}, -1},
		"labels all true":   {Confusion{TP: 3, FN: 1}, 0},
		"nothing predicted": {Confusion{TN: 2, FN: 2}, 0},
		"empty":             {Confusion{}, 0},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			assert.InDelta(t, tc.want, tc.c.MCC(), 1e-12)
		})
	}
}

func TestCalibrate(t *testing.T) {
	t.Parallel()
	// Brier: (0.15^2 + 0.65^2 + 0.15^2 + 0.05^2)/4 = 0.47/4. Each value
	// alone in its bin: ECE = (0.15 + 0.65 + 0.15 + 0.05)/4 = 0.25.
	c := Calibrate([]float64{0.15, 0.35, 0.85, 0.95}, []bool{false, true, true, true})
	require.NotNil(t, c)
	assert.InDelta(t, 0.1175, c.Brier, 1e-12)
	assert.InDelta(t, 0.25, c.ECE, 1e-12)
	require.Len(t, c.Reliability, CalibrationBins)
	assert.Equal(t, ReliabilityBin{Lo: 0.1, Hi: 0.2, N: 1, MeanPredicted: 0.15, FractionPositive: 0}, c.Reliability[1])
	assert.Equal(t, ReliabilityBin{Lo: 0.3, Hi: 0.4, N: 1, MeanPredicted: 0.35, FractionPositive: 1}, c.Reliability[3])
	assert.Equal(t, ReliabilityBin{Lo: 0, Hi: 0.1}, c.Reliability[0], "an empty bin is all zero")
	n := 0
	for _, b := range c.Reliability {
		n += b.N
	}
	assert.Equal(t, 4, n)

	assert.Nil(t, Calibrate([]float64{0.5, 3}, []bool{true, false}), "a value outside [0, 1] is no chance")
	assert.Nil(t, Calibrate(nil, nil))
}
