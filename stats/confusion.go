package stats

import "math"

// Confusion is a confusion matrix of binary predictions against binary
// labels. Its metrics but Kappa are never NaN: where one is undefined (a
// division by zero) it is 0, as each method says.
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

// Kappa is Cohen's kappa of the predictions and the labels: WeightedKappa
// with Unweighted weights over this table, (po-pe)/(1-pe) with po the
// accuracy and pe the agreement expected by chance from the marginals. It
// is NaN where that is undefined, 0/0: when N is 0, and when pe is 1
// (predictions and labels all of one and the same class), as
// scikit-learn's cohen_kappa_score has it. A 0 there would read as
// agreement no better than chance beside an accuracy of 1.
func (c Confusion) Kappa() float64 {
	table := [][]float64{{float64(c.TN), float64(c.FP)}, {float64(c.FN), float64(c.TP)}}
	unweighted := [][]float64{{0, 1}, {1, 0}}
	return kappaFromTable(table, unweighted)
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
		panic("stats: values and labels differ in length")
	}
}

// BalancedAccuracyCI returns a 95% interval for the balanced accuracy of
// values against labels at threshold (ConfusionAt's prediction): the
// percentile interval of BootstrapStrata over reps resamples, with the
// labels as strata, so that every resample keeps as many true-labelled and
// as many false-labelled pairs as the data. Pairs whose value is NaN are
// left out, as from the point estimate. With the labels all of one class
// the balanced accuracy is that class's recall (BalancedAccuracy), and the
// interval is the recall's, resampled alike: as uncertain as the few pairs
// it rests on, not the point alone. With fewer than two pairs both ends
// are NaN (BootstrapStrata's); with reps below 1 both are the point
// estimate. It panics if the slices differ
// in length.
func BalancedAccuracyCI(values []float64, labels []bool, threshold float64, reps int, seed uint64) (lo, hi float64) {
	mustPair(values, labels)
	var called, truth []bool // of the pairs with a value
	var strata []int
	for i, v := range values {
		if math.IsNaN(v) {
			continue
		}
		called = append(called, v >= threshold)
		truth = append(truth, labels[i])
		strata = append(strata, int(indicator(labels[i])))
	}
	if len(truth) < 2 {
		return math.NaN(), math.NaN()
	}
	if reps < 1 {
		point := ConfusionAt(values, labels, threshold).BalancedAccuracy()
		return point, point
	}
	lo, hi, _ = BootstrapStrata(strata, reps, seed, func(idx []int) float64 {
		// Each place keeps its class, so each class keeps its size.
		var c Confusion
		for _, j := range idx {
			switch {
			case truth[j] && called[j]:
				c.TP++
			case truth[j]:
				c.FN++
			case called[j]:
				c.FP++
			default:
				c.TN++
			}
		}
		return c.BalancedAccuracy()
	})
	return lo, hi
}
