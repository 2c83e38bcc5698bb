package bench

import (
	"math"
	"math/rand/v2"
	"slices"

	"github.com/assaylabs/assay/stats"
)

// Confusion is a confusion matrix of binary predictions against binary
// labels. Its metrics are never NaN: where one is undefined (a division by
// zero) it is 0, as each method says.
type Confusion struct {
	TP int `json:"tp"` // predicted true, labelled true
	FP int `json:"fp"` // predicted true, labelled false
	TN int `json:"tn"` // predicted false, labelled false
	FN int `json:"fn"` // predicted false, labelled true
}

// N is the number of pairs counted.
func (c Confusion) N() int { return c.TP + c.FP + c.TN + c.FN }

func ratio(a, b int) float64 {
	if b == 0 {
		return 0
	}
	return float64(a) / float64(b)
}

// Accuracy is (TP+TN)/N; 0 when N is 0.
func (c Confusion) Accuracy() float64 { return ratio(c.TP+c.TN, c.N()) }

// Precision is TP/(TP+FP); 0 when nothing is predicted true.
func (c Confusion) Precision() float64 { return ratio(c.TP, c.TP+c.FP) }

// Recall (the true-positive rate) is TP/(TP+FN); 0 when no label is true.
func (c Confusion) Recall() float64 { return ratio(c.TP, c.TP+c.FN) }

// Specificity (the true-negative rate) is TN/(TN+FP); 0 when no label is
// false.
func (c Confusion) Specificity() float64 { return ratio(c.TN, c.TN+c.FP) }

// F1 is 2TP/(2TP+FP+FN), the harmonic mean of precision and recall; 0 when
// TP, FP and FN are all 0.
func (c Confusion) F1() float64 { return ratio(2*c.TP, 2*c.TP+c.FP+c.FN) }

// BalancedAccuracy is the mean of the recalls of the classes present in the
// labels: (Recall + Specificity)/2 when both are, the recall of the one
// class when the labels are all of one class (as scikit-learn computes it),
// and 0 when N is 0.
func (c Confusion) BalancedAccuracy() float64 {
	pos, neg := c.TP+c.FN, c.TN+c.FP
	switch {
	case pos > 0 && neg > 0:
		return (c.Recall() + c.Specificity()) / 2
	case pos > 0:
		return c.Recall()
	case neg > 0:
		return c.Specificity()
	}
	return 0
}

// Kappa is Cohen's kappa, (po-pe)/(1-pe), where po is the accuracy and pe
// the agreement expected by chance from the marginals. It is 0 when N is 0
// and when pe is 1 (predictions and labels all of one and the same class),
// where it is undefined.
func (c Confusion) Kappa() float64 {
	n := float64(c.N())
	if n == 0 {
		return 0
	}
	po := c.Accuracy()
	pe := (float64(c.TP+c.FP)*float64(c.TP+c.FN) + float64(c.TN+c.FN)*float64(c.TN+c.FP)) / (n * n)
	if pe >= 1 {
		return 0
	}
	return (po - pe) / (1 - pe)
}

// MCC is the Matthews correlation coefficient,
// (TP*TN - FP*FN) / sqrt((TP+FP)(TP+FN)(TN+FP)(TN+FN)), from -1 to 1. It
// is 0 where it is undefined: when a row or column of the matrix is empty
// (predictions or labels all of one class), as scikit-learn has it.
func (c Confusion) MCC() float64 {
	tp, fp, tn, fn := float64(c.TP), float64(c.FP), float64(c.TN), float64(c.FN)
	d := (tp + fp) * (tp + fn) * (tn + fp) * (tn + fn)
	if d == 0 {
		return 0
	}
	return (tp*tn - fp*fn) / math.Sqrt(d)
}

