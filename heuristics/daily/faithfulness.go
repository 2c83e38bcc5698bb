package daily

import (
	"fmt"
	"math"
	"strconv"

	"github.com/assaylabs/assay/eval"
)

// FaithfulnessScore is seed 003's faithfulness: numeric accuracy 30,
// percentile accuracy 25, news citation accuracy 20, interpretation
// accuracy 25.
type FaithfulnessScore struct {
	OverallScore float64  `json:"overall_score" yaml:"overall_score"`
	MetricScores Dims     `json:"metric_scores" yaml:"metric_scores"`
	Violations   []string `json:"violations" yaml:"violations"`
	// VerifiedClaims counts the claims that match the truth, as the
	// seed's API response does.
	VerifiedClaims int `json:"verified_claims" yaml:"verified_claims"`
	// Rating is the seed's name for the score (Excellent ... Failed).
	Rating     string      `json:"rating" yaml:"rating"`
	Deductions []Deduction `json:"deductions" yaml:"deductions"`
}

// Faithfulness checks every claim the extraction found against the truth:
// numbers within the metric's tolerance, percentiles within the
// profile's percentile tolerance, citations within the news list, band
// words matching the band of the true value. A claim about a value the
// truth lacks is not judged, except a percentile, which is a hallucination
// when the truth has none.
func (p *Profile) Faithfulness(x Extraction, t *eval.Truth) FaithfulnessScore {
	var out FaithfulnessScore
	out.Violations = []string{}
	var l ledger
	var failed []string
	bad := func(msg string) {
		out.Violations = append(out.Violations, msg)
		failed = append(failed, msg)
	}
	ok, of := 0, 0
	for _, c := range x.Numbers {
		actual, known := t.Value(c.Metric)
		if !known {
			continue
		}
		m, _ := p.Metric(c.Metric)
		of++
		claimed, against := c.Value, actual
		if m.Signed && c.Direction == "" {
			// A distance without a direction: checked as a distance.
			claimed, against = math.Abs(claimed), math.Abs(actual)
		}
		if within(claimed, against, math.Abs(actual)*m.TolerancePct/100) {
			ok++
			continue
		}
		msg := fmt.Sprintf("%s mismatch: narrative claims %s, actual is %s", c.Metric, fnum(c.Value), fnum(actual))
		if c.Direction != "" && actual != 0 && (c.Value < 0) != (actual < 0) {
			msg += fmt.Sprintf(" (the report says %s, the data is %s)", c.Direction, map[bool]string{true: "below", false: "above"}[actual < 0])
		}
		bad(msg)
	}
	numeric := share(ok, of)
	l.items("numeric_accuracy", of, failed...)
	failed = nil
	out.VerifiedClaims += ok

	ok, of = 0, 0
	for _, c := range x.Percentiles {
		if c.Metric == "" {
			continue
		}
		of++
		actual, known := t.Percentiles[c.Metric]
		switch {
		case !known:
			bad(fmt.Sprintf("%s percentile hallucinated: narrative claims %s, the data has no percentile for it", c.Metric, fnum(c.Value)))
		case within(c.Value, actual, p.PercentileTolerance):
			ok++
		default:
			bad(fmt.Sprintf("%s percentile mismatch: narrative claims %s, actual is %s", c.Metric, fnum(c.Value), fnum(actual)))
		}
	}
	percentile := share(ok, of)
	l.items("percentile_accuracy", of, failed...)
	failed = nil
	out.VerifiedClaims += ok

	ok = 0
	wrong := map[int]int{} // citation -> how many of its uses point elsewhere
	for _, c := range x.cites {
		if why := misdirected(c, t.News); why != "" {
			wrong[c.n]++
			bad(why)
		}
	}
	for _, n := range x.Citations {
		switch {
		case n < 1 || n > len(t.News):
			bad(fmt.Sprintf("citation [%d] is beyond the news list (%d items)", n, len(t.News)))
		case wrong[n] > 0:
			wrong[n]--
		default:
			ok++
		}
	}
	news := share(ok, len(x.Citations))
	l.items("news_citation_accuracy", len(x.Citations), failed...)
	failed = nil
	out.VerifiedClaims += ok

	ok, of = 0, 0
	for _, b := range x.Bands {
		actual, known := t.Value(b.Metric)
		if !known {
			continue
		}
		want := p.band(b.Metric, actual)
		if want == "" {
			continue
		}
		of++
		if want == b.Label {
			ok++
			continue
		}
		bad(fmt.Sprintf("%s %s interpreted as '%s' but should be '%s'", b.Metric, fnum(actual), b.Label, want))
	}
	interp := share(ok, of)
	l.items("interpretation_accuracy", of, failed...)
	out.VerifiedClaims += ok

	out.MetricScores = Dims{{"numeric_accuracy", numeric}, {"percentile_accuracy", percentile},
		{"news_citation_accuracy", news}, {"interpretation_accuracy", interp}}
	out.OverallScore = weighted(out.MetricScores, 0.30, 0.25, 0.20, 0.25)
	out.Rating, out.Deductions = rating(out.OverallScore), l.list()
	return out
}

// within reports whether claimed is at most limit from actual, the edge
// included: decimals that are exactly limit apart on paper (8.3 and 3.3,
// five points) can be a hair further apart in binary, so the comparison
// allows a rounding error relative to the numbers compared.
func within(claimed, actual, limit float64) bool {
	slack := 1e-9 * math.Max(1, math.Max(math.Abs(claimed), math.Abs(actual)))
	return math.Abs(claimed-actual) <= limit+slack
}

// band returns the label of the band v falls in for metric, or "".
func (p *Profile) band(metric string, v float64) string {
	for _, bs := range p.Bands {
		if bs.Metric != metric {
			continue
		}
		for _, b := range bs.Bands {
			if b.Holds(v) {
				return b.Label
			}
		}
	}
	return ""
}

// fnum prints a value as the seed's messages do: 43.79, 56.6, 88.
func fnum(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }
