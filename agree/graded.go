package agree

import (
	"math"
	"slices"

	"github.com/assaylabs/assay/bench"
	"github.com/assaylabs/assay/stats"
)

// Estimate is a statistic with its 95% percentile bootstrap interval
// (bootstrapReps resamples of the rows, fixed seed); Dropped counts the
// resamples where the statistic was undefined (all grades equal, say),
// left out of the interval. Undefined values are null in JSON.
type Estimate struct {
	Value   bench.Num    `json:"value"`
	CI95    [2]bench.Num `json:"ci95"`
	Dropped int          `json:"dropped"`
}

// gradedSeed seeds the graded statistics' bootstrap.
const gradedSeed = 0x5eed20

// GradedStats is how well a judge's values agree with a graded label.
//
// The correlations (Spearman, Kendall tau-b, Pearson) compare the judge's
// values as they are with the grades: a value in [0, 1] and a grade 1-5
// need no common scale to be ranked together. The weighted kappas,
// Krippendorff's alphas and the MAE need the judge on the grade scale;
// JudgeOnGrades says how it was put there (see Graded).
type GradedStats struct {
	// Grades are the categories of the kappas, ascending.
	Grades []float64 `json:"grades"`
	// JudgeOnGrades is "as given" (the values are grades: a second rater),
	// "points" (the score's native points are grades: source_relevance's
	// 1-5), "linear" (the value v in [0, 1] mapped to the nearest grade to
	// min + v*(max-min)), or "points, else linear".
	JudgeOnGrades string `json:"judge_on_grades"`

	Spearman       Estimate `json:"spearman"`
	KendallTauB    Estimate `json:"kendall_tau_b"`
	Pearson        Estimate `json:"pearson"`
	KappaLinear    Estimate `json:"kappa_linear"`
	KappaQuadratic Estimate `json:"kappa_quadratic"`
	AlphaOrdinal   Estimate `json:"alpha_ordinal"`
	AlphaInterval  Estimate `json:"alpha_interval"`
	// MAE is the mean absolute difference, in grades, of the judge on the
	// grade scale and the label.
	MAE Estimate `json:"mae"`
}

// Graded measures rows (counted rows with a Grade) against their grades.
// grades are the categories, ascending; nil takes the union of the labels'
// grades (and of the judge's, when its values are grades).
//
// The judge's values are taken as grades when they all are: with grades
// given, when each value is one of them; without, when each is a whole
// number and one exceeds 1 (a value in [0, 1] is a judge's, even 0 or 1).
// Otherwise each row's native points are its grade when the score's Max
// is the top grade and the points are a grade (source_relevance's 1-5),
// and else its value v in [0, 1] maps to the grade nearest
// min + v*(max-min).
func Graded(rows []Row, grades []float64) *GradedStats {
	labels := make([]float64, len(rows))
	values := make([]float64, len(rows))
	for i, r := range rows {
		labels[i], values[i] = *r.Grade, r.Value
	}
	judge, set, how := onGrades(rows, values, labels, grades)
	g := &GradedStats{Grades: set, JudgeOnGrades: how}
	est := func(f func(x, y []float64) float64, x, y []float64) Estimate {
		e := Estimate{Value: bench.Num(math.NaN()), CI95: [2]bench.Num{bench.Num(math.NaN()), bench.Num(math.NaN())}}
		if len(x) == 0 {
			return e
		}
		e.Value = bench.Num(f(x, y))
		xs, ys := make([]float64, len(x)), make([]float64, len(y))
		lo, hi, dropped := stats.Bootstrap(len(x), bootstrapReps, gradedSeed, func(idx []int) float64 {
			for i, j := range idx {
				xs[i], ys[i] = x[j], y[j]
			}
			return f(xs, ys)
		})
		e.CI95, e.Dropped = [2]bench.Num{bench.Num(lo), bench.Num(hi)}, dropped
		return e
	}
	kappa := func(w stats.Weight) func(x, y []float64) float64 {
		return func(x, y []float64) float64 { return stats.WeightedKappa(x, y, set, w) }
	}
	alpha := func(l stats.Level) func(x, y []float64) float64 {
		return func(x, y []float64) float64 {
			units := make([][]float64, len(x))
			for i := range x {
				units[i] = []float64{x[i], y[i]}
			}
			return stats.KrippendorffAlpha(units, l)
		}
	}
	g.Spearman = est(stats.Spearman, values, labels)
	g.KendallTauB = est(stats.KendallTauB, values, labels)
	g.Pearson = est(stats.Pearson, values, labels)
	g.KappaLinear = est(kappa(stats.Linear), judge, labels)
	g.KappaQuadratic = est(kappa(stats.Quadratic), judge, labels)
	g.AlphaOrdinal = est(alpha(stats.Ordinal), judge, labels)
	g.AlphaInterval = est(alpha(stats.Interval), judge, labels)
	g.MAE = est(stats.MAE, judge, labels)
	return g
}

// onGrades puts the judge's values on the grade scale, as Graded says,
// and returns them with the grades and how.
func onGrades(rows []Row, values, labels, grades []float64) (judge, set []float64, how string) {
	whole := func(v float64) bool { return v == math.Trunc(v) }
	var asGiven bool
	if grades != nil {
		set = slices.Clone(grades)
		asGiven = !slices.ContainsFunc(values, func(v float64) bool { return !slices.Contains(set, v) })
	} else {
		set = slices.Clone(labels)
		asGiven = len(values) > 0 && !slices.ContainsFunc(values, func(v float64) bool { return !whole(v) }) &&
			slices.ContainsFunc(values, func(v float64) bool { return v > 1 })
		if asGiven {
			set = append(set, values...)
		}
		slices.Sort(set)
		set = slices.Compact(set)
	}
	if asGiven || len(set) == 0 {
		return values, set, "as given"
	}
	lo, hi := set[0], set[len(set)-1]
	judge = make([]float64, len(values))
	var points, linear int
	for i, r := range rows {
		if r.Max == hi && slices.Contains(set, r.Points) {
			judge[i] = r.Points
			points++
			continue
		}
		judge[i] = nearest(set, lo+min(max(values[i], 0), 1)*(hi-lo))
		linear++
	}
	switch {
	case linear == 0:
		how = "points"
	case points == 0:
		how = "linear"
	default:
		how = "points, else linear"
	}
	return judge, set, how
}

// nearest is the grade of set (ascending, not empty) nearest to x, the
// lower of two as near.
func nearest(set []float64, x float64) float64 {
	best := set[0]
	for _, g := range set[1:] {
		if math.Abs(g-x) < math.Abs(best-x) {
			best = g
		}
	}
	return best
}
