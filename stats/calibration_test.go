package stats_test

import (
	"encoding/json"
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/assaylabs/assay/stats"
)

// TestBrier checks the Brier score against sums done by hand.
func TestBrier(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		p    []float64
		y    []bool
		want float64
	}{
		// (0.01 + 0.01 + 0.64 + 0.49) / 4.
		"hand example":       {[]float64{0.1, 0.9, 0.8, 0.3}, []bool{false, true, false, true}, 0.2875},
		"always one half":    {[]float64{0.5, 0.5, 0.5}, []bool{true, false, false}, 0.25},
		"certain and right":  {[]float64{1, 0}, []bool{true, false}, 0},
		"certain and wrong":  {[]float64{0, 1}, []bool{true, false}, 1},
		"empty":              {nil, nil, nan},
		"lengths differ":     {[]float64{0.5}, []bool{true, false}, nan},
		"a probability of 2": {[]float64{2}, []bool{true}, nan},
		"a negative one":     {[]float64{-0.1}, []bool{true}, nan},
		"a NaN":              {[]float64{nan}, []bool{true}, nan},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			assertFloat(t, tc.want, stats.Brier(tc.p, tc.y))
		})
	}
}

// TestECE checks the expected calibration error against bins worked by
// hand: sum over bins of N_b/N * |fraction positive - mean predicted|.
func TestECE(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		p    []float64
		y    []bool
		bins int
		want float64
	}{
		// Two bins: [0, .5) holds .1 and .2 (mean .15, one of two
		// positive): 2/4 * .35; [.5, 1] holds .7 and .9 (mean .8, both
		// positive): 2/4 * .2. Total .275.
		"two bins": {[]float64{0.1, 0.2, 0.7, 0.9}, []bool{false, true, true, true}, 2, 0.275},
		// One bin is |mean p - share positive| = |.475 - .75|.
		"one bin": {[]float64{0.1, 0.2, 0.7, 0.9}, []bool{false, true, true, true}, 1, 0.275},
		// Ten bins: .05 -> bin 0 (|0 - .05|), .35 -> bin 3 (|1 - .35|),
		// .3 (a boundary) -> bin 3 too, so bin 3 has mean .325 and
		// fraction 1/2; 1.0 -> bin 9 (|1 - 1|).
		// 1/4*.05 + 2/4*|.5 - .325| + 0 = .0125 + .0875.
		"ten bins with boundaries": {[]float64{0.05, 0.35, 0.3, 1}, []bool{false, true, false, true}, 10, 0.1},
		"perfectly calibrated":     {[]float64{0.5, 0.5, 1, 0}, []bool{true, false, true, false}, 10, 0},
		"no bins":                  {[]float64{0.5}, []bool{true}, 0, nan},
		"empty":                    {nil, nil, 10, nan},
		"out of range":             {[]float64{1.5}, []bool{true}, 10, nan},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			assertFloat(t, tc.want, stats.ECE(tc.p, tc.y, tc.bins))
		})
	}
}

// TestReliability checks every field of a reliability table, its empty
// bins and that it encodes as JSON.
func TestReliability(t *testing.T) {
	t.Parallel()
	p := []float64{0, 0.2, 0.25, 0.5, 0.6, 0.99, 1}
	y := []bool{false, false, true, false, true, true, true}
	got := stats.Reliability(p, y, 4)
	want := []stats.Bin{
		{Lo: 0, Hi: 0.25, N: 2, MeanPredicted: 0.1, FractionPositive: 0},
		{Lo: 0.25, Hi: 0.5, N: 1, MeanPredicted: 0.25, FractionPositive: 1},
		{Lo: 0.5, Hi: 0.75, N: 2, MeanPredicted: 0.55, FractionPositive: 0.5},
		{Lo: 0.75, Hi: 1, N: 2, MeanPredicted: 0.995, FractionPositive: 1},
	}
	require.Len(t, got, len(want))
	for i := range want {
		assert.Equal(t, want[i].Lo, got[i].Lo, "bin %d", i)
		assert.Equal(t, want[i].Hi, got[i].Hi, "bin %d", i)
		assert.Equal(t, want[i].N, got[i].N, "bin %d", i)
		assert.InDelta(t, want[i].MeanPredicted, got[i].MeanPredicted, 1e-9, "bin %d", i)
		assert.InDelta(t, want[i].FractionPositive, got[i].FractionPositive, 1e-9, "bin %d", i)
	}

	empty := stats.Reliability([]float64{0.95}, []bool{true}, 10)
	require.Len(t, empty, 10)
	assert.Equal(t, stats.Bin{Lo: 0.3, Hi: 0.4}, empty[3], "an empty bin has zero means")
	assert.Equal(t, 1, empty[9].N)
	b, err := json.Marshal(empty[:1])
	require.NoError(t, err)
	assert.JSONEq(t, `[{"lo":0,"hi":0.1,"n":0,"mean_predicted":0,"fraction_positive":0}]`, string(b))

	assert.Nil(t, stats.Reliability(p, y, 0), "no bins")
	assert.Nil(t, stats.Reliability(p, y[:2], 4), "lengths differ")
}

