// Package stats holds every statistic Assay reports: the summary of a run,
// its comparison with a baseline, and the agreement of a judge with human
// labels or with another judge. It imports nothing of Assay's.
//
// One percentile rule, [Percentile] (linear interpolation between closest
// ranks, NumPy's default), gives a run's p10 and latency percentiles and
// the ends of every interval. One bootstrap engine, [BootstrapStrata] (and
// [Bootstrap], its one-stratum case), resamples for every interval: the
// mean of a run's metric ([BootstrapMean]), a graded statistic, the
// balanced accuracy at a threshold ([BalancedAccuracyCI]), the mean of paired
// differences between two runs ([PairedMeanDiff]).
//
// Pearson's and Spearman's correlations (average ranks) come from
// github.com/montanaflynn/stats, which computes exactly those statistics;
// this package only fixes their contract. Kendall's tau-b is counted here
// in O(n log n) (Knight's method, as SciPy does), where montanaflynn
// compares every pair: a bootstrap calls it thousands of times. Weighted kappa,
// Krippendorff's alpha, the percentile and the bootstrap, MAE, the Brier
// score, the expected calibration error, the confusion matrix, ROC AUC, the
// threshold of best balanced accuracy, the Wilcoxon signed-rank test and
// McNemar's exact test ([McNemar], its mid-p beside it), the PPI++ mean
// of a few labels and many judge values ([PPIMean]) and its weighted form
// for labels taken with unequal chances ([PPIWeightedMean]) are
// written here, and each is tested against a published worked example or a
// derivation by hand.
//
// Every statistic returns NaN when it is undefined for its input: too few
// values, inputs of different lengths, a constant input where a variance is
// divided by, or a NaN in an input that has no notion of a missing value.
// Callers decide how to show an undefined figure; encoding/json refuses NaN,
// so check with math.IsNaN before encoding. The binary-label figures are
// the exception, as scikit-learn reports them: [Confusion]'s metrics but
// its kappa, and [AUC], are 0 where undefined (its kappa is NaN there, as
// scikit-learn's cohen_kappa_score and [WeightedKappa] have it), NaN
// values are left out of their pairs, and
// values and labels of different lengths are a programming error that
// panics. Functions never modify their arguments and are safe for
// concurrent use.
package stats
