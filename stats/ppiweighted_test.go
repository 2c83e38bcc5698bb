package stats_test

import (
	"cmp"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/assaylabs/assay/stats"
)

// TestPPIWeightedMeanHand checks PPIWeightedMean against cases worked
// by hand (in fractions). With weights w over the n labelled, N in all:
// my, mf the weighted means of y and f over them, m the mean of every
// judge value; alpha = (y-my)w - A, beta = (f-mf)w - B, A and B their
// (1-1/w)-weighted means; lambda = sum c alpha beta / sum c beta^2,
// c = 1 - 1/w; Vd = n/(n-1)/N^2 sum c (alpha - lambda beta)^2; the
// population's part sum w (y-my)^2 / sum w / N.
func TestPPIWeightedMeanHand(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		labels, judged, weights, unlabelled []float64
		lambda, est, v, labelsMean, labelsV float64
		judgeMean, projected6               float64
	}{
		// Equal weights 3 (4 labels of 12): the difference estimator.
		// y = 1,0,1,1, f = 1,0,0,1: lambda = cov/var(f) = (1/8)/(1/4) = 1/2;
		// estimate 3/4 + 1/2 (7/12 - 1/2) = 19/24; y - f/2 = 1/2,0,1,1/2,
		// variance (divisor 3) 1/6, so Vd = (1 - 4/12)(1/6)/4 = 1/36; the
		// population's var(y)/N = (3/16)/12 = 1/64: V = 25/576. Lambda 0:
		// Vd = (2/3)(1/4)/4 = 1/24, V = 1/24 + 1/64 = 11/192. With 6
		// labels of 12: Vd (1/6 - 1/12)/(1/4 - 1/12) = 1/72, + 1/64.
		"equal weights: the difference estimator": {
			labels: []float64{1, 0, 1, 1}, judged: []float64{1, 0, 0, 1}, weights: []float64{3, 3, 3, 3},
			unlabelled: []float64{1, 1, 0, 0, 1, 1, 0, 1},
			lambda:     0.5, est: 19.0 / 24, v: 25.0 / 576, labelsMean: 0.75, labelsV: 11.0 / 192,
			judgeMean: 7.0 / 12, projected6: z * math.Sqrt(1.0/72+1.0/64),
		},
		// Weights 2,2,4,4 (the last two labels half as likely), 6
		// unlabelled: my = (2+4+4)/12 = 5/6, mf = (2+4)/12 = 1/2, m = 6/10;
		// A = 2/15, B = 0; lambda = 1/7, estimate 5/6 + (1/7)(1/10) =
		// 89/105; Vd = 202/7875, population 1/72, V = 2491/63000; lambda
		// 0: V = 373/9000.
		"weights 2, 2, 4, 4": {
			labels: []float64{1, 0, 1, 1}, judged: []float64{1, 0, 0, 1}, weights: []float64{2, 2, 4, 4},
			unlabelled: []float64{1, 0, 1, 0, 1, 1},
			lambda:     1.0 / 7, est: 89.0 / 105, v: 2491.0 / 63000, labelsMean: 5.0 / 6, labelsV: 373.0 / 9000,
			judgeMean: 0.6, projected6: z * math.Sqrt(202.0/7875*(1.0/6-1.0/10)/(1.0/4-1.0/10)+1.0/72),
		},
		// Every label taken for certain (weight 1): no design variance,
		// lambda 0, the population's part alone: var(y)/N = (1/4)/3.
		"labels taken for certain": {
			labels: []float64{1, 0}, judged: []float64{0.9, 0.2}, weights: []float64{1, 1}, unlabelled: []float64{0.5},
			lambda: 0, est: 0.5, v: 1.0 / 12, labelsMean: 0.5, labelsV: 1.0 / 12,
			judgeMean: 1.6 / 3, projected6: math.NaN(),
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			got := stats.PPIWeightedMean(tc.labels, tc.judged, tc.weights, tc.unlabelled)
			assert.InDelta(t, tc.lambda, got.Lambda, 1e-12, "lambda")
			assert.InDelta(t, tc.est, got.Estimate, 1e-12, "estimate")
			assert.InDelta(t, tc.est-z*math.Sqrt(tc.v), got.CI95[0], 1e-12, "ci low")
			assert.InDelta(t, tc.est+z*math.Sqrt(tc.v), got.CI95[1], 1e-12, "ci high")
			assert.InDelta(t, tc.labelsMean, got.LabelsOnly, 1e-12, "labels only")
			assert.InDelta(t, tc.labelsMean+z*math.Sqrt(tc.labelsV), got.LabelsOnlyCI95[1], 1e-12, "labels-only high")
			assert.InDelta(t, tc.judgeMean, got.JudgeOnly, 1e-12, "judge only")
			assert.InDelta(t, float64(len(tc.labels))*tc.labelsV/tc.v, got.EffectiveLabels, 1e-9, "effective labels")
			assert.InDelta(t, z*math.Sqrt(tc.v), got.Projected(len(tc.labels), len(tc.unlabelled)), 1e-12, "projected as it is")
			all := len(tc.labels) + len(tc.unlabelled)
			if math.IsNaN(tc.projected6) {
				assert.True(t, math.IsNaN(got.Projected(6, all-6)), "no unlabelled left")
				return
			}
			assert.InDelta(t, tc.projected6, got.Projected(6, all-6), 1e-12, "projected to 6 labels")
		})
	}
}

