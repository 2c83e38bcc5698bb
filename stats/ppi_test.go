package stats_test

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/assaylabs/assay/stats"
)

// z is the normal quantile of 0.975.
const z = 1.959963984540054

// TestPPIMeanHand checks PPIMean against cases worked by hand. With n
// labels y, judged f, N unlabelled u (variances with divisor n or N):
// lambda = cov(y,f)/n / (var(u)/N + var(f)/n), clipped to [0, 1];
// estimate = mean(y) + lambda*(mean(u) - mean(f));
// V = lambda^2 var(u)/N + var(y - lambda f)/n; effective = n var(y)/n / V.
func TestPPIMeanHand(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		labels, judged, unlabelled []float64
		lambda, est, v, labelsV    float64
		labelsMean, judgeMean      float64
		effective                  float64
	}{
		// y = 1,0,1,1 (mean 3/4, var 3/16); f = 1,0,0,1 (mean 1/2, var 1/4);
		// cov = mean(yf) - 3/4*1/2 = 1/2 - 3/8 = 1/8. u = 1,1,0,0,1,1,0,1
		// (mean 5/8, var 15/64). lambda = (1/32) / (15/512 + 1/16) =
		// (1/32)/(47/512) = 16/47. estimate = 3/4 + 16/47*(1/8) = 3/4 + 2/47.
		// V at the minimum = var(y)/n - (cov/n)^2/(47/512) = 3/64 - 1/94
		// = 109/3008; effective = 4 * (3/64) / (109/3008) = 564/109.
		// Judge alone: (2 + 5)/12.
		"binary, a helpful judge": {
			labels: []float64{1, 0, 1, 1}, judged: []float64{1, 0, 0, 1}, unlabelled: []float64{1, 1, 0, 0, 1, 1, 0, 1},
			lambda: 16.0 / 47, est: 0.75 + 2.0/47, v: 109.0 / 3008, labelsV: 3.0 / 64,
			labelsMean: 0.75, judgeMean: 7.0 / 12, effective: 564.0 / 109,
		},
		// Grades y = 0,2,0,2 (mean 1, var 1) and a judge at half the scale,
		// f = 0,1,0,1 (mean 1/2, var 1/4, cov 1/2); u = (0,1) four times
		// (mean 1/2, var 1/4). lambda = (1/8)/(1/32 + 1/16) = 4/3, clipped
		// to 1. estimate = 1 + (1/2 - 1/2) = 1. V = 1/4/8 + var(y-f)/4 =
		// 1/32 + (1/4)/4 = 3/32; labels alone 1/4; effective 4*(1/4)/(3/32)
		// = 32/3. Judge alone: (2 + 4)/12.
		"graded, lambda clipped to 1": {
			labels: []float64{0, 2, 0, 2}, judged: []float64{0, 1, 0, 1}, unlabelled: []float64{0, 1, 0, 1, 0, 1, 0, 1},
			lambda: 1, est: 1, v: 3.0 / 32, labelsV: 0.25,
			labelsMean: 1, judgeMean: 0.5, effective: 32.0 / 3,
		},
		// A judge that says the opposite: cov = -1/4, lambda clipped to 0,
		// the labels alone: mean 1/2, var 1/4 over 4, effective 4.
		"an anti-correlated judge adds nothing": {
			labels: []float64{1, 0, 1, 0}, judged: []float64{0, 1, 0, 1}, unlabelled: []float64{0, 1, 1},
			lambda: 0, est: 0.5, v: 1.0 / 16, labelsV: 1.0 / 16,
			labelsMean: 0.5, judgeMean: 4.0 / 7, effective: 4,
		},
		// Labels all equal: no variance, lambda 0 (cov 0), a zero-width
		// interval, and the labels count for themselves.
		"constant labels": {
			labels: []float64{1, 1, 1}, judged: []float64{0.2, 0.9, 0.5}, unlabelled: []float64{0.4},
			lambda: 0, est: 1, v: 0, labelsV: 0,
			labelsMean: 1, judgeMean: 2.0 / 4, effective: 3,
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			got := stats.PPIMean(tc.labels, tc.judged, tc.unlabelled)
			assert.InDelta(t, tc.lambda, got.Lambda, 1e-12, "lambda")
			assert.InDelta(t, tc.est, got.Estimate, 1e-12, "estimate")
			assert.InDelta(t, tc.est-z*math.Sqrt(tc.v), got.CI95[0], 1e-12, "ci low")
			assert.InDelta(t, tc.est+z*math.Sqrt(tc.v), got.CI95[1], 1e-12, "ci high")
			assert.InDelta(t, tc.labelsMean, got.LabelsOnly, 1e-12, "labels only")
			assert.InDelta(t, tc.labelsMean-z*math.Sqrt(tc.labelsV), got.LabelsOnlyCI95[0], 1e-12, "labels-only low")
			assert.InDelta(t, tc.labelsMean+z*math.Sqrt(tc.labelsV), got.LabelsOnlyCI95[1], 1e-12, "labels-only high")
			assert.InDelta(t, tc.judgeMean, got.JudgeOnly, 1e-12, "judge only")
			assert.InDelta(t, tc.effective, got.EffectiveLabels, 1e-9, "effective labels")
			assert.Equal(t, len(tc.labels), got.Labelled)
			assert.Equal(t, len(tc.unlabelled), got.Unlabelled)
		})
	}
}

