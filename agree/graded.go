package agree

import (
	"fmt"
	"math"
	"slices"
	"strconv"

	"github.com/assaylabs/assay/run"
	"github.com/assaylabs/assay/stats"
)

// Estimate is a statistic with its 95% percentile bootstrap interval
// (bootstrapReps resamples of the rows, fixed seed); Dropped counts the
// resamples where the statistic was undefined (all grades equal, say),
// left out of the interval. Undefined values are null in JSON.
type Estimate struct {
	Value   run.Num    `json:"value"`
	CI95    [2]run.Num `json:"ci95"`
	Dropped int        `json:"dropped"`
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
	// min + v*(max-min)), or "points, else linear"; or "none: ..." naming
	// a value that is no grade and off [0, 1], when the statistics that
	// need the judge on the grades are undefined.
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

	// scale is how the judge was put on the grades, which a group of
	// these rows takes too.
	scale scale
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
// min + v*(max-min). A value that is none of these (no grade, off
// [0, 1]) leaves the kappas, alphas and MAE undefined: clamped onto
// [0, 1] it would be read as the top or bottom grade.
func Graded(rows []Row, grades []float64) *GradedStats {
	return graded(rows, nil, grades)
}

// graded is Graded with the judge put on the grades as on, when set (the
// whole's scale, for a group of it), else as Graded decides.
func graded(rows []Row, on *scale, grades []float64) *GradedStats {
	labels := make([]float64, len(rows))
	values := make([]float64, len(rows))
	for i, r := range rows {
		labels[i], values[i] = *r.Grade, r.Value
	}
	sc := scaleOf(values, labels, grades)
	if on != nil {
		sc = *on
	}
	judge, how, _ := sc.put(rows, values)
	g := &GradedStats{Grades: sc.set, JudgeOnGrades: how, scale: sc}
	// Each resample's statistic reads the counts of the distinct pairs it
	// drew (stats.Tally), not its values: at 100,000 rows sorting every
	// resample took minutes. The eight statistics share the resamples,
	// drawn once each (the same seed gave each the same ones), and each
	// value is the plain function's.
	corr, scaled := stats.NewTally(values, labels), stats.NewTally(judge, labels)
	kappa := func(w stats.Weight) (func(x, y []float64) float64, func(*stats.Tally) float64) {
		return func(x, y []float64) float64 { return stats.WeightedKappa(x, y, sc.set, w) },
			func(t *stats.Tally) float64 { return t.WeightedKappa(sc.set, w) }
	}
	alpha := func(l stats.Level) (func(x, y []float64) float64, func(*stats.Tally) float64) {
		return func(x, y []float64) float64 {
				units := make([][]float64, len(x))
				for i := range x {
					units[i] = []float64{x[i], y[i]}
				}
				return stats.KrippendorffAlpha(units, l)
			},
			func(t *stats.Tally) float64 { return t.KrippendorffAlpha(l) }
	}
	kl, klT := kappa(stats.Linear)
	kq, kqT := kappa(stats.Quadratic)
	ao, aoT := alpha(stats.Ordinal)
	ai, aiT := alpha(stats.Interval)
	ests := []*resampled{
		{dst: &g.Spearman, f: stats.Spearman, x: values, t: corr, of: (*stats.Tally).Spearman},
		{dst: &g.KendallTauB, f: stats.KendallTauB, x: values, t: corr, of: (*stats.Tally).KendallTauB},
		{dst: &g.Pearson, f: stats.Pearson, x: values, t: corr, of: (*stats.Tally).Pearson},
	}
	onScale := []*resampled{
		{dst: &g.KappaLinear, f: kl, x: judge, t: scaled, of: klT},
		{dst: &g.KappaQuadratic, f: kq, x: judge, t: scaled, of: kqT},
		{dst: &g.AlphaOrdinal, f: ao, x: judge, t: scaled, of: aoT},
		{dst: &g.AlphaInterval, f: ai, x: judge, t: scaled, of: aiT},
		{dst: &g.MAE, f: stats.MAE, x: judge, t: scaled, of: (*stats.Tally).MAE},
	}
	if judge != nil {
		ests = append(ests, onScale...)
	} else {
		// The judge is not on the grades: what needs it is undefined.
		for _, e := range onScale {
			*e.dst = undefined
		}
	}
	if len(rows) > 0 {
		stats.Bootstrap(len(rows), bootstrapReps, gradedSeed, func(idx []int) float64 {
			corr.Draw(idx)
			if judge != nil {
				scaled.Draw(idx)
			}
			for _, e := range ests {
				e.add(e.of(e.t))
			}
			return 0 // the intervals are each statistic's, below
		})
	}
	for _, e := range ests {
		*e.dst = e.estimate(labels)
	}
	return g
}

// undefined is a statistic that is not defined: null in JSON, n/a in
// Markdown.
var undefined = Estimate{Value: run.Num(math.NaN()), CI95: [2]run.Num{run.Num(math.NaN()), run.Num(math.NaN())}}

// resampled is a statistic f of x and the labels, with its values over
// the bootstrap's resamples, of read from the Tally t of the resample.
type resampled struct {
	dst     *Estimate
	f       func(x, y []float64) float64
	x       []float64
	t       *stats.Tally
	of      func(*stats.Tally) float64
	kept    []float64
	dropped int
}

// add keeps a resample's value, or counts it dropped when it is not a
// number, as stats.Bootstrap does.
func (r *resampled) add(v float64) {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		r.dropped++
		return
	}
	r.kept = append(r.kept, v)
}