// TestPPIWeightedMeanUndefined checks the inputs PPIWeightedMean has no
// estimate for.
func TestPPIWeightedMeanUndefined(t *testing.T) {
	t.Parallel()
	tests := map[string]struct{ labels, judged, weights, unlabelled []float64 }{
		"one label":           {[]float64{1}, []float64{1}, []float64{2}, []float64{0, 1}},
		"no unlabelled":       {[]float64{1, 0}, []float64{1, 0}, []float64{1, 1}, nil},
		"weights short":       {[]float64{1, 0}, []float64{1, 0}, []float64{2}, []float64{1}},
		"a weight below 1":    {[]float64{1, 0}, []float64{1, 0}, []float64{2, 0.5}, []float64{1}},
		"a NaN weight":        {[]float64{1, 0}, []float64{1, 0}, []float64{2, math.NaN()}, []float64{1}},
		"an infinite weight":  {[]float64{1, 0}, []float64{1, 0}, []float64{2, math.Inf(1)}, []float64{1}},
		"an infinite label":   {[]float64{1, math.Inf(-1)}, []float64{1, 0}, []float64{2, 2}, []float64{1}},
		"lengths that differ": {[]float64{1, 0, 1}, []float64{1, 0}, []float64{2, 2, 2}, []float64{1}},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			got := stats.PPIWeightedMean(tc.labels, tc.judged, tc.weights, tc.unlabelled)
			for _, v := range []float64{got.Estimate, got.CI95[0], got.CI95[1], got.LabelsOnly, got.JudgeOnly, got.Lambda, got.EffectiveLabels} {
				assert.True(t, math.IsNaN(v), "want NaN, got %v", v)
			}
		})
	}
}

// TestPPIWeightedMeanActive is active inference against the uniform
// draw. Each of 2,000 populations of 400 samples (a fixed seed) has a
// judge's chance f of a pass, near 0.5, near 0 or near 1, each a third of
// the time;
// the true label is a pass with chance f near the ends and with chance
// 0.5 + (f-0.5)/2 in the middle, where the judge is both least sure and
// miscalibrated: its errors sit where it is uncertain. The true mean
// label is E[chance] = 0.5 by symmetry. From each, 60 labels are taken
// twice: by sequential Poisson sampling with size 0.1 + sqrt(uncertainty)
// (PPIWeightedMean, weights 1/pi), and as a uniform draw (PPIMean). The
// active interval must cover 0.5 at about 95% and be narrower on
// average.
func TestPPIWeightedMeanActive(t *testing.T) {
	t.Parallel()
	const bigN, n, reps = 400, 60, 2000
	r := rand.New(rand.NewPCG(2024, 37))
	f, y, p, key := make([]float64, bigN), make([]float64, bigN), make([]float64, bigN), make([]float64, bigN)
	idx := make([]int, bigN)
	covered, uniformCovered := 0, 0
	var width, uniformWidth float64
	for range reps {
		var sp float64
		for i := range f {
			kind := r.IntN(3) // drawn, not fixed: the population is a random one
			switch kind {
			case 0:
				f[i] = 0.3 + 0.4*r.Float64()
			case 1:
				f[i] = 0.1 * r.Float64()
			default:
				f[i] = 0.9 + 0.1*r.Float64()
			}
			chance := f[i]
			if kind == 0 {
				chance = 0.5 + (f[i]-0.5)/2
			}
			y[i] = 0
			if r.Float64() < chance {
				y[i] = 1
			}
			uncertainty := 1 - math.Abs(f[i]-0.5)/0.5
			p[i] = 0.1 + math.Sqrt(uncertainty)
			sp += p[i]
			key[i] = r.Float64() / p[i]
			idx[i] = i
		}
		// Sequential Poisson: the n smallest keys u/p, pi = n p / sum p
		// (none reaches 1 here).
		slices.SortFunc(idx, func(a, b int) int { return cmp.Compare(key[a], key[b]) })
		var labels, judged, weights, unlabelled []float64
		for rank, i := range idx {
			if rank < n {
				labels, judged = append(labels, y[i]), append(judged, f[i])
				weights = append(weights, sp/(n*p[i]))
				continue
			}
			unlabelled = append(unlabelled, f[i])
		}
		got := stats.PPIWeightedMean(labels, judged, weights, unlabelled)
		if got.CI95[0] <= 0.5 && 0.5 <= got.CI95[1] {
			covered++
		}
		width += got.CI95[1] - got.CI95[0]

		// The uniform draw: the first n of a random order.
		r.Shuffle(bigN, func(a, b int) { idx[a], idx[b] = idx[b], idx[a] })
		labels, judged, unlabelled = labels[:0], judged[:0], unlabelled[:0]
		for rank, i := range idx {
			if rank < n {
				labels, judged = append(labels, y[i]), append(judged, f[i])
				continue
			}
			unlabelled = append(unlabelled, f[i])
		}
		u := stats.PPIMean(labels, judged, unlabelled)
		if u.CI95[0] <= 0.5 && 0.5 <= u.CI95[1] {
			uniformCovered++
		}
		uniformWidth += u.CI95[1] - u.CI95[0]
	}
	coverage, uniformCoverage := float64(covered)/reps, float64(uniformCovered)/reps
	width, uniformWidth = width/reps, uniformWidth/reps
	t.Logf("active: coverage %.3f, mean width %.4f; uniform: coverage %.3f, mean width %.4f", coverage, width, uniformCoverage, uniformWidth)
	assert.GreaterOrEqual(t, coverage, 0.92, "active coverage")
	assert.LessOrEqual(t, coverage, 0.98, "active coverage")
	assert.Less(t, width, 0.95*uniformWidth, "active narrower than the uniform draw by 5% or more")
}