// ConfusionAt counts the predictions value >= threshold against labels.
// Pairs whose value is NaN are left out. It panics if the slices differ in
// length.
func ConfusionAt(values []float64, labels []bool, threshold float64) Confusion {
	mustPair(values, labels)
	var c Confusion
	for i, v := range values {
		if math.IsNaN(v) {
			continue
		}
		switch pred := v >= threshold; {
		case pred && labels[i]:
			c.TP++
		case pred:
			c.FP++
		case labels[i]:
			c.FN++
		default:
			c.TN++
		}
	}
	return c
}

func mustPair(values []float64, labels []bool) {
	if len(values) != len(labels) {
		panic("bench: values and labels differ in length")
	}
}

// scored is a value with its label.
type scored struct {
	v     float64
	label bool
}

// sortedPairs returns the pairs without NaN values, sorted by value.
func sortedPairs(values []float64, labels []bool) []scored {
	mustPair(values, labels)
	ps := make([]scored, 0, len(values))
	for i, v := range values {
		if !math.IsNaN(v) {
			ps = append(ps, scored{v, labels[i]})
		}
	}
	slices.SortFunc(ps, func(a, b scored) int {
		switch {
		case a.v < b.v:
			return -1
		case a.v > b.v:
			return 1
		}
		return 0
	})
	return ps
}

// BestThreshold finds the threshold whose predictions (value >= threshold)
// have the highest balanced accuracy. The candidates are the smallest value
// (everything predicted true), the midpoints between consecutive distinct
// values, and the next float above the largest value (everything predicted
// false). Ties go to the candidate closest to 0.5, then to the smaller one,
// so the result is deterministic. NaN values are left out; with no values
// the result is 0.5 and an empty Confusion. It panics if the slices differ
// in length.
func BestThreshold(values []float64, labels []bool) (threshold float64, c Confusion) {
	ps := sortedPairs(values, labels)
	if len(ps) == 0 {
		return 0.5, Confusion{}
	}
	// Start with everything predicted true, then move the threshold up one
	// group of equal values at a time.
	for _, p := range ps {
		if p.label {
			c.TP++
		} else {
			c.FP++
		}
	}
	best, bestC := ps[0].v, c
	bestBA := c.BalancedAccuracy()
	const eps = 1e-12
	for i := 0; i < len(ps); {
		j := i
		for j < len(ps) && ps[j].v == ps[i].v {
			if ps[j].label {
				c.TP--
				c.FN++
			} else {
				c.FP--
				c.TN++
			}
			j++
		}
		var t float64
		if j < len(ps) {
			t = midpoint(ps[i].v, ps[j].v)
		} else {
			t = math.Nextafter(ps[i].v, math.Inf(1))
		}
		ba := c.BalancedAccuracy()
		better := ba > bestBA+eps
		if !better && ba > bestBA-eps {
			dt, db := math.Abs(t-0.5), math.Abs(best-0.5)
			better = dt < db || (dt == db && t < best)
		}
		if better {
			best, bestC, bestBA = t, c, ba
		}
		i = j
	}
	return best, bestC
}

// midpoint returns a threshold t with a < t <= b, halfway where the floats
// allow.
func midpoint(a, b float64) float64 {
	t := (a + b) / 2
	if math.IsInf(t, 0) {
		t = a/2 + b/2
	}
	if t <= a || t > b {
		return b
	}
	return t
}

// AUC is the area under the ROC curve of values against labels: the
// chance that a random true-labelled pair has a higher value than a random
// false-labelled one, ties counting one half (the Mann-Whitney U statistic
// over the product of the class sizes). NaN values are left out. It is 0
// when either class is empty, where it is undefined. It panics if the slices
// differ in length.
func AUC(values []float64, labels []bool) float64 {
	ps := sortedPairs(values, labels)
	var pos, neg int
	var rankSum float64 // of the true-labelled pairs, 1-based, ties averaged
	for i := 0; i < len(ps); {
		j := i
		var groupPos int
		for j < len(ps) && ps[j].v == ps[i].v {
			if ps[j].label {
				groupPos++
			}
			j++
		}
		avg := float64(i+1+j) / 2 // mean of the ranks i+1..j
		rankSum += avg * float64(groupPos)
		pos += groupPos
		neg += j - i - groupPos
		i = j
	}
	if pos == 0 || neg == 0 {
		return 0
	}
	u := rankSum - float64(pos)*float64(pos+1)/2
	return u / (float64(pos) * float64(neg))
}