// TestPPIProjected checks the half-width projected for other numbers of
// labelled and unlabelled samples on the first case of TestPPIMeanHand:
// var(y) = 3/16, var(f) = 1/4, cov = 1/8 over n labels, var(u) = 15/64
// over N. At (n, N) lambda = clip((1/8)/n / (15/64/N + 1/4/n)) and
// V = var(y)/n - lambda (2 cov/n - lambda (15/64/N + 1/4/n)).
func TestPPIProjected(t *testing.T) {
	t.Parallel()
	p := stats.PPIMean([]float64{1, 0, 1, 1}, []float64{1, 0, 0, 1}, []float64{1, 1, 0, 0, 1, 1, 0, 1})
	half := func(n, bigN float64) float64 {
		d := 15.0/64/bigN + 0.25/n
		lambda := min(max(0.125/n/d, 0), 1)
		return z * math.Sqrt(3.0/16/n-lambda*(2*0.125/n-lambda*d))
	}
	tests := map[string]struct {
		labelled, unlabelled int
		want                 float64
	}{
		// lambda 16/47 and V 109/3008, as TestPPIMeanHand has them.
		"as it is: the interval's own half-width": {4, 8, z * math.Sqrt(109.0/3008)},
		// lambda = (1/64)/(15/256 + 1/32) = 4/23; V = 3/128 - (1/64)^2/(23/256) = 3/128 - 1/368.
		"four more labels drawn from the eight":   {8, 4, z * math.Sqrt(3.0/128-1.0/368)},
		"seven more":                              {11, 1, half(11, 1)},
		"many unlabelled: lambda near cov/var(f)": {4, 1 << 20, half(4, 1<<20)},
		"no unlabelled sample left":               {12, 0, math.NaN()},
		"one label":                               {1, 8, math.NaN()},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			got := p.Projected(tc.labelled, tc.unlabelled)
			if math.IsNaN(tc.want) {
				assert.True(t, math.IsNaN(got), "want NaN, got %v", got)
				return
			}
			assert.InDelta(t, tc.want, got, 1e-12)
		})
	}
	assert.InDelta(t, half(8, 4), z*math.Sqrt(3.0/128-1.0/368), 1e-12, "the formula and the hand figures agree")
	assert.InDelta(t, (p.CI95[1]-p.CI95[0])/2, p.Projected(4, 8), 1e-12, "the interval as it is")
	for n := 5; n < 12; n++ {
		assert.Less(t, p.Projected(n, 12-n), p.Projected(n-1, 13-n), "each label drawn narrows it (%d labels)", n)
	}
	assert.True(t, math.IsNaN(stats.PPIMean([]float64{1}, []float64{1}, []float64{0}).Projected(5, 5)), "no estimate, no projection")
}

