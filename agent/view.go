package agent

import (
	"fmt"
	"math"

	"go.yaml.in/yaml/v3"

	"github.com/assaylabs/assay/eval"
	"github.com/assaylabs/assay/heuristics"
	"github.com/assaylabs/assay/internal/encode"
	"github.com/assaylabs/assay/judges"
	"github.com/assaylabs/assay/metric"
)

// rowTitle is the label of a metric's row: its entry's Title in reg, or its
// name's when reg has none.
func rowTitle(reg *metric.Registry, name string) string {
	if e, ok := reg.Lookup(name); ok {
		return e.Title()
	}
	return metric.Title(name)
}

// ResearchView is the research card in seed 000's shape: the form `assay
// score` prints as JSON. Its top-level keys are fixed.
type ResearchView struct {
	Profile       string          `json:"profile"`
	Status        string          `json:"status"`
	Reason        string          `json:"reason"`
	PassThreshold float64         `json:"pass_threshold"`
	QualityScore  ResearchPoints  `json:"quality_score"`
	Details       ResearchDetails `json:"details"`
	Fixes         []eval.Fix      `json:"fixes"`
	// Judge names what judged the model-based dimensions; Defaulted counts
	// judge failures that fell back to the neutral grade.
	Judge     string             `json:"judge"`
	Defaulted int                `json:"defaulted_scores"`
	LLMUsage  *eval.Usage        `json:"llm_usage,omitempty"`
	maxima    map[string]float64 // per metric, for the YAML "X/5" form
	titles    map[string]string  // per metric, its row's label (metric.Entry.Title)
}

// ResearchPoints are the points per dimension and the total.
type ResearchPoints struct {
	Grounding       float64 `json:"grounding"`
	SourceQuality   float64 `json:"source_quality"`
	SourceDiversity float64 `json:"source_diversity"`
	Completeness    float64 `json:"completeness"`
	Clarity         float64 `json:"clarity"`
	Total           float64 `json:"total"`
	// Other are the points of the card's other metrics (those a profile of
	// one's own adds), in profile order: in JSON and YAML each is keyed by
	// its name, after the five dimensions and before the total.
	Other []MetricPoints `json:"-"`
}

// MetricPoints are a metric's points on a card.
type MetricPoints struct {
	Metric string
	Points float64
}

// points are the dimensions, the other metrics and the total, in the
// order a card shows them.
func (q ResearchPoints) points() []MetricPoints {
	out := []MetricPoints{{MetricGrounding, q.Grounding}, {MetricSourceQuality, q.SourceQuality}, {MetricSourceDiversity, q.SourceDiversity},
		{judges.MetricCompleteness, q.Completeness}, {MetricClarity, q.Clarity}}
	return append(append(out, q.Other...), MetricPoints{"total", q.Total})
}

// MarshalJSON writes the points keyed by metric, Other among them.
func (q ResearchPoints) MarshalJSON() ([]byte, error) {
	ps := q.points()
	return encode.Object(len(ps), func(i int) (string, any) { return ps[i].Metric, ps[i].Points })
}

// ResearchDetails are the counts behind the points, and the evidence.
type ResearchDetails struct {
	TotalClaims int `json:"total_claims"`
	CitedClaims int `json:"cited_claims"`
	// CitedWithoutQuote counts the claims cited only by links without
	// their quote; the profile says whether CitedClaims counts them.
	CitedWithoutQuote   int                 `json:"cited_without_quote,omitempty"`
	CitationCoveragePct float64             `json:"citation_coverage_pct"`
	AvgCredibility      float64             `json:"avg_credibility"`
	UniqueSources       int                 `json:"unique_sources"`
	UniqueDomains       int                 `json:"unique_domains"`
	GapsIdentified      []string            `json:"gaps_identified"`
	ClarityIssues       []string            `json:"clarity_issues"`
	CitationIssues      []string            `json:"citation_issues"`
	Sources             []eval.SourceRating `json:"sources"`
	Claims              []eval.Claim        `json:"claims"`
	// Unlisted counts, by list, the items past MaxListed left out of it
	// (the counts above still count them): a card of a report with a
	// hundred thousand links stays the size of a page, not of the report.
	Unlisted map[string]int `json:"unlisted,omitempty"`
}

// MaxListed is how many items each list of a card's details holds at
// most (claims, sources, issues, gaps); Unlisted counts the rest.
const MaxListed = 1000

