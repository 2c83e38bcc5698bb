package stats

import "math"

// Bin is one row of a reliability table: the predictions p with
// Lo <= p < Hi (the last bin also holds p == 1), how many there are, their
// mean, and the share of them whose label is true. An empty bin has N == 0
// and zero means, so that a table always encodes as JSON.
type Bin struct {
	Lo               float64 `json:"lo"`
	Hi               float64 `json:"hi"`
	N                int     `json:"n"`
	MeanPredicted    float64 `json:"mean_predicted"`
	FractionPositive float64 `json:"fraction_positive"`
}

// Brier returns the Brier score of probabilities p for binary labels y: the
// mean of (p - y)^2, y counted as 1 when true. 0 is perfect; always saying
// 0.5 scores 0.25. It is NaN when the slices are empty or differ in length,
// or when a p is NaN or outside [0, 1].
func Brier(p []float64, y []bool) float64 {
	if !probabilities(p, y) {
		return math.NaN()
	}
	var sum float64
	for i := range p {
		d := p[i] - indicator(y[i])
		sum += d * d
	}
	return sum / float64(len(p))
}

// ECE returns the expected calibration error of probabilities p for labels
// y over bins equal-width bins of [0, 1]: the mean over bins of
// |fraction positive - mean predicted|, each bin weighted by its share of
// the predictions. It is NaN when bins < 1 or Brier would be NaN.
func ECE(p []float64, y []bool, bins int) float64 {
	table := Reliability(p, y, bins)
	if table == nil {
		return math.NaN()
	}
	return ece(table, len(p))
}

// ece is the expected calibration error of a reliability table of n
// predictions.
func ece(table []Bin, n int) float64 {
	var e float64
	for _, b := range table {
		e += float64(b.N) / float64(n) * math.Abs(b.FractionPositive-b.MeanPredicted)
	}
	return e
}

// Calibration says how well probabilities match how often binary labels
// are true: Brier, ECE and Reliability of the same predictions, measured
// together.
type Calibration struct {
	// Brier is the Brier score: 0 is perfect, 0.25 what always saying 0.5
	// gets.
	Brier float64 `json:"brier"`
	// ECE is the expected calibration error over the bins of Reliability.
	ECE float64 `json:"ece"`
	// Reliability is the reliability table, every bin present, lowest
	// first.
	Reliability []Bin `json:"reliability"`
}

// Calibrate measures the calibration of probabilities p for labels y over
// bins equal-width bins of [0, 1]. It is nil where Reliability is: bins
// below 1, no p, slices of different lengths, or a p that is NaN or outside
// [0, 1] (a score on another scale, which is no probability).
func Calibrate(p []float64, y []bool, bins int) *Calibration {
	table := Reliability(p, y, bins)
	if table == nil {
		return nil
	}
	return &Calibration{Brier: Brier(p, y), ECE: ece(table, len(p)), Reliability: table}
}

// Reliability returns the reliability table of probabilities p for labels y
// over bins equal-width bins of [0, 1], every bin present, lowest first. It
// is nil when bins < 1 or Brier would be NaN.
func Reliability(p []float64, y []bool, bins int) []Bin {
	if bins < 1 || !probabilities(p, y) {
		return nil
	}
	table := make([]Bin, bins)
	for i := range table {
		table[i].Lo = float64(i) / float64(bins)
		table[i].Hi = float64(i+1) / float64(bins)
	}
	for i, v := range p {
		b := binOf(v, table)
		table[b].N++
		table[b].MeanPredicted += v
		table[b].FractionPositive += indicator(y[i])
	}
	for i := range table {
		if n := float64(table[i].N); n > 0 {
			table[i].MeanPredicted /= n
			table[i].FractionPositive /= n
		}
	}
	return table
}

// binOf returns the bin that holds v, comparing with the bins' own bounds so
// that a value on a boundary (0.3 with ten bins) lands in the bin that starts
// there even where v*bins rounds below it.
func binOf(v float64, table []Bin) int {
	b := min(int(v*float64(len(table))), len(table)-1)
	for b > 0 && v < table[b].Lo {
		b--
	}
	for b < len(table)-1 && v >= table[b].Hi {
		b++
	}
	return b
}

// probabilities reports whether p and y can be scored: same non-zero
// length, every p a number in [0, 1].
func probabilities(p []float64, y []bool) bool {
	if len(p) == 0 || len(p) != len(y) {
		return false
	}
	for _, v := range p {
		if math.IsNaN(v) || v < 0 || v > 1 {
			return false
		}
	}
	return true
}

func indicator(b bool) float64 {
	if b {
		return 1
	}
	return 0
}