// TestPPIMeanUndefined checks the inputs PPIMean has no estimate for.
func TestPPIMeanUndefined(t *testing.T) {
	t.Parallel()
	tests := map[string]struct{ labels, judged, unlabelled []float64 }{
		"one label":         {[]float64{1}, []float64{1}, []float64{0, 1}},
		"no unlabelled":     {[]float64{1, 0}, []float64{1, 0}, nil},
		"lengths differ":    {[]float64{1, 0, 1}, []float64{1, 0}, []float64{1}},
		"a NaN label":       {[]float64{1, math.NaN()}, []float64{1, 0}, []float64{1}},
		"an infinite judge": {[]float64{1, 0}, []float64{1, 0}, []float64{math.Inf(1)}},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			got := stats.PPIMean(tc.labels, tc.judged, tc.unlabelled)
			for _, v := range []float64{got.Estimate, got.CI95[0], got.CI95[1], got.LabelsOnly, got.JudgeOnly, got.Lambda, got.EffectiveLabels} {
				assert.True(t, math.IsNaN(v), "want NaN, got %v", v)
			}
		})
	}
}

// TestPPIMeanCoverage is the simulation: 150 labelled and 5,000
// unlabelled samples, a binary label true with chance p and a judge right
// with chance acc (0.75 to 0.9), 1,000 datasets from a fixed seed. At
// nominal 95% the interval must cover the true mean p in at least 93% of
// them, never be wider than the labels-only interval, and be narrower by
// about sqrt(1 - rho^2), rho the correlation of judge and label: the
// variance ratio at the best lambda is 1 - rho^2 N/(N+n), whose root is
// sqrt(1 - rho^2) as N grows (at n/N = 0.03 the two differ by 0.002 to
// 0.04 in these cases; the test holds the first to 0.02).
//
// A graded case (grades 1-5, the judge off by one a share of the time)
// checks the same for a graded label.
func TestPPIMeanCoverage(t *testing.T) {
	t.Parallel()
	const n, bigN, datasets = 150, 5000, 1000
	type sample func(r *rand.Rand) (label, judge float64)
	binary := func(p, acc float64) sample {
		return func(r *rand.Rand) (float64, float64) {
			y := 0.0
			if r.Float64() < p {
				y = 1
			}
			if r.Float64() < acc {
				return y, y
			}
			return y, 1 - y
		}
	}
	// rhoBinary is the correlation of such a label and judge: with
	// q = P(judge 1) = p acc + (1-p)(1-acc), cov = p acc - p q.
	rhoBinary := func(p, acc float64) float64 {
		q := p*acc + (1-p)*(1-acc)
		return (p*acc - p*q) / math.Sqrt(p*(1-p)*q*(1-q))
	}
	// Grades 1-5 uniform (mean 3, var 2); the judge is the grade, moved
	// one up or down (each half the time, kept in 1-5) with chance off.
	graded := func(off float64) sample {
		return func(r *rand.Rand) (float64, float64) {
			y := float64(1 + r.IntN(5))
			j := y
			if r.Float64() < off {
				if r.IntN(2) == 0 {
					j = max(1, y-1)
				} else {
					j = min(5, y+1)
				}
			}
			return y, j
		}
	}
	// rhoGraded is the correlation of that grade and judge, computed
	// exactly over the 5 grades and the 3 moves.
	rhoGraded := func(off float64) float64 {
		var sy, sj, syy, sjj, syj float64
		for g := 1.0; g <= 5; g++ {
			for _, m := range []struct{ j, p float64 }{{g, 1 - off}, {max(1, g-1), off / 2}, {min(5, g+1), off / 2}} {
				w := m.p / 5
				sy += w * g
				sj += w * m.j
				syy += w * g * g
				sjj += w * m.j * m.j
				syj += w * g * m.j
			}
		}
		return (syj - sy*sj) / math.Sqrt((syy-sy*sy)*(sjj-sj*sj))
	}
	tests := map[string]struct {
		draw  sample
		truth float64
		rho   float64
	}{
		"binary, accuracy 0.75": {binary(0.3, 0.75), 0.3, rhoBinary(0.3, 0.75)},
		"binary, accuracy 0.8":  {binary(0.6, 0.8), 0.6, rhoBinary(0.6, 0.8)},
		"binary, accuracy 0.9":  {binary(0.3, 0.9), 0.3, rhoBinary(0.3, 0.9)},
		"graded, off 30%":       {graded(0.3), 3, rhoGraded(0.3)},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			r := rand.New(rand.NewPCG(2023, 11))
			labels, judged, unlabelled := make([]float64, n), make([]float64, n), make([]float64, bigN)
			covered := 0
			var ratios float64
			for range datasets {
				for i := range labels {
					labels[i], judged[i] = tc.draw(r)
				}
				for i := range unlabelled {
					_, unlabelled[i] = tc.draw(r)
				}
				got := stats.PPIMean(labels, judged, unlabelled)
				if got.CI95[0] <= tc.truth && tc.truth <= got.CI95[1] {
					covered++
				}
				width, labelsWidth := got.CI95[1]-got.CI95[0], got.LabelsOnlyCI95[1]-got.LabelsOnlyCI95[0]
				require.LessOrEqual(t, width, labelsWidth+1e-12, "wider than the labels alone")
				ratios += width / labelsWidth
			}
			coverage, ratio := float64(covered)/datasets, ratios/datasets
			assert.GreaterOrEqual(t, coverage, 0.93, "coverage")
			want := math.Sqrt(1 - tc.rho*tc.rho*bigN/(bigN+n))
			assert.InDelta(t, want, ratio, 0.02, "width ratio (rho %.3f; sqrt(1-rho^2) = %.3f)", tc.rho, math.Sqrt(1-tc.rho*tc.rho))
			t.Logf("coverage %.3f, width ratio %.3f, sqrt(1-rho^2 N/(N+n)) %.3f, sqrt(1-rho^2) %.3f", coverage, ratio, want, math.Sqrt(1-tc.rho*tc.rho))
		})
	}
}

