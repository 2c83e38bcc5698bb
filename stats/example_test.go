package stats_test

import (
	"fmt"
	"math"

	"github.com/assaylabs/assay/stats"
)

// A judge's grades (1-5) against a human's on eight answers: the figures
// assay agree reports for graded labels, with a bootstrap interval. In exact
// fractions, Spearman is 143/162, quadratic kappa 53/59 and ordinal alpha
// 1531/1736.
func Example() {
	judge := []float64{4, 3, 5, 2, 4, 1, 3, 5}
	human := []float64{5, 3, 4, 2, 4, 1, 2, 5}

	fmt.Printf("spearman        %.4f\n", stats.Spearman(judge, human))
	fmt.Printf("kendall_tau_b   %.4f\n", stats.KendallTauB(judge, human))
	fmt.Printf("kappa_quadratic %.4f\n", stats.WeightedKappa(judge, human, []float64{1, 2, 3, 4, 5}, stats.Quadratic))
	fmt.Printf("mae             %.3f\n", stats.MAE(judge, human))

	// Krippendorff's alpha takes one row per answer, one value per rater.
	units := make([][]float64, len(judge))
	for i := range judge {
		units[i] = []float64{judge[i], human[i]}
	}
	fmt.Printf("alpha_ordinal   %.4f\n", stats.KrippendorffAlpha(units, stats.Ordinal))

	lo, hi, dropped := stats.Bootstrap(len(judge), 2000, 1, func(idx []int) float64 {
		j, h := make([]float64, len(idx)), make([]float64, len(idx))
		for k, i := range idx {
			j[k], h[k] = judge[i], human[i]
		}
		return stats.Spearman(j, h)
	})
	fmt.Printf("spearman 95%% CI [%.2f, %.2f], %d resamples undefined\n", lo, hi, dropped)
	// Output:
	// spearman        0.8827
	// kendall_tau_b   0.8000
	// kappa_quadratic 0.8983
	// mae             0.375
	// alpha_ordinal   0.8819
	// spearman 95% CI [0.50, 1.00], 0 resamples undefined
}

// A judge that says 0.8 when it thinks an answer is faithful, against
// binary human labels.
func ExampleReliability() {
	p := []float64{0.8, 0.8, 0.8, 0.8, 0.8, 0.2, 0.2, 0.2, 0.2, 0.2}
	y := []bool{true, true, true, false, false, false, false, true, false, false}
	fmt.Printf("brier %.3f  ece %.3f\n", stats.Brier(p, y), stats.ECE(p, y, 10))
	for _, b := range stats.Reliability(p, y, 10) {
		if b.N > 0 {
			fmt.Printf("[%.1f, %.1f) n=%d predicted %.2f observed %.2f\n", b.Lo, b.Hi, b.N, b.MeanPredicted, b.FractionPositive)
		}
	}
	// Output:
	// brier 0.220  ece 0.100
	// [0.2, 0.3) n=5 predicted 0.20 observed 0.20
	// [0.8, 0.9) n=5 predicted 0.80 observed 0.60
}

// Krippendorff's own example (2011): four observers, twelve units, missing
// values as NaN. He publishes 0.743, 0.815 and 0.849.
func ExampleKrippendorffAlpha() {
	m := math.NaN()
	units := [][]float64{
		{1, 1, m, 1}, {2, 2, 3, 2}, {3, 3, 3, 3}, {3, 3, 3, 3},
		{2, 2, 2, 2}, {1, 2, 3, 4}, {4, 4, 4, 4}, {1, 1, 2, 1},
		{2, 2, 2, 2}, {m, 5, 5, 5}, {m, m, 1, 1}, {m, 3, m, m},
	}
	for _, l := range []stats.Level{stats.Nominal, stats.Ordinal, stats.Interval} {
		fmt.Printf("%-8s %.3f\n", l, stats.KrippendorffAlpha(units, l))
	}
	// Output:
	// nominal  0.743
	// ordinal  0.815
	// interval 0.849
}

func ExampleBestThreshold() {
	values := []float64{0.7, 0.1, 0.6, 0.9, 0.3, 0.2}
	labels := []bool{true, false, false, true, false, true}
	t, c := stats.BestThreshold(values, labels)
	fmt.Printf("threshold %.2f: %+v, balanced accuracy %.3f, AUC %.3f\n",
		t, c, c.BalancedAccuracy(), stats.AUC(values, labels))
	// Output:
	// threshold 0.65: {TP:2 FP:0 TN:3 FN:1}, balanced accuracy 0.833, AUC 0.778
}

// Four labels of ten samples, the last two taken with half the chance of
// the first two (weights 2 and 4): the mean label, the judge's error on
// the labels weighted by 1/chance.
func ExamplePPIWeightedMean() {
	labels := []float64{1, 0, 1, 1}
	judged := []float64{1, 0, 0, 1}
	weights := []float64{2, 2, 4, 4}
	unlabelled := []float64{1, 0, 1, 0, 1, 1}
	p := stats.PPIWeightedMean(labels, judged, weights, unlabelled)
	fmt.Printf("estimate %.3f [%.3f, %.3f], lambda %.3f, labels alone %.3f\n", p.Estimate, p.CI95[0], p.CI95[1], p.Lambda, p.LabelsOnly)
	// Output:
	// estimate 0.848 [0.458, 1.237], lambda 0.143, labels alone 0.833
}
