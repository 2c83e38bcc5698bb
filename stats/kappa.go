package stats

import (
	"math"
	"slices"
	"strconv"
)

// Weight says how much a disagreement between two grades counts in
// WeightedKappa. Grades are weighted by their positions i and j in the sorted
// grade set of k grades, as Cohen (1968) and scikit-learn's
// cohen_kappa_score do, so a grade declared but never observed still widens
// the distances.
type Weight int

const (
	// Unweighted counts every disagreement as 1: Cohen's (1960) kappa.
	Unweighted Weight = iota
	// Linear counts a disagreement as |i-j|: Cicchetti-Allison weights.
	Linear
	// Quadratic counts a disagreement as (i-j)^2: Fleiss-Cohen weights.
	Quadratic
)

// String names the weight as the JSON keys of assay agree do.
func (w Weight) String() string {
	switch w {
	case Unweighted:
		return "unweighted"
	case Linear:
		return "linear"
	case Quadratic:
		return "quadratic"
	}
	return "Weight(" + strconv.Itoa(int(w)) + ")"
}

// disagreement is the weight of grades at positions i and j, or NaN for a
// Weight that is none of the constants.
func (w Weight) disagreement(i, j int) float64 {
	d := float64(i - j)
	switch w {
	case Unweighted:
		if i == j {
			return 0
		}
		return 1
	case Linear:
		return math.Abs(d)
	case Quadratic:
		return d * d
	}
	return math.NaN()
}

// WeightedKappa returns Cohen's weighted kappa between raters a and b, who
// graded the same items: 1 - sum(w*observed) / sum(w*expected by chance),
// with w the disagreement weight. grades is the label set; nil means the
// union of the values in a and b, sorted.
//
// It is NaN when a and b are empty or differ in length, contain a NaN, hold
// a value missing from grades, when w is not a Weight constant, or when
// chance disagreement is zero (both raters used one and the same grade).
func WeightedKappa(a, b []float64, grades []float64, w Weight) float64 {
	if len(a) == 0 || len(a) != len(b) || hasNaN(a) || hasNaN(b) || hasNaN(grades) {
		return math.NaN()
	}
	if grades == nil {
		grades = slices.Concat(a, b)
	} else {
		grades = slices.Clone(grades)
	}
	slices.Sort(grades)
	grades = slices.Compact(grades)

	k := len(grades)
	table := make([][]float64, k)
	for i := range table {
		table[i] = make([]float64, k)
	}
	for n := range a {
		i, okA := slices.BinarySearch(grades, a[n])
		j, okB := slices.BinarySearch(grades, b[n])
		if !okA || !okB {
			return math.NaN()
		}
		table[i][j]++
	}
	weights := make([][]float64, k)
	for i := range weights {
		weights[i] = make([]float64, k)
		for j := range weights[i] {
			weights[i][j] = w.disagreement(i, j)
		}
	}
	return kappaFromTable(table, weights)
}

// kappaFromTable returns weighted kappa from a k x k table of counts (rater
// a in rows, rater b in columns) and a k x k matrix of disagreement weights,
// as Cohen (1968) defines it: 1 - sum(v*p_o) / sum(v*p_e), where p_e is the
// product of the margins. NaN when the table is empty or sum(v*p_e) is 0.
//
// It is computed on the counts, as (sum(v*r*c) - n*sum(v*t)) / sum(v*r*c)
// with r and c the margins: with whole weights (every Weight's) each sum
// is exact and the kappa is rounded once, so a 2x2 table gives Cohen's
// (po-pe)/(1-pe) correctly rounded (11/15, not 11/15 and a last digit).
func kappaFromTable(table, weights [][]float64) float64 {
	k := len(table)
	rows := make([]float64, k)
	cols := make([]float64, k)
	var n float64
	for i := range k {
		for j := range k {
			rows[i] += table[i][j]
			cols[j] += table[i][j]
			n += table[i][j]
		}
	}
	if n == 0 {
		return math.NaN()
	}
	var observed, expected float64
	for i := range k {
		for j := range k {
			observed += weights[i][j] * table[i][j]
			expected += weights[i][j] * rows[i] * cols[j]
		}
	}
	if expected == 0 || math.IsNaN(expected) {
		return math.NaN()
	}
	return (expected - n*observed) / expected
}