// estimate is f(x, labels) with the percentile interval of the values
// kept, stats.Bootstrap's rule: their 2.5th and 97.5th percentiles.
func (r *resampled) estimate(labels []float64) Estimate {
	nan := run.Num(math.NaN())
	e := Estimate{Value: nan, CI95: [2]run.Num{nan, nan}, Dropped: r.dropped}
	if len(r.x) == 0 {
		return e
	}
	e.Value = run.Num(r.f(r.x, labels))
	if len(r.kept) > 0 {
		e.CI95 = [2]run.Num{run.Num(stats.Percentile(r.kept, 2.5)), run.Num(stats.Percentile(r.kept, 97.5))}
	}
	return e
}

// scale is how a judge's values are put on a graded label's grades: the
// grades, ascending, and whether the values are grades already.
type scale struct {
	set     []float64
	asGiven bool
}

// onGrades puts the judge's values on the grade scale, as Graded says,
// and returns them with the grades and how.
func onGrades(rows []Row, values, labels, grades []float64) (judge, set []float64, how string) {
	sc := scaleOf(values, labels, grades)
	judge, how, _ = sc.put(rows, values)
	return judge, sc.set, how
}

// scaleOf is the scale of values against labels, as Graded says: the
// grades given, else those observed (the values' too when they are
// grades).
func scaleOf(values, labels, grades []float64) scale {
	whole := func(v float64) bool { return v == math.Trunc(v) }
	var sc scale
	if grades != nil {
		sc.set = slices.Clone(grades)
		sc.asGiven = !slices.ContainsFunc(values, func(v float64) bool { return !slices.Contains(sc.set, v) })
	} else {
		sc.set = slices.Clone(labels)
		sc.asGiven = len(values) > 0 && !slices.ContainsFunc(values, func(v float64) bool { return !whole(v) }) &&
			slices.ContainsFunc(values, func(v float64) bool { return v > 1 })
		if sc.asGiven {
			sc.set = append(sc.set, values...)
		}
		slices.Sort(sc.set)
		sc.set = slices.Compact(sc.set)
	}
	return sc
}

// put puts the values of rows on the scale, and says how. A value that
// is no grade and off [0, 1] (a mean of two raters' grades, 2.5; a
// score on another scale) cannot be put there: judge is then nil, how
// says why, and off is its row's index (-1 otherwise).
func (sc scale) put(rows []Row, values []float64) (judge []float64, how string, off int) {
	set := sc.set
	if sc.asGiven || len(set) == 0 || len(values) == 0 {
		return values, "as given", -1
	}
	lo, hi := set[0], set[len(set)-1]
	if off, how := offScale(rows, values, set); off >= 0 {
		return nil, how, off
	}
	judge = make([]float64, len(values))
	var points, linear int
	for i, r := range rows {
		if r.Max == hi && slices.Contains(set, r.Points) {
			judge[i] = r.Points
			points++
			continue
		}
		judge[i] = nearest(set, lo+values[i]*(hi-lo))
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
	return judge, how, -1
}

// offScale is the index of the first value of rows, among those whose
// points are not a grade, that is off [0, 1] and no grade of set, else
// of the first off [0, 1] (a grade beside values that are not), with why
// the values cannot be put on the grades; -1 when every one can.
func offScale(rows []Row, values, set []float64) (int, string) {
	hi := set[len(set)-1]
	first := -1
	for i, r := range rows {
		v := values[i]
		if (r.Max == hi && slices.Contains(set, r.Points)) || (v >= 0 && v <= 1) {
			continue
		}
		if !slices.Contains(set, v) {
			return i, fmt.Sprintf("none: %s is no grade and off [0, 1]", strconv.FormatFloat(v, 'g', -1, 64))
		}
		if first < 0 {
			first = i
		}
	}
	if first < 0 {
		return -1, ""
	}
	return first, fmt.Sprintf("none: %s is off [0, 1], and not every value is a grade", strconv.FormatFloat(values[first], 'g', -1, 64))
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
