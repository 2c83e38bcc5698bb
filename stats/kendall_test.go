package stats_test

import (
	"math"
	"math/rand/v2"
	"testing"

	mstats "github.com/montanaflynn/stats"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/assaylabs/assay/stats"
)

// TestKendallTauBHand checks small cases counted pair by pair (SciPy's own
// example and the undefined ones are in TestCorrelations).
func TestKendallTauBHand(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		x, y []float64
		want float64
	}{
		"same order":    {[]float64{1, 2, 3, 4}, []float64{10, 20, 30, 40}, 1},
		"reverse order": {[]float64{1, 2, 3, 4}, []float64{4, 3, 2, 1}, -1},
		// (1,2) C, (1,3) C, (2,3) D: (2-1)/sqrt(3*3).
		"one swap": {[]float64{1, 2, 3}, []float64{1, 3, 2}, 1.0 / 3},
		// x = 1,1,2,2 and y = 1,2,1,2: (1,2) tied in x, (3,4) tied in x,
		// (1,3) tied in y, (2,4) tied in y, (1,4) C, (2,3) D:
		// (1-1)/sqrt((2+2)*(2+2)) = 0.
		"ties cancel": {[]float64{1, 1, 2, 2}, []float64{1, 2, 1, 2}, 0},
		// x = 1,1,2,3 and y = 1,1,2,2: (1,2) tied in both (dropped),
		// (3,4) tied in y, the other 4 concordant: 4/sqrt((4+0)*(4+1)).
		"joint tie dropped": {[]float64{1, 1, 2, 3}, []float64{1, 1, 2, 2}, 4 / math.Sqrt(20)},
		"two pairs":         {[]float64{0.2, 0.9}, []float64{3, 1}, -1},
		"infinite values rank": {
			[]float64{math.Inf(-1), 0, math.Inf(1)}, []float64{1, 2, 3}, 1,
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			assert.InDelta(t, tc.want, stats.KendallTauB(tc.x, tc.y), 1e-12)
		})
	}
}

// TestKendallTauBMatchesPairwise checks the O(n log n) count against
// montanaflynn's KendallTau, which compares every pair (O(n^2)), on random
// data with few, many and no ties, to 1e-12.
func TestKendallTauBMatchesPairwise(t *testing.T) {
	t.Parallel()
	// draw returns n values: levels > 0 draws among that many levels (ties),
	// 0 a continuous value (no ties).
	draw := func(r *rand.Rand, n, levels int) []float64 {
		v := make([]float64, n)
		for i := range v {
			if levels > 0 {
				v[i] = float64(r.IntN(levels))
			} else {
				v[i] = r.NormFloat64()
			}
		}
		return v
	}
	tests := map[string]struct{ xLevels, yLevels int }{
		"grades vs grades":      {5, 5},
		"binary vs grades":      {2, 5},
		"values vs grades":      {0, 5},
		"values vs values":      {0, 0},
		"many ties on one side": {2, 0},
		"three vs four levels":  {3, 4},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			r := rand.New(rand.NewPCG(7, uint64(tc.xLevels*10+tc.yLevels)))
			for _, n := range []int{2, 3, 5, 17, 100, 1000} {
				for range 20 {
					x, y := draw(r, n, tc.xLevels), draw(r, n, tc.yLevels)
					// Correlated half the time, so that tau is not only near 0.
					if r.IntN(2) == 0 {
						for i := range y {
							if r.IntN(3) > 0 {
								y[i] = x[i]
							}
						}
					}
					want, err := mstats.KendallTau(x, y)
					got := stats.KendallTauB(x, y)
					if err != nil {
						require.True(t, math.IsNaN(got), "n=%d: pairwise says undefined (%v), got %v", n, err, got)
						continue
					}
					require.InDelta(t, want, got, 1e-12, "n=%d x=%v y=%v", n, x, y)
				}
			}
		})
	}
}

// TestKendallTauBLeavesInputs checks that the arguments are not reordered.
func TestKendallTauBLeavesInputs(t *testing.T) {
	t.Parallel()
	x, y := []float64{3, 1, 2}, []float64{1, 3, 2}
	stats.KendallTauB(x, y)
	assert.Equal(t, []float64{3, 1, 2}, x)
	assert.Equal(t, []float64{1, 3, 2}, y)
}

// BenchmarkKendallTauB: Knight's O(n log n) count at 10,000 grades, the
// size of the assay agree run; a bootstrap calls it once per
// resample.
func BenchmarkKendallTauB(b *testing.B) {
	x, y := grades(10_000)
	for b.Loop() {
		stats.KendallTauB(x, y)
	}
}

// BenchmarkKendallTauBPairwise is montanaflynn's O(n^2) tau-b on the same
// data, which KendallTauB replaced.
func BenchmarkKendallTauBPairwise(b *testing.B) {
	x, y := grades(10_000)
	for b.Loop() {
		_, _ = mstats.KendallTau(x, y)
	}
}