// list appends add to the details' list name, up to MaxListed items, and
// counts the rest in Unlisted.
func list[T any](d *ResearchDetails, name string, to []T, add []T) []T {
	room := max(MaxListed-len(to), 0)
	if len(add) > room {
		if d.Unlisted == nil {
			d.Unlisted = map[string]int{}
		}
		d.Unlisted[name] += len(add) - room
		add = add[:room]
	}
	return append(to, add...)
}

// NewResearchView arranges a research card of profile p (nil: a card of
// the built-in metrics) in seed 000's shape. Each row is labelled as its
// metric's entry in the profile's registry says (metric.Entry.Title).
func NewResearchView(p *Profile, c eval.Card) ResearchView {
	reg := Builtins()
	if p != nil {
		reg = p.Metrics()
	}
	v := ResearchView{
		Profile: c.Profile, Status: c.Status, Reason: c.Reason, PassThreshold: c.PassThreshold,
		Fixes: c.Fixes, maxima: map[string]float64{"total": c.Max}, titles: map[string]string{},
		Judge: c.Judge, Defaulted: c.Defaulted,
		Details: ResearchDetails{GapsIdentified: []string{}, ClarityIssues: []string{}, CitationIssues: []string{},
			Sources: []eval.SourceRating{}, Claims: []eval.Claim{}},
	}
	if v.Fixes == nil {
		v.Fixes = []eval.Fix{}
	}
	if c.Usage.Calls > 0 {
		u := c.Usage
		v.LLMUsage = &u
	}
	v.QualityScore.Total = c.Total
	for _, name := range []string{MetricGrounding, MetricSourceQuality, MetricSourceDiversity, judges.MetricCompleteness, MetricClarity} {
		v.titles[name] = rowTitle(reg, name)
	}
	for _, s := range c.Scores {
		v.maxima[s.Metric] = s.Max
		if _, ok := v.titles[s.Metric]; !ok {
			v.titles[s.Metric] = rowTitle(reg, s.Metric)
			v.QualityScore.Other = append(v.QualityScore.Other, MetricPoints{s.Metric, s.Points})
		}
		n := func(k string) float64 { return s.Evidence.Counts[k] }
		switch s.Metric {
		case MetricGrounding:
			v.QualityScore.Grounding = s.Points
			v.Details.TotalClaims, v.Details.CitedClaims = int(n(heuristics.KeyTotalClaims)), int(n(heuristics.KeyCitedClaims))
			v.Details.CitedWithoutQuote = int(n(heuristics.KeyCitedWithoutQuote))
			v.Details.CitationCoveragePct = n(heuristics.KeyCitationCoveragePct)
			v.Details.CitationIssues = list(&v.Details, "citation_issues", v.Details.CitationIssues, s.Evidence.Issues)
			v.Details.Claims = list(&v.Details, "claims", v.Details.Claims, s.Evidence.Claims)
		case MetricSourceQuality:
			v.QualityScore.SourceQuality = s.Points
			v.Details.AvgCredibility = n(heuristics.KeyAvgCredibility)
			v.Details.Sources = list(&v.Details, "sources", v.Details.Sources, s.Evidence.Sources)
		case MetricSourceDiversity:
			v.QualityScore.SourceDiversity = s.Points
			v.Details.UniqueSources, v.Details.UniqueDomains = int(n(heuristics.KeyUniqueSources)), int(n(heuristics.KeyUniqueDomains))
			v.Details.CitationIssues = list(&v.Details, "citation_issues", v.Details.CitationIssues, s.Evidence.Issues)
		case judges.MetricCompleteness:
			v.QualityScore.Completeness = s.Points
			v.Details.GapsIdentified = list(&v.Details, "gaps_identified", v.Details.GapsIdentified, s.Evidence.Gaps)
		case MetricClarity:
			v.QualityScore.Clarity = s.Points
			v.Details.ClarityIssues = list(&v.Details, "clarity_issues", v.Details.ClarityIssues, s.Evidence.Issues)
		}
	}
	return v
}

// NewRunView arranges the last card of a research run like
// NewResearchView, but counts the run's judge defaults (gate grades
// included) and its model usage (summaries, grades, synthesis and every
// scoring), not only those of its last scoring. It reports false when the
// run has no card (insufficient data, or stopped before scoring).
func NewRunView(r *Run) (ResearchView, bool) {
	c, ok := r.finalCard()
	if !ok {
		return ResearchView{}, false
	}
	v := NewResearchView(r.profile, c)
	v.Defaulted = r.Defaulted
	v.LLMUsage = nil
	if q := r.QoS; q.LLMCalls > 0 {
		v.LLMUsage = &eval.Usage{Calls: q.LLMCalls, TokensIn: q.TokensIn, TokensOut: q.TokensOut, CostUSD: q.CostUSD}
	}
	return v, true
}

// YAML returns the card as seed 000's YAML output format: points written
// "4.9/5", coverage "97.5%". It carries the keys the JSON card carries,
// llm_usage's latency aside (latency_s here, in seconds).
func (v ResearchView) YAML() any {
	qs := &yaml.Node{Kind: yaml.MappingNode}
	for _, p := range v.QualityScore.points() {
		qs.Content = append(qs.Content, &yaml.Node{Kind: yaml.ScalarNode, Value: p.Metric},
			&yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: num(p.Points) + "/" + num(v.maxima[p.Metric])})
	}
	type details struct {
		TotalClaims         int                 `yaml:"total_claims"`
		CitedClaims         int                 `yaml:"cited_claims"`
		CitedWithoutQuote   int                 `yaml:"cited_without_quote,omitempty"`
		CitationCoveragePct string              `yaml:"citation_coverage_pct"`
		AvgCredibility      float64             `yaml:"avg_credibility"`
		UniqueSources       int                 `yaml:"unique_sources"`
		UniqueDomains       int                 `yaml:"unique_domains"`
		GapsIdentified      []string            `yaml:"gaps_identified"`
		ClarityIssues       []string            `yaml:"clarity_issues"`
		CitationIssues      []string            `yaml:"citation_issues"`
		Sources             []eval.SourceRating `yaml:"sources"`
		Claims              []eval.Claim        `yaml:"claims"`
		Unlisted            map[string]int      `yaml:"unlisted,omitempty"`
	}
	type fix struct {
		Priority    int    `yaml:"priority"`
		Dimension   string `yaml:"dimension"`
		Action      string `yaml:"action"`
		RerunStages []int  `yaml:"rerun_stages,flow"`
	}
	type usage struct {
		Calls     int     `yaml:"calls"`
		TokensIn  int     `yaml:"tokens_in"`
		TokensOut int     `yaml:"tokens_out"`
		CostUSD   float64 `yaml:"cost_usd"`
		LatencyS  float64 `yaml:"latency_s"`
	}
	type card struct {
		Profile       string     `yaml:"profile"`
		QualityScore  *yaml.Node `yaml:"quality_score"`
		Details       details    `yaml:"details"`
		Status        string     `yaml:"status"`
		PassThreshold float64    `yaml:"pass_threshold"`
		Reason        string     `yaml:"reason"`
		Fixes         []fix      `yaml:"fixes"`
		Judge         string     `yaml:"judge"`
		Defaulted     int        `yaml:"defaulted_scores"`
		LLMUsage      *usage     `yaml:"llm_usage,omitempty"`
	}
	out := card{
		QualityScore: qs,
		Details: details{
			TotalClaims: v.Details.TotalClaims, CitedClaims: v.Details.CitedClaims, CitedWithoutQuote: v.Details.CitedWithoutQuote,
			CitationCoveragePct: fmt.Sprintf("%s%%", num(v.Details.CitationCoveragePct)),
			AvgCredibility:      v.Details.AvgCredibility, UniqueSources: v.Details.UniqueSources, UniqueDomains: v.Details.UniqueDomains,
			GapsIdentified: v.Details.GapsIdentified, ClarityIssues: v.Details.ClarityIssues,
			CitationIssues: v.Details.CitationIssues, Sources: v.Details.Sources, Claims: v.Details.Claims,
			Unlisted: v.Details.Unlisted,
		},
		Profile: v.Profile, Status: v.Status, PassThreshold: v.PassThreshold, Reason: v.Reason, Fixes: []fix{},
		Judge: v.Judge, Defaulted: v.Defaulted,
	}
	if u := v.LLMUsage; u != nil {
		// Dollars to the hundred-millionth: a sum of per-call costs carries
		// float noise (0.00016154999999999997) a card should not show.
		out.LLMUsage = &usage{Calls: u.Calls, TokensIn: u.TokensIn, TokensOut: u.TokensOut,
			CostUSD: math.Round(u.CostUSD*1e8) / 1e8, LatencyS: u.Latency.Seconds()}
	}
	for _, f := range v.Fixes {
		out.Fixes = append(out.Fixes, fix(f))
	}
	return out
}
