package daily

import (
	"fmt"
	"strings"

	"github.com/assaylabs/assay/eval"
)

// CompletenessScore is seed 003's completeness: context 20, analysis
// dimensions 25, temporal 15, actionability 20, narrative structure 10,
// quantitative context 10.
type CompletenessScore struct {
	OverallScore    float64  `json:"overall_score" yaml:"overall_score"`
	DimensionScores Dims     `json:"dimension_scores" yaml:"dimension_scores"`
	MissingElements []string `json:"missing_elements" yaml:"missing_elements"`
	CoveredElements []string `json:"covered_elements" yaml:"covered_elements"`
	// Rating is the seed's name for the score (Excellent ... Failed).
	Rating     string      `json:"rating" yaml:"rating"`
	Deductions []Deduction `json:"deductions" yaml:"deductions"`
	ledger     ledger
}

// check is one element a dimension looks for; applies is false when the
// truth does not hold the data it needs ("penalize only if the data exists
// but is unused").
type check struct {
	name    string
	applies bool
	ok      bool
}

// tally scores a dimension's checks and records what is missing: each
// missing element costs the dimension an equal share.
func (out *CompletenessScore) tally(dim string, checks ...check) float64 {
	ok, of := 0, 0
	var missing []string
	for _, c := range checks {
		if !c.applies {
			continue
		}
		of++
		if c.ok {
			ok++
			out.CoveredElements = append(out.CoveredElements, c.name)
		} else {
			missing = append(missing, c.name+" not mentioned")
		}
	}
	out.MissingElements = append(out.MissingElements, missing...)
	out.ledger.items(dim, of, missing...)
	return share(ok, of)
}

// Completeness checks that the report covers what its data allows: the
// subject and its state, each analysis dimension the data holds, the time
// frame, a recommendation with its reasons and risks, the sections, and
// numbers set in context.
func (p *Profile) Completeness(d *doc, x Extraction, t *eval.Truth) CompletenessScore {
	out := CompletenessScore{MissingElements: []string{}, CoveredElements: []string{}}
	m := p.m
	lower := d.lower
	has := func(v string) bool { return v != "" && strings.Contains(lower, lowerASCII(v)) }
	subject := has(t.Subject["ticker"]) || has(t.Subject["name"])
	_, hasPrice := t.Values["current_price"]
	sector := t.Subject["sector"]
	positioning := p.dimensionMetrics("positioning", t)
	context := out.tally("context_completeness",
		check{"Company identity (name or ticker)", t.Subject["ticker"] != "" || t.Subject["name"] != "", subject},
		check{"Current state (current price)", hasPrice, x.Mentioned["current_price"] > 0},
		check{"Market context (sector)", sector != "", has(sector) || has(t.Subject["industry"])},
		check{"Market positioning (52-week range or market cap)", len(positioning) > 0, p.anyMentioned(x, positioning)},
	)

	dim := func(name string) []string { return p.dimensionMetrics(name, t) }
	technical := dim("technical")
	volatility, sentiment, volume := dim("volatility"), dim("sentiment"), dim("volume")
	fundamentals := len(t.Fundamentals) > 0 || len(dim("fundamental")) > 0
	analysis := out.tally("analysis_dimensions",
		check{"Technical analysis (RSI, MACD, SMA, Bollinger Bands)", len(technical) > 0, d.has(m.technical)},
		check{"Volatility/risk assessment (uncertainty score or ATR)", len(volatility) > 0, p.anyMentioned(x, volatility)},
		check{"Market sentiment (VWAP or news)", len(sentiment) > 0 || len(t.News) > 0, p.anyMentioned(x, sentiment) || len(x.Citations) > 0},
		check{"Volume analysis", len(volume) > 0, p.anyMentioned(x, volume)},
		check{"Fundamental analysis (data available but not used)", fundamentals, d.has(m.fundamental) || p.anyMentioned(x, dim("fundamental"))},
		check{"Historical context (percentile analysis)", len(t.Percentiles) > 0, len(x.Percentiles) > 0 || d.has(m.pctWords)},
	)

	temporal := out.tally("temporal_completeness",
		check{"Current state (current values)", true, len(x.Numbers) > 0},
		check{"Historical comparison (percentiles or comparison)", true, len(x.Percentiles) > 0 || d.has(m.comparison)},
		check{"Trend direction", true, d.has(m.trend)},
		check{"Timeframe awareness (date)", true, mentionsDate(d.lower, t.Date) || d.has(m.timeframe)},
	)

	recLower := lower
	if s, ok := d.section("recommendation", p); ok {
		recLower = lower[s.body.start:s.body.end]
	}
	recs := p.recommendations(d)
	_, riskSection := d.section("risk", p)
	action := out.tally("actionability",
		check{"Clear recommendation (BUY/SELL/HOLD)", true, len(recs) > 0},
		check{"Reasoning for recommendation", true, m.cause.has(recLower)},
		check{"Risk warnings", true, d.has(m.risk) || riskSection},
		check{"Key decision factors (metrics behind the recommendation)", true, m.metricNames.has(recLower)},
	)

	var sections []check
	for _, s := range p.Sections {
		_, ok := d.section(s.Key, p)
		sections = append(sections, check{fmt.Sprintf("%s (%s)", s.Label, s.Marker), true, ok})
	}
	narrative := out.tally("narrative_structure", sections...)

	quant := out.tally("quantitative_context",
		check{"Percentile context for numbers", len(t.Percentiles) > 0 && len(x.Numbers) > 0, len(x.Percentiles) > 0},
		check{"Threshold interpretation of values", len(p.Bands) > 0, len(x.Bands) > 0},
		check{"Comparative context (numbers against benchmarks)", true, d.has(m.comparison) || d.has(m.linkWords)},
	)

	out.DimensionScores = Dims{{"context_completeness", context}, {"analysis_dimensions", analysis},
		{"temporal_completeness", temporal}, {"actionability", action}, {"narrative_structure", narrative},
		{"quantitative_context", quant}}
	out.OverallScore = weighted(out.DimensionScores, 0.20, 0.25, 0.15, 0.20, 0.10, 0.10)
	out.Rating, out.Deductions = rating(out.OverallScore), out.ledger.list()
	return out
}

// dimensionMetrics are the metrics of an analysis dimension that the
// truth holds.
func (p *Profile) dimensionMetrics(dim string, t *eval.Truth) []string {
	var out []string
	for _, m := range p.Metrics {
		if _, ok := t.Value(m.Name); ok && m.Dimension == dim {
			out = append(out, m.Name)
		}
	}
	return out
}

func (p *Profile) anyMentioned(x Extraction, metrics []string) bool {
	for _, m := range metrics {
		if x.Mentioned[m] > 0 {
			return true
		}
	}
	return false
}

// section returns the found section of that key.
func (d *doc) section(key string, p *Profile) (foundSection, bool) {
	for _, s := range d.sections {
		if p.Sections[s.idx].Key == key {
			return s, true
		}
	}
	return foundSection{}, false
}
