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
