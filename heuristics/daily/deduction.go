package daily

// Deduction is points a dimension lost, and why: every point a scorer
// takes from a dimension is one, so that a dimension's score is 100 less
// its deductions (floored at 0).
type Deduction struct {
	Dimension string  `json:"dimension" yaml:"dimension"`
	Points    float64 `json:"points" yaml:"points"`
	Reason    string  `json:"reason" yaml:"reason"`
}

// ledger collects a scorer's deductions.
type ledger []Deduction

// take records that dim lost pts for reason (nothing when pts is 0).
func (l *ledger) take(dim string, pts float64, reason string) {
	if pts > 0 {
		*l = append(*l, Deduction{Dimension: dim, Points: round1(pts), Reason: reason})
	}
}

// items records a dimension scored as the share of of items that pass:
// each failing item, named by its reason, costs 100/of.
func (l *ledger) items(dim string, of int, reasons ...string) {
	for _, r := range reasons {
		l.take(dim, 100/float64(of), r)
	}
}

// ForDimension returns the deductions of one dimension.
func ForDimension(ds []Deduction, dim string) []Deduction {
	var out []Deduction
	for _, d := range ds {
		if d.Dimension == dim {
			out = append(out, d)
		}
	}
	return out
}

// list is the deductions, never nil (an empty list encodes as []).
func (l ledger) list() []Deduction {
	if l == nil {
		return []Deduction{}
	}
	return l
}

// rating names a content score as the seed's interpretation does: 90-100
// Excellent, 80-89 Good, 70-79 Fair, 60-69 Poor, below 60 Failed.
func rating(v float64) string {
	switch v = round1(v); {
	case v >= 90:
		return "Excellent"
	case v >= 80:
		return "Good"
	case v >= 70:
		return "Fair"
	case v >= 60:
		return "Poor"
	}
	return "Failed"
}
