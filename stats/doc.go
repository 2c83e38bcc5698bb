// Package stats holds the agreement and calibration statistics Assay reports
// when it measures a judge against human labels or against another judge.
//
// Correlations (Pearson, Spearman with average ranks, Kendall's tau-b) come
// from github.com/montanaflynn/stats, which computes exactly those
// statistics; this package only fixes their contract. Weighted kappa,
// Krippendorff's alpha, the percentile bootstrap, MAE, the Brier score and the
// expected calibration error are written here, since no maintained Go library
// has them, and each is tested against a published worked example or a
// derivation in exact fractions.
//
// Every statistic returns NaN when it is undefined for its input: too few
// values, inputs of different lengths, a constant input where a variance is
// divided by, or a NaN in an input that has no notion of a missing value.
// Callers decide how to show an undefined figure; encoding/json refuses NaN,
// so check with math.IsNaN before encoding. Functions never modify their
// arguments and are safe for concurrent use.
package stats
