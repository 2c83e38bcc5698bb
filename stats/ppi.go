package stats

import "math"

// z95 is the standard normal quantile of 0.975: a two-sided 95% interval
// is the estimate plus or minus z95 standard errors.
var z95 = math.Sqrt2 * math.Erfinv(0.95)

// PPI is a prediction-powered estimate of the mean of a label (PPI++:
// A. N. Angelopoulos, J. C. Duchi and T. Zrnic, "PPI++: Efficient
// Prediction-Powered Inference", arXiv:2311.01453, 2023), beside the
// estimate from the labels alone and the judge's own mean.
type PPI struct {
	// Estimate is the mean of the labels corrected by the judge:
	// mean(labels) + Lambda * (mean(unlabelled judge) - mean(labelled judge)),
	// and CI95 its 95% interval, a normal one.
	Estimate float64    `json:"estimate"`
	CI95     [2]float64 `json:"ci95"`
	// LabelsOnly is the mean of the labels, LabelsOnlyCI95 its 95% normal
	// interval: the estimate with Lambda 0.
	LabelsOnly     float64    `json:"labels_only"`
	LabelsOnlyCI95 [2]float64 `json:"labels_only_ci95"`
	// JudgeOnly is the judge's mean over every sample, labelled or not:
	// what the judge says with no label to correct it.
	JudgeOnly float64 `json:"judge_only"`
	// Lambda is the power-tuning weight of the judge, from 0 (the judge
	// adds nothing: labels only) to 1 (plain PPI).
	Lambda float64 `json:"lambda"`
	// EffectiveLabels is how many labels alone would give an interval as
	// narrow: Labelled * (labels-only variance) / (PPI variance); +Inf
	// when the PPI variance is 0 and the labels-only one is not (no
	// number of labels alone is as narrow), Labelled when both are 0.
	EffectiveLabels float64 `json:"effective_labels"`
	// Labelled and Unlabelled count the samples of each kind.
	Labelled   int `json:"labelled"`
	Unlabelled int `json:"unlabelled"`

	// labelVar, judgedVar and cov are the variances of the labels and
	// of the judge's values on the labelled samples and their
	// covariance, unlabelledVar the variance of the judge's values on
	// the others (divisors n and N): what Projected scales.
	labelVar, judgedVar, cov, unlabelledVar float64
	// weighted marks PPIWeightedMean's estimate, designVar and popVar
	// its variance's two parts at lambda.
	weighted          bool
	designVar, popVar float64
}

// PPIMean estimates the mean of a label over a population of which
// labelled samples carry the label (labels[i], with the judge's value
// judged[i]) and unlabelled samples only the judge's value (unlabelled):
// the PPI++ mean, with the labels (binary as 0 and 1, or grades) and the
// judge on one scale.
//
// The estimate is unbiased whatever the judge's quality, as long as the
// labelled samples are a random draw from all of them: the judge's error,
// measured on the labelled samples, is subtracted. Its variance is
// estimated as
//
//	V(lambda) = lambda^2 var(unlabelled)/N + var(labels - lambda*judged)/n
//
// (variances with divisor n and N, as ppi_py's ppi_mean_ci computes its
// standard errors), and lambda is the one that minimises it,
// cov(labels, judged)/n / (var(unlabelled)/N + var(judged)/n), clipped to
// [0, 1]. (The paper's plug-in pools the labelled and unlabelled judge
// values for var; minimising V itself is what guarantees the next point.)
// V is a parabola in lambda and 0 is in [0, 1], so V(lambda) <= V(0), the
// labels-only variance: the interval is never wider than the labels
// alone, and a judge that does not help (uncorrelated, or anti-correlated)
// gets lambda 0 and the labels-only interval exactly.
//
// Every figure is NaN with fewer than two labelled samples, no unlabelled
// one, lengths of labels and judged that differ, or a value that is not
// finite.
func PPIMean(labels, judged, unlabelled []float64) PPI {
	n, bigN := len(labels), len(unlabelled)
	nan := math.NaN()
	out := PPI{Estimate: nan, CI95: [2]float64{nan, nan}, LabelsOnly: nan, LabelsOnlyCI95: [2]float64{nan, nan},
		JudgeOnly: nan, Lambda: nan, EffectiveLabels: nan, Labelled: n, Unlabelled: bigN}
	if n < 2 || bigN < 1 || len(judged) != n || !allFinite(labels) || !allFinite(judged) || !allFinite(unlabelled) {
		return out
	}
	my, mf, mu := average(labels), average(judged), average(unlabelled)
	var vy, vf, cyf, vu float64
	for i := range labels {
		dy, df := labels[i]-my, judged[i]-mf
		vy += dy * dy
		vf += df * df
		cyf += dy * df
	}
	for _, u := range unlabelled {
		vu += (u - mu) * (u - mu)
	}
	fn, fN := float64(n), float64(bigN)
	vy, vf, cyf, vu = vy/fn, vf/fn, cyf/fn, vu/fN

	lambda := 0.0
	if d := vu/fN + vf/fn; d > 0 {
		lambda = min(max((cyf/fn)/d, 0), 1)
	}
	// var(labels - lambda*judged), from the values, not the expansion.
	var vr float64
	mr := my - lambda*mf
	for i := range labels {
		r := labels[i] - lambda*judged[i] - mr
		vr += r * r
	}
	vr /= fn
	varPPI := lambda*lambda*vu/fN + vr/fn
	varLabels := vy / fn

	out.Lambda = lambda
	out.labelVar, out.judgedVar, out.cov, out.unlabelledVar = vy, vf, cyf, vu
	out.Estimate = my + lambda*(mu-mf)
	out.CI95 = normal95(out.Estimate, varPPI)
	out.LabelsOnly = my
	out.LabelsOnlyCI95 = normal95(my, varLabels)
	out.JudgeOnly = (mf*fn + mu*fN) / (fn + fN)
	out.EffectiveLabels = effectiveLabels(fn, varLabels, varPPI)
	return out
}