// TestReliabilityBoundaries checks that each multiple i/bins lands in the
// bin that starts there and the float just below it in the bin before,
// whatever the rounding of p*bins: 15/22 times 22 rounds below 15, and
// 0.8999999999999999 times 10 rounds up to 9.
func TestReliabilityBoundaries(t *testing.T) {
	t.Parallel()
	for _, bins := range []int{3, 10, 22, 45} {
		var p []float64
		for i := range bins + 1 {
			edge := float64(i) / float64(bins)
			p = append(p, edge)
			if i > 0 {
				p = append(p, math.Nextafter(edge, 0))
			}
		}
		table := stats.Reliability(p, make([]bool, len(p)), bins)
		require.Len(t, table, bins)
		for i, b := range table {
			want := 2 // its lower edge and the float below its upper edge
			if i == bins-1 {
				want = 3 // the last bin also holds 1
			}
			assert.Equal(t, want, b.N, "%d bins, bin %d", bins, i)
		}
	}
}

// TestCalibrate checks the three figures measured together against sums
// done by hand, and nil where the predictions are no probabilities.
func TestCalibrate(t *testing.T) {
	t.Parallel()
	// Brier: (0.15^2 + 0.65^2 + 0.15^2 + 0.05^2)/4 = 0.47/4. Each value
	// alone in its bin: ECE = (0.15 + 0.65 + 0.15 + 0.05)/4 = 0.25.
	c := stats.Calibrate([]float64{0.15, 0.35, 0.85, 0.95}, []bool{false, true, true, true}, 10)
	require.NotNil(t, c)
	assert.InDelta(t, 0.1175, c.Brier, 1e-12)
	assert.InDelta(t, 0.25, c.ECE, 1e-12)
	require.Len(t, c.Reliability, 10)
	assert.Equal(t, stats.Bin{Lo: 0.1, Hi: 0.2, N: 1, MeanPredicted: 0.15, FractionPositive: 0}, c.Reliability[1])
	assert.Equal(t, stats.Bin{Lo: 0.3, Hi: 0.4, N: 1, MeanPredicted: 0.35, FractionPositive: 1}, c.Reliability[3])
	assert.Equal(t, stats.Bin{Lo: 0, Hi: 0.1}, c.Reliability[0], "an empty bin is all zero")
	n := 0
	for _, b := range c.Reliability {
		n += b.N
	}
	assert.Equal(t, 4, n)

	nils := map[string]struct {
		p    []float64
		y    []bool
		bins int
	}{
		"a value outside [0, 1] is no chance": {[]float64{0.5, 3}, []bool{true, false}, 10},
		"a NaN":                               {[]float64{0.5, nan}, []bool{true, false}, 10},
		"nothing":                             {nil, nil, 10},
		"lengths differ":                      {[]float64{0.5}, []bool{true, false}, 10},
		"no bins":                             {[]float64{0.5}, []bool{true}, 0},
	}
	for name, tc := range nils {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			assert.Nil(t, stats.Calibrate(tc.p, tc.y, tc.bins))
		})
	}
}