// BootstrapBalancedAccuracy returns a 95% percentile interval for the
// balanced accuracy of values against labels at threshold, from reps
// stratified bootstrap resamples (positives and negatives each redrawn
// with replacement at their own count). The generator has a fixed seed, so
// the interval is the same on every run. With one class missing, or reps
// below 1, both bounds are the point estimate.
func BootstrapBalancedAccuracy(values []float64, labels []bool, threshold float64, reps int) (lo, hi float64) {
	mustPair(values, labels)
	var pos, neg []bool // whether each row is called positive
	for i, v := range values {
		if labels[i] {
			pos = append(pos, v >= threshold)
		} else {
			neg = append(neg, v >= threshold)
		}
	}
	point := ConfusionAt(values, labels, threshold).BalancedAccuracy()
	if len(pos) == 0 || len(neg) == 0 || reps < 1 {
		return point, point
	}
	rng := rand.New(rand.NewPCG(0x5eed, 0xba1acc))
	share := func(called []bool, want bool) float64 {
		n := 0
		for range called {
			if called[rng.IntN(len(called))] == want {
				n++
			}
		}
		return float64(n) / float64(len(called))
	}
	stats := make([]float64, reps)
	for r := range stats {
		stats[r] = (share(pos, true) + share(neg, false)) / 2
	}
	slices.Sort(stats)
	at := func(q float64) float64 { return stats[min(int(q*float64(reps)), reps-1)] }
	return at(0.025), at(0.975)
}

// CalibrationBins is how many equal-width bins of [0, 1] the reliability
// table and the expected calibration error use.
const CalibrationBins = 10

// Calibration says how well a judge's values, read as the chance that a
// binary label is true, match how often it is.
type Calibration struct {
	// Brier is the mean of (value - label)^2: 0 is perfect, 0.25 what
	// always answering 0.5 gets.
	Brier float64 `json:"brier"`
	// ECE is the expected calibration error: over the bins, the share of
	// values in the bin times |mean value - share of true labels|.
	ECE float64 `json:"ece"`
	// Reliability is the table of the CalibrationBins bins.
	Reliability []ReliabilityBin `json:"reliability"`
}

// ReliabilityBin is one bin of values [Lo, Hi) (the last holds 1): how
// many values fell in it, their mean and the share of true labels among
// them, both 0 in an empty bin.
type ReliabilityBin struct {
	Lo               float64 `json:"lo"`
	Hi               float64 `json:"hi"`
	N                int     `json:"n"`
	MeanPredicted    float64 `json:"mean_predicted"`
	FractionPositive float64 `json:"fraction_positive"`
}

// Calibrate measures the calibration of values against labels; nil when
// there are none or a value lies outside [0, 1] (a score read from a file
// on another scale), where the values are no chances.
func Calibrate(values []float64, labels []bool) *Calibration {
	mustPair(values, labels)
	if len(values) == 0 || slices.ContainsFunc(values, func(v float64) bool { return !(v >= 0 && v <= 1) }) {
		return nil
	}
	c := &Calibration{Brier: stats.Brier(values, labels), ECE: stats.ECE(values, labels, CalibrationBins)}
	for _, b := range stats.Reliability(values, labels, CalibrationBins) {
		rb := ReliabilityBin{Lo: b.Lo, Hi: b.Hi, N: b.N}
		if b.N > 0 {
			rb.MeanPredicted, rb.FractionPositive = b.MeanPredicted, b.FractionPositive
		}
		c.Reliability = append(c.Reliability, rb)
	}
	return c
}
