package stats

import "math"

// PPIWeightedMean is PPIMean for labels taken with unequal
// probabilities: active statistical inference (T. Zrnic and E. J.
// Candès, "Active Statistical Inference", ICML 2024), where sample i is
// labelled with probability pi_i, larger where the judge is less sure,
// and its label carries the weight weights[i] = 1/pi_i. labels, judged
// and weights are the labelled samples', unlabelled the judge's values
// on the others; labels and judge on one scale, as PPIMean has them.
//
// With N samples in all and S the labelled ones, the estimate is
//
//	lambda*mean(all judged) + sum_S w (y - lambda*f) / sum_S w,
//
// lambda times the judge's mean over all N, plus the weighted
// (Hájek) mean over S of the judge's error y - lambda*f. Weighting each
// label by 1/pi_i makes it unbiased (to first order, as PPI++ is) for
// any pi the design had, and a judge whose errors sit where pi is large
// leaves less to estimate: the interval narrows.
//
// Its variance is the sampling design's plus the population's: the
// first is Rosén's estimator for a pi-ps design of fixed size (Pareto
// or sequential Poisson sampling), on the linearised errors
// e = y - lambda*f - their weighted mean,
//
//	Vd = n/(n-1)/N^2 sum_S (1-pi)(e w - A)^2,  A = sum_S (1-pi) e w / sum_S (1-pi),
//
// and the second var(y)/N (weighted): how far the N samples' mean label
// is from that of the process that made them, which PPIMean's variance
// holds too. With equal weights N/n it is the classical difference
// estimator: mean(y) + lambda*(mean(all judged) - mean(judged)), of
// variance (1 - n/N) var(y - lambda*f)/n + var(y)/N. Lambda minimises
// Vd (a parabola in it) and is clipped to [0, 1], so the interval is
// never wider than the weighted labels' alone (LabelsOnly, lambda 0).
// A sample with weight 1 (pi 1, taken for certain) adds nothing to Vd.
//
// Every figure is NaN with fewer than two labelled samples, no
// unlabelled one, lengths that differ, a value that is not finite or a
// weight below 1.
func PPIWeightedMean(labels, judged, weights, unlabelled []float64) PPI {
	n, bigN := len(labels), len(unlabelled)
	nan := math.NaN()
	out := PPI{Estimate: nan, CI95: [2]float64{nan, nan}, LabelsOnly: nan, LabelsOnlyCI95: [2]float64{nan, nan},
		JudgeOnly: nan, Lambda: nan, EffectiveLabels: nan, Labelled: n, Unlabelled: bigN}
	if n < 2 || bigN < 1 || len(judged) != n || len(weights) != n || !allFinite(labels) || !allFinite(judged) ||
		!allFinite(weights) || !allFinite(unlabelled) || !atLeastOne(weights) {
		return out
	}
	fn, fAll := float64(n), float64(n+bigN)
	var sw, swy, swf, sf float64
	for i, w := range weights {
		sw += w
		swy += w * labels[i]
		swf += w * judged[i]
		sf += judged[i]
	}
	for _, u := range unlabelled {
		sf += u
	}
	my, mf, mAll := swy/sw, swf/sw, sf/fAll

	// alpha_i - lambda beta_i is (e_i w_i - A) at lambda.
	alpha, beta, c := make([]float64, n), make([]float64, n), make([]float64, n)
	var sc, sca, scb, popVar float64
	for i, w := range weights {
		c[i] = 1 - 1/w
		alpha[i] = (labels[i] - my) * w
		beta[i] = (judged[i] - mf) * w
		sc += c[i]
		sca += c[i] * alpha[i]
		scb += c[i] * beta[i]
		popVar += w * (labels[i] - my) * (labels[i] - my)
	}
	popVar /= sw * fAll
	var saa, sab, sbb float64
	for i := range alpha {
		if sc > 0 {
			alpha[i] -= sca / sc
			beta[i] -= scb / sc
		}
		saa += c[i] * alpha[i] * alpha[i]
		sab += c[i] * alpha[i] * beta[i]
		sbb += c[i] * beta[i] * beta[i]
	}
	k := fn / (fn - 1) / (fAll * fAll)
	lambda := 0.0
	if sbb > 0 {
		lambda = min(max(sab/sbb, 0), 1)
	}
	// Vd from the values, not the expansion.
	var vd float64
	for i := range alpha {
		r := alpha[i] - lambda*beta[i]
		vd += c[i] * r * r
	}
	vd *= k
	varLabels := k*saa + popVar

	out.Lambda = lambda
	out.Estimate = my + lambda*(mAll-mf)
	out.CI95 = normal95(out.Estimate, vd+popVar)
	out.LabelsOnly = my
	out.LabelsOnlyCI95 = normal95(my, varLabels)
	out.JudgeOnly = mAll
	out.EffectiveLabels = effectiveLabels(fn, varLabels, vd+popVar)
	out.weighted = true
	out.designVar, out.popVar = vd, popVar
	return out
}

// atLeastOne reports whether every weight is 1 or more: the inverse of
// a probability.
func atLeastOne(w []float64) bool {
	for _, x := range w {
		if !(x >= 1) {
			return false
		}
	}
	return true
}
