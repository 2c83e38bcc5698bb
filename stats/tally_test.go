package stats_test

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/assaylabs/assay/stats"
)

// TestTallyMatchesResampledValues checks every statistic of a Tally after
// Draw against the function of the same name on the values the resample
// drew, to 1e-12 (NaN matching NaN), over grades, values and mixes, and
// resamples of every size from one item up, some of them constant.
func TestTallyMatchesResampledValues(t *testing.T) {
	t.Parallel()
	draw := func(r *rand.Rand, n, levels int) []float64 {
		v := make([]float64, n)
		for i := range v {
			if levels > 0 {
				v[i] = float64(1 + r.IntN(levels))
			} else {
				v[i] = math.Round(r.Float64()*1000) / 1000
			}
		}
		return v
	}
	grades := []float64{1, 2, 3, 4, 5}
	type stat struct {
		tally func(*stats.Tally) float64
		plain func(x, y []float64) float64
	}
	statsOf := map[string]stat{
		"pearson":          {(*stats.Tally).Pearson, stats.Pearson},
		"spearman":         {(*stats.Tally).Spearman, stats.Spearman},
		"kendall tau-b":    {(*stats.Tally).KendallTauB, stats.KendallTauB},
		"mae":              {(*stats.Tally).MAE, stats.MAE},
		"kappa linear":     {func(t *stats.Tally) float64 { return t.WeightedKappa(nil, stats.Linear) }, func(x, y []float64) float64 { return stats.WeightedKappa(x, y, nil, stats.Linear) }},
		"kappa on grades":  {func(t *stats.Tally) float64 { return t.WeightedKappa(grades, stats.Quadratic) }, func(x, y []float64) float64 { return stats.WeightedKappa(x, y, grades, stats.Quadratic) }},
		"kappa unweighted": {func(t *stats.Tally) float64 { return t.WeightedKappa(nil, stats.Unweighted) }, func(x, y []float64) float64 { return stats.WeightedKappa(x, y, nil, stats.Unweighted) }},
		"alpha ordinal":    {func(t *stats.Tally) float64 { return t.KrippendorffAlpha(stats.Ordinal) }, units(stats.Ordinal)},
		"alpha interval":   {func(t *stats.Tally) float64 { return t.KrippendorffAlpha(stats.Interval) }, units(stats.Interval)},
		"alpha nominal":    {func(t *stats.Tally) float64 { return t.KrippendorffAlpha(stats.Nominal) }, units(stats.Nominal)},
	}
	data := map[string]struct{ xLevels, yLevels int }{
		"grades vs grades": {5, 5},
		"values vs grades": {0, 5},
		"values vs values": {0, 0},
		"two vs three":     {2, 3},
	}
	for name, d := range data {
		for sname, s := range statsOf {
			t.Run(name+"/"+sname, func(t *testing.T) {
				t.Parallel()
				r := rand.New(rand.NewPCG(29, uint64(d.xLevels*10+d.yLevels)))
				for _, n := range []int{1, 2, 3, 8, 50, 400} {
					x, y := draw(r, n, d.xLevels), draw(r, n, d.yLevels)
					tally := stats.NewTally(x, y)
					// Every item once, then resamples, then one item drawn n times.
					resamples := [][]int{identity(n)}
					for range 30 {
						idx := make([]int, n)
						for i := range idx {
							idx[i] = r.IntN(n)
						}
						resamples = append(resamples, idx)
					}
					resamples = append(resamples, make([]int, n))
					for k, idx := range resamples {
						if k > 0 {
							tally.Draw(idx)
						}
						xs, ys := make([]float64, len(idx)), make([]float64, len(idx))
						for i, j := range idx {
							xs[i], ys[i] = x[j], y[j]
						}
						want, got := s.plain(xs, ys), s.tally(tally)
						if math.IsNaN(want) {
							require.True(t, math.IsNaN(got), "n=%d resample %d: want NaN, got %v", n, k, got)
							continue
						}
						require.InDelta(t, want, got, 1e-12, "n=%d resample %d: x=%v y=%v", n, k, xs, ys)
					}
				}
			})
		}
	}
}

