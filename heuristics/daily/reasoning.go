package daily

import (
	"fmt"
	"strings"

	"github.com/assaylabs/assay/eval"
	"github.com/assaylabs/assay/internal/plural"
	"github.com/assaylabs/assay/internal/textseg"
)

// ReasoningScore is seed 003's reasoning quality: clarity 20, coverage 20,
// specificity 20, alignment 15, minimality 15, consistency 10.
type ReasoningScore struct {
	OverallScore    float64  `json:"overall_score" yaml:"overall_score"`
	DimensionScores Dims     `json:"dimension_scores" yaml:"dimension_scores"`
	Issues          []string `json:"issues" yaml:"issues"`
	Strengths       []string `json:"strengths" yaml:"strengths"`
	// Rating is the seed's name for the score (Excellent ... Failed).
	Rating     string      `json:"rating" yaml:"rating"`
	Deductions []Deduction `json:"deductions" yaml:"deductions"`
}

// Penalties of the reasoning scorer, per occurrence and at most.
const (
	vaguePenalty, vagueMax     = 10, 40
	genericPenalty, genericMax = 10, 40
	fillerPenalty, fillerMax   = 5, 30
	repeatPenalty              = 15
)

// Reasoning judges the explanation from the profile's word lists and the
// truth: vague and generic terms, cause-effect markers, the dimensions
// explained, numbers and comparisons, agreement of percentiles and
// interpretations with the data, length, repetition, filler, and a single
// recommendation with a consistent risk assessment.
func (p *Profile) Reasoning(d *doc, x Extraction, f FaithfulnessScore, t *eval.Truth) ReasoningScore {
	c := reasoningTally{out: ReasoningScore{Issues: []string{}, Strengths: []string{}}}
	clarity, cause := p.reasoningClarity(d, &c)
	coverage := p.reasoningCoverage(d, x, t, cause, &c)
	specificity := p.reasoningSpecificity(d, x, t, &c)
	alignment := reasoningAlignment(f, &c)
	minimality := p.reasoningMinimality(d, &c)
	consistency := p.reasoningConsistency(d, &c)
	out := c.out
	out.DimensionScores = Dims{{"clarity", clamp(clarity)}, {"coverage", clamp(coverage)}, {"specificity", clamp(specificity)},
		{"alignment", clamp(alignment)}, {"minimality", clamp(minimality)}, {"consistency", clamp(consistency)}}
	out.OverallScore = weighted(out.DimensionScores, 0.20, 0.20, 0.20, 0.15, 0.15, 0.10)
	out.Rating, out.Deductions = rating(out.OverallScore), c.l.list()
	return out
}

// reasoningTally gathers Reasoning's issues, strengths and deductions,
// in the order the dimensions are judged.
type reasoningTally struct {
	out ReasoningScore
	l   ledger
}

// issue records an issue and what it costs a dimension.
func (c *reasoningTally) issue(dim string, pts float64, format string, a ...any) {
	msg := fmt.Sprintf(format, a...)
	c.out.Issues = append(c.out.Issues, msg)
	c.l.take(dim, pts, msg)
}

// strength records a strength.
func (c *reasoningTally) strength(s string) { c.out.Strengths = append(c.out.Strengths, s) }

// reasoningClarity judges vague terms, cause-effect markers, section
// structure and long sentences, and returns the cause-effect markers
// counted too.
func (p *Profile) reasoningClarity(d *doc, c *reasoningTally) (float64, int) {
	m := p.m
	clarity := 100.0
	if n := d.count(m.vague); n > 0 {
		pts := min(vagueMax, vaguePenalty*float64(n))
		clarity -= pts
		c.issue("clarity", pts, "Too many vague terms reduce clarity (%d found)", n)
	} else {
		c.strength("No vague terms - explanations are confident")
	}
	cause := d.count(m.cause)
	if cause == 0 {
		clarity -= 20
		c.issue("clarity", 20, "Missing clear cause-effect relationships")
	} else {
		c.strength("Clear cause-effect relationships present")
	}
	if len(d.sections) >= 2 {
		c.strength("Well-structured narrative format")
	} else {
		clarity -= 15
		c.issue("clarity", 15, "No section structure")
	}
	long := 0
	limit := p.Length.MaxSentenceWords[d.lang]
	for _, s := range d.sentences {
		if limit > 0 && textseg.WordCount(d.text[s.start:s.end]) > limit {
			long++
		}
	}
	if long > 0 {
		pts := min(20, 5*float64(long))
		clarity -= pts
		c.issue("clarity", pts, "%d sentences longer than %d words", long, limit)
	}

	return clarity, cause
}

