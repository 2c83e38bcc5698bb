package stats_test

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/assaylabs/assay/stats"
)

// krippendorff2011 is the reliability data of Krippendorff, "Computing
// Krippendorff's Alpha-Reliability" (2011), section C: 4 observers (rows of
// the paper, columns here) by 12 units, with missing values; unit 12 has a
// single value and is not pairable.
var krippendorff2011 = [][]float64{
	{1, 1, nan, 1},
	{2, 2, 3, 2},
	{3, 3, 3, 3},
	{3, 3, 3, 3},
	{2, 2, 2, 2},
	{1, 2, 3, 4},
	{4, 4, 4, 4},
	{1, 1, 2, 1},
	{2, 2, 2, 2},
	{nan, 5, 5, 5},
	{nan, nan, 1, 1},
	{nan, 3, nan, nan},
}

// TestKrippendorffAlpha checks alpha against Krippendorff's published
// results and against his method carried out in exact fractions (the
// coincidence matrix has n = 40 pairable values).
func TestKrippendorffAlpha(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		units     [][]float64
		level     stats.Level
		want      float64
		published float64 // to the paper's three decimals; NaN: none
	}{
		// Published 0.743; exactly 113/152.
		"2011 example nominal": {krippendorff2011, stats.Nominal, 113.0 / 152, 0.743},
		// Published 0.815; exactly 108577/133160.
		"2011 example ordinal": {krippendorff2011, stats.Ordinal, 108577.0 / 133160, 0.815},
		// Published 0.849; exactly 951/1120.
		"2011 example interval": {krippendorff2011, stats.Interval, 951.0 / 1120, 0.849},
		// Section A of the same paper: two observers, ten units, binary
		// values, no missing data; published 0.095, exactly 2/21.
		"2011 binary example": {
			pairs([]float64{0, 1, 0, 0, 0, 0, 0, 0, 1, 0}, []float64{1, 1, 1, 0, 0, 1, 0, 0, 0, 0}),
			stats.Nominal, 2.0 / 21, 0.095,
		},
		// The 2011 example with each unit's missing values left out
		// rather than marked NaN.
		"rows may be ragged instead of padded with NaN": {
			[][]float64{{1, 1, 1}, {2, 2, 3, 2}, {3, 3, 3, 3}, {3, 3, 3, 3}, {2, 2, 2, 2}, {1, 2, 3, 4}, {4, 4, 4, 4}, {1, 1, 2, 1}, {2, 2, 2, 2}, {5, 5, 5}, {1, 1}, {3}},
			stats.Nominal, 113.0 / 152, 0.743,
		},
		"perfect agreement with missing values": {[][]float64{{1, 1, nan}, {2, nan, 2}, {3, 3, 3}}, stats.Interval, 1, nan},
		"every value the same":                  {[][]float64{{2, 2}, {2, 2, nan}}, stats.Interval, nan, nan},
		"no unit with two values":               {[][]float64{{1, nan}, {nan, 2}, {3}}, stats.Nominal, nan, nan},
		"no units":                              {nil, stats.Ordinal, nan, nan},
		"a level that is not a constant":        {krippendorff2011, stats.Level(5), nan, nan},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			got := stats.KrippendorffAlpha(tc.units, tc.level)
			assertFloat(t, tc.want, got)
			if !math.IsNaN(tc.published) {
				assert.InDelta(t, tc.published, math.Round(got*1000)/1000, 1e-12, "rounded to the published precision")
			}
		})
	}
}

// TestKrippendorffAlphaTwoRaters checks that with two raters, no missing
// values and nominal data, alpha and Cohen's kappa differ only by alpha's
// small-sample correction: alpha = 1 - (n-1)/n * Do/De over the pooled
// margins, so on a symmetric table (equal margins) alpha = 1 - (2N-1)/(2N)
// * (1 - kappa) for N units.
func TestKrippendorffAlphaTwoRaters(t *testing.T) {
	t.Parallel()
	// Symmetric: each rater used grade 1 four times, 2 three times, 3 once.
	a := []float64{1, 1, 1, 2, 2, 1, 2, 3}
	b := []float64{1, 1, 2, 1, 2, 1, 2, 3}
	kappa := stats.WeightedKappa(a, b, nil, stats.Unweighted)
	n := float64(2 * len(a))
	assert.InDelta(t, 1-(n-1)/n*(1-kappa), stats.KrippendorffAlpha(pairs(a, b), stats.Nominal), 1e-9)
}

func TestLevelString(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		l    stats.Level
		want string
	}{
		"nominal":  {stats.Nominal, "nominal"},
		"ordinal":  {stats.Ordinal, "ordinal"},
		"interval": {stats.Interval, "interval"},
		"unknown":  {stats.Level(4), "Level(4)"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tc.want, tc.l.String())
		})
	}
}

// pairs turns two raters' values into units of two values.
func pairs(a, b []float64) [][]float64 {
	units := make([][]float64, len(a))
	for i := range a {
		units[i] = []float64{a[i], b[i]}
	}
	return units
}