// TestTallyUndefined checks the inputs no statistic is defined for.
func TestTallyUndefined(t *testing.T) {
	t.Parallel()
	for name, tally := range map[string]*stats.Tally{
		"lengths differ": stats.NewTally([]float64{1, 2}, []float64{1}),
		"a NaN":          stats.NewTally([]float64{1, math.NaN(), 3}, []float64{1, 2, 3}),
		"empty":          stats.NewTally(nil, nil),
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			tally.Draw(nil)
			for _, v := range []float64{tally.Pearson(), tally.Spearman(), tally.KendallTauB(), tally.MAE(),
				tally.WeightedKappa(nil, stats.Linear), tally.KrippendorffAlpha(stats.Ordinal)} {
				require.True(t, math.IsNaN(v), "want NaN, got %v", v)
			}
		})
	}
}

// TestTallyPearsonOfAConstantSide: Pearson's r divides by each side's
// sum of squared deviations (r = sxy / sqrt(sxx syy), Pearson 1896), 0
// for a side drawn at one value, so r is undefined there: NaN, as
// Pearson's of the values drawn, and dropped by the bootstrap. A judge's
// value such as 0.3 drawn seven times has a weighted mean that rounds off
// 0.3, and the deviations left gave a correlation of about 0 (or exactly
// 0), kept in the interval where the resample had none.
func TestTallyPearsonOfAConstantSide(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		x, y []float64
		idx  []int // the items drawn
	}{
		// Items 0 and 1 share x = 0.3, their y differ: 7 draws of them.
		"0.3 seven times":                         {x: []float64{0.3, 0.3, 0.9}, y: []float64{1, 2, 3}, idx: []int{0, 1, 0, 1, 0, 1, 0}},
		"0.1 three times":                         {x: []float64{0.1, 0.1, 0.9}, y: []float64{1, 2, 3}, idx: []int{0, 1, 0}},
		"0.619 11 times":                          {x: []float64{0.619, 0.619, 0.2}, y: []float64{1, 2, 3}, idx: []int{0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0}},
		"the y side, 0.7":                         {x: []float64{1, 2, 3}, y: []float64{0.7, 0.7, 0.2}, idx: []int{0, 1, 0}},
		"both sides vary":                         {x: []float64{0.3, 0.4, 0.9}, y: []float64{1, 2, 3}, idx: []int{0, 1, 0}},
		"0.3 eight times (a power of two: exact)": {x: []float64{0.3, 0.3, 0.9}, y: []float64{1, 2, 3}, idx: []int{0, 1, 0, 1, 0, 1, 0, 1}},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			tally := stats.NewTally(tc.x, tc.y)
			tally.Draw(tc.idx)
			xs, ys := make([]float64, len(tc.idx)), make([]float64, len(tc.idx))
			for i, j := range tc.idx {
				xs[i], ys[i] = tc.x[j], tc.y[j]
			}
			want, got := stats.Pearson(xs, ys), tally.Pearson()
			if math.IsNaN(want) {
				require.True(t, math.IsNaN(got), "want NaN, got %v", got)
				return
			}
			require.InDelta(t, want, got, 1e-12)
		})
	}
}

func identity(n int) []int {
	idx := make([]int, n)
	for i := range idx {
		idx[i] = i
	}
	return idx
}

// units is KrippendorffAlpha of x and y as units of two values.
func units(level stats.Level) func(x, y []float64) float64 {
	return func(x, y []float64) float64 {
		u := make([][]float64, len(x))
		for i := range x {
			u[i] = []float64{x[i], y[i]}
		}
		return stats.KrippendorffAlpha(u, level)
	}
}

// BenchmarkTallyKendallTauB is one bootstrap resample's tau-b through a
// Tally (Draw, then the count) at 10,000 grades, beside
// BenchmarkKendallTauB's sort of the resample's values.
func BenchmarkTallyKendallTauB(b *testing.B) {
	x, y := grades(10_000)
	tally := stats.NewTally(x, y)
	idx := identity(len(x))
	for b.Loop() {
		tally.Draw(idx)
		tally.KendallTauB()
	}
}