// reasoningCoverage judges the dimensions the data holds that the report
// explains, and whether it says why (cause, its cause-effect markers).
func (p *Profile) reasoningCoverage(d *doc, x Extraction, t *eval.Truth, cause int, c *reasoningTally) float64 {
	m := p.m
	dims := []string{"technical", "volatility", "sentiment", "volume", "fundamental"}
	explained, available := 0, 0
	for _, dim := range dims {
		ms := p.dimensionMetrics(dim, t)
		if len(ms) == 0 && !(dim == "fundamental" && len(t.Fundamentals) > 0) {
			continue
		}
		available++
		if p.anyMentioned(x, ms) || (dim == "technical" && d.has(m.technical)) || (dim == "fundamental" && d.has(m.fundamental)) {
			explained++
		}
	}
	if len(t.Percentiles) > 0 {
		available++
		if len(x.Percentiles) > 0 {
			explained++
		}
	}
	coverage := 0.7 * share(explained, available)
	if cause > 0 {
		coverage += 30
		c.strength("Explains WHY (not just WHAT)")
	} else {
		c.issue("coverage", 30, "Explains WHAT but not WHY")
	}
	if explained < available {
		c.issue("coverage", 0.7*(100-share(explained, available)), "Explains %d of %d dimensions the data holds", explained, available)
	}

	return coverage
}

// reasoningSpecificity judges generic phrases, numbers, comparisons and
// naming the subject.
func (p *Profile) reasoningSpecificity(d *doc, x Extraction, t *eval.Truth, c *reasoningTally) float64 {
	m := p.m
	specificity := 100.0
	if n := d.count(m.generic); n > 0 {
		pts := min(genericMax, genericPenalty*float64(n))
		specificity -= pts
		c.issue("specificity", pts, "Too many generic phrases (reduce specificity): %d", n)
	}
	if x.AllNumbers < 3 {
		specificity -= 30
		c.issue("specificity", 30, "Lacks specific numbers/data points")
	} else {
		c.strength("Specific numbers support the claims")
	}
	if !d.has(m.comparison) && !d.has(m.linkWords) {
		specificity -= 15
		c.issue("specificity", 15, "No specific comparisons")
	}
	if id := t.Subject["ticker"] + t.Subject["name"]; id != "" && !strings.Contains(d.lower, lowerASCII(t.Subject["ticker"])) &&
		(t.Subject["name"] == "" || !strings.Contains(d.lower, lowerASCII(t.Subject["name"]))) {
		specificity -= 15
		c.issue("specificity", 15, "Does not name the subject")
	}

	return specificity
}

// reasoningAlignment is the percentile and interpretation checks of
// faithfulness.
func reasoningAlignment(f FaithfulnessScore, c *reasoningTally) float64 {
	pct, _ := f.MetricScores.Get("percentile_accuracy")
	interp, _ := f.MetricScores.Get("interpretation_accuracy")
	alignment := round1((pct + interp) / 2)
	if alignment < 100 {
		c.out.Issues = append(c.out.Issues, fmt.Sprintf("Interpretations or percentiles do not align with the data (%s/100)", fnum(alignment)))
		c.l.take("alignment", (100-pct)/2, fmt.Sprintf("Percentile claims align at %s/100 (half of alignment)", fnum(pct)))
		c.l.take("alignment", (100-interp)/2, fmt.Sprintf("Interpretations align at %s/100 (half of alignment)", fnum(interp)))
	}

	return alignment
}

// reasoningMinimality judges length, repeated sentences and filler.
func (p *Profile) reasoningMinimality(d *doc, c *reasoningTally) float64 {
	minimality := 100.0
	if r := p.Length.OptimalWords; len(r) == 2 && (d.words < r[0] || d.words > r[1]) {
		minimality -= 20
		c.issue("minimality", 20, "Length of %d words is outside the optimal %d-%d", d.words, r[0], r[1])
	}
	seen := map[string]bool{}
	repeats := 0
	for _, s := range d.sentences {
		k := strings.Join(strings.Fields(d.lower[s.start:s.end]), " ")
		if seen[k] {
			repeats++
		}
		seen[k] = true
	}
	if repeats > 0 {
		minimality -= repeatPenalty * float64(repeats)
		c.issue("minimality", repeatPenalty*float64(repeats), "%s", plural.Count(repeats, "repeated sentence"))
	}
	if n := d.count(p.m.filler); n > 0 {
		pts := min(fillerMax, fillerPenalty*float64(n))
		minimality -= pts
		c.issue("minimality", pts, "%s", plural.Count(n, "filler word"))
	}

	return minimality
}

// reasoningConsistency judges a single recommendation and a consistent
// risk assessment.
func (p *Profile) reasoningConsistency(d *doc, c *reasoningTally) float64 {
	m := p.m
	consistency := 100.0
	if recs := p.recommendations(d); len(recs) > 1 {
		consistency -= 50
		c.issue("consistency", 50, "Contradiction: %d recommendations (%s); give one", len(recs), strings.Join(recs, " and "))
	} else if len(recs) == 1 {
		c.strength("Single recommendation (" + recs[0] + ")")
	}
	if d.has(m.lowRisk) && d.has(m.highRisk) {
		consistency -= 30
		c.issue("consistency", 30, "Contradicting risk statements (both low and high risk)")
	}

	return consistency
}