// effectiveLabels is n labels' worth scaled by how much narrower the
// PPI variance v is than the labels-only one vLabels: n*vLabels/v, +Inf
// for v 0 and vLabels not, n for both 0 (the labels say it all alone).
func effectiveLabels(n, vLabels, v float64) float64 {
	switch {
	case v > 0:
		return n * vLabels / v
	case vLabels > 0:
		return math.Inf(1)
	}
	return n
}

// Projected is the half-width of the 95% interval p would have with
// labelled labelled samples and unlabelled unlabelled ones, the
// variances and covariance of labels and judge staying what they are
// now and lambda chosen afresh for those counts (as PPIMean chooses it):
// about the interval that more labels drawn at random from the
// unlabelled samples would give (labelled up, unlabelled down by as
// many). NaN when p has no estimate, with fewer than two labelled
// samples or no unlabelled one.
//
// For PPIWeightedMean's estimate, more labels taken by the same design
// (the same size measure, the sample grown): lambda stays, the design's
// variance scales as a sample's of fixed size does, by (1/n' - 1/N')
// over (1/n - 1/N), and the population's part stays.
func (p PPI) Projected(labelled, unlabelled int) float64 {
	if math.IsNaN(p.Estimate) || labelled < 2 || unlabelled < 1 {
		return math.NaN()
	}
	if p.weighted {
		n, bigN := float64(p.Labelled), float64(p.Labelled+p.Unlabelled)
		n2, bigN2 := float64(labelled), float64(labelled+unlabelled)
		return z95 * math.Sqrt(p.designVar*(1/n2-1/bigN2)/(1/n-1/bigN)+p.popVar)
	}
	n, bigN := float64(labelled), float64(unlabelled)
	// V(lambda) = lambda^2 d - 2 lambda cov/n + var(labels)/n, with
	// var(labels - lambda*judged) expanded.
	d := p.unlabelledVar/bigN + p.judgedVar/n
	lambda := 0.0
	if d > 0 {
		lambda = min(max((p.cov/n)/d, 0), 1)
	}
	v := max(lambda*lambda*d-2*lambda*p.cov/n+p.labelVar/n, 0)
	return z95 * math.Sqrt(v)
}

// normal95 is the 95% normal interval of an estimate of variance v.
func normal95(est, v float64) [2]float64 {
	h := z95 * math.Sqrt(v)
	return [2]float64{est - h, est + h}
}

func average(v []float64) float64 {
	var s float64
	for _, x := range v {
		s += x
	}
	return s / float64(len(v))
}

// allFinite reports whether every value of v is a number, not infinite.
func allFinite(v []float64) bool {
	for _, x := range v {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return false
		}
	}
	return true
}
