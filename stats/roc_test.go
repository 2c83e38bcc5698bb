package stats_test

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/assaylabs/assay/stats"
)

func TestBestThreshold(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		values    []float64
		labels    []bool
		threshold float64
		want      stats.Confusion
	}{
		// Sorted: 0.1F 0.2T 0.3F 0.6F 0.7T 0.9T. Balanced accuracy at
		// 0.1: 1/2; 0.15: 2/3; 0.25: 1/2; 0.45: 2/3; 0.65: (2/3+1)/2 = 5/6;
		// 0.8: 2/3; above 0.9: 1/2.
		"one clear best": {
			[]float64{0.7, 0.1, 0.6, 0.9, 0.3, 0.2}, []bool{true, false, false, true, false, true},
			0.65, stats.Confusion{TP: 2, TN: 3, FN: 1},
		},
		// 0.25F 0.375T 0.625F 0.75T: 0.3125 and 0.6875 both give 3/4 and
		// lie 0.1875 from 0.5; the smaller wins.
		"a tie goes to the smaller of two equally close": {
			[]float64{0.25, 0.375, 0.625, 0.75}, []bool{false, true, false, true},
			0.3125, stats.Confusion{TP: 2, FP: 1, TN: 1},
		},
		// 0.25T 0.5F 0.75T: all true gives 1/2, 0.375 (1/2+0)/2, 0.625
		// (1/2+1)/2 = 3/4, above 0.75 (0+1)/2.
		"a negative in the middle": {
			[]float64{0.25, 0.5, 0.75}, []bool{true, false, true},
			0.625, stats.Confusion{TP: 1, TN: 1, FN: 1},
		},
		// All candidates give 1/2; 0.5 itself is closest to 0.5.
		"all values equal": {
			[]float64{0.5, 0.5}, []bool{true, false},
			0.5, stats.Confusion{TP: 1, FP: 1},
		},
		"one class: everything predicted true": {
			[]float64{0.9, 0.2, 0.6}, []bool{true, true, true},
			0.2, stats.Confusion{TP: 3},
		},
		"one class: everything predicted false": {
			[]float64{0.9, 0.2}, []bool{false, false},
			math.Nextafter(0.9, 1), stats.Confusion{TN: 2},
		},
		"NaN left out": {
			[]float64{math.NaN(), 0.9}, []bool{false, true},
			0.9, stats.Confusion{TP: 1},
		},
		"nothing": {nil, nil, 0.5, stats.Confusion{}},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			th, c := stats.BestThreshold(tc.values, tc.labels)
			assert.InDelta(t, tc.threshold, th, 1e-12)
			assert.Equal(t, tc.want, c)
			assert.Equal(t, c, stats.ConfusionAt(tc.values, tc.labels, th), "the threshold gives its confusion")
		})
	}
}

func TestBestThresholdIsOrderIndependent(t *testing.T) {
	t.Parallel()
	values := []float64{0.25, 0.375, 0.625, 0.75, 0.5, 0.5}
	labels := []bool{false, true, false, true, true, false}
	th, c := stats.BestThreshold(values, labels)
	for range 5 {
		// Reverse and compare.
		rv := make([]float64, len(values))
		rl := make([]bool, len(labels))
		for i := range values {
			rv[len(values)-1-i], rl[len(labels)-1-i] = values[i], labels[i]
		}
		th2, c2 := stats.BestThreshold(rv, rl)
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
			assert.InDelta(t, tc.want, stats.AUC(tc.values, tc.labels), 1e-12)
		})
	}
}