// TestPPIEffectiveLabelsOfAZeroVariance: the effective number of labels is
// n * var(labels-only) / var(PPI) (Angelopoulos, Duchi and Zrnic 2023,
// PPI++, the ratio of the two estimators' variances). A judge equal to
// every label and one value on every unlabelled sample leaves the PPI
// variance 0 (lambda 1: var(u) = 0 and var(y - f) = 0) while the labels
// alone keep theirs (1/4 over 4): no number of labels alone is as narrow,
// +Inf, where 4 was reported, the labels counting for no more than
// themselves. With both variances 0 (constant labels, constant judge)
// the labels count for themselves.
func TestPPIEffectiveLabelsOfAZeroVariance(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		labels, judged, unlabelled []float64
		want                       float64
	}{
		"a judge equal to the labels, the unlabelled all one value": {
			labels: []float64{0, 1, 0, 1}, judged: []float64{0, 1, 0, 1}, unlabelled: []float64{1, 1, 1},
			want: math.Inf(1),
		},
		"constant labels and judge": {
			labels: []float64{1, 1, 1}, judged: []float64{1, 1, 1}, unlabelled: []float64{1, 1},
			want: 3,
		},
		// var(u) = 2/9 over 3 keeps the PPI variance above 0: lambda =
		// (1/16) / (2/27 + 1/16), var = lambda^2 (2/27) + (1-lambda)^2/16.
		"a judge equal to the labels, the unlabelled spread": {
			labels: []float64{0, 1, 0, 1}, judged: []float64{0, 1, 0, 1}, unlabelled: []float64{1, 0, 1},
			want: func() float64 {
				l := (1.0 / 16) / (2.0/27 + 1.0/16)
				return 4 * (1.0 / 16) / (l*l*2/27 + (1-l)*(1-l)/16)
			}(),
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			got := stats.PPIMean(tc.labels, tc.judged, tc.unlabelled)
			if math.IsInf(tc.want, 1) {
				assert.True(t, math.IsInf(got.EffectiveLabels, 1), "effective labels %v, want +Inf", got.EffectiveLabels)
				return
			}
			assert.InDelta(t, tc.want, got.EffectiveLabels, 1e-9)
		})
	}
}
