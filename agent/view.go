package agent

import (
	"fmt"
	"math"

	"github.com/assaylabs/assay/eval"
	"github.com/assaylabs/assay/heuristics"
	"github.com/assaylabs/assay/judges"
)

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
}

// ResearchPoints are the points per dimension and the total.
type ResearchPoints struct {
	Grounding       float64 `json:"grounding"`
	SourceQuality   float64 `json:"source_quality"`
	SourceDiversity float64 `json:"source_diversity"`
	Completeness    float64 `json:"completeness"`
	Clarity         float64 `json:"clarity"`
	Total           float64 `json:"total"`
}

// ResearchDetails are the counts behind the points, and the evidence.
type ResearchDetails struct {
	TotalClaims         int                 `json:"total_claims"`
	CitedClaims         int                 `json:"cited_claims"`
	CitationCoveragePct float64             `json:"citation_coverage_pct"`
	AvgCredibility      float64             `json:"avg_credibility"`
	UniqueSources       int                 `json:"unique_sources"`
	UniqueDomains       int                 `json:"unique_domains"`
	GapsIdentified      []string            `json:"gaps_identified"`
	ClarityIssues       []string            `json:"clarity_issues"`
	CitationIssues      []string            `json:"citation_issues"`
	Sources             []eval.SourceRating `json:"sources"`
	Claims              []eval.Claim        `json:"claims"`
}

// NewResearchView arranges a research card in seed 000's shape.
func NewResearchView(c eval.Card) ResearchView {
	v := ResearchView{
		Profile: c.Profile, Status: c.Status, Reason: c.Reason, PassThreshold: c.PassThreshold,
		Fixes: c.Fixes, maxima: map[string]float64{"total": c.Max},
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
	for _, s := range c.Scores {
		v.maxima[s.Metric] = s.Max
		n := func(k string) float64 { return s.Evidence.Counts[k] }
		switch s.Metric {
		case MetricGrounding:
			v.QualityScore.Grounding = s.Points
			v.Details.TotalClaims, v.Details.CitedClaims = int(n(heuristics.KeyTotalClaims)), int(n(heuristics.KeyCitedClaims))
			v.Details.CitationCoveragePct = n(heuristics.KeyCitationCoveragePct)
			v.Details.CitationIssues = append(v.Details.CitationIssues, s.Evidence.Issues...)
			v.Details.Claims = append(v.Details.Claims, s.Evidence.Claims...)
		case MetricSourceQuality:
			v.QualityScore.SourceQuality = s.Points
			v.Details.AvgCredibility = n(heuristics.KeyAvgCredibility)
			v.Details.Sources = append(v.Details.Sources, s.Evidence.Sources...)
		case MetricSourceDiversity:
			v.QualityScore.SourceDiversity = s.Points
			v.Details.UniqueSources, v.Details.UniqueDomains = int(n(heuristics.KeyUniqueSources)), int(n(heuristics.KeyUniqueDomains))
			v.Details.CitationIssues = append(v.Details.CitationIssues, s.Evidence.Issues...)
		case judges.MetricCompleteness:
			v.QualityScore.Completeness = s.Points
			v.Details.GapsIdentified = append(v.Details.GapsIdentified, s.Evidence.Gaps...)
		case MetricClarity:
			v.QualityScore.Clarity = s.Points
			v.Details.ClarityIssues = append(v.Details.ClarityIssues, s.Evidence.Issues...)
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
	if len(r.Iterations) == 0 {
		return ResearchView{}, false
	}
	v := NewResearchView(r.Iterations[len(r.Iterations)-1].Card)
	v.Defaulted = r.Defaulted
	v.LLMUsage = nil
	if q := r.QoS; q.LLMCalls > 0 {
		v.LLMUsage = &eval.Usage{Calls: q.LLMCalls, TokensIn: q.TokensIn, TokensOut: q.TokensOut, CostUSD: q.CostUSD}
	}
	return v, true
}

// YAML returns the card as seed 000's YAML output format: points written
// "4.9/5", coverage "97.5%".
func (v ResearchView) YAML() any {
	frac := func(metric string, p float64) string { return num(p) + "/" + num(v.maxima[metric]) }
	type qs struct {
		Grounding       string `yaml:"grounding"`
		SourceQuality   string `yaml:"source_quality"`
		SourceDiversity string `yaml:"source_diversity"`
		Completeness    string `yaml:"completeness"`
		Clarity         string `yaml:"clarity"`
		Total           string `yaml:"total"`
	}
	type details struct {
		TotalClaims         int                 `yaml:"total_claims"`
		CitedClaims         int                 `yaml:"cited_claims"`
		CitationCoveragePct string              `yaml:"citation_coverage_pct"`
		AvgCredibility      float64             `yaml:"avg_credibility"`
		UniqueSources       int                 `yaml:"unique_sources"`
		UniqueDomains       int                 `yaml:"unique_domains"`
		GapsIdentified      []string            `yaml:"gaps_identified"`
		ClarityIssues       []string            `yaml:"clarity_issues"`
		CitationIssues      []string            `yaml:"citation_issues,omitempty"`
		Sources             []eval.SourceRating `yaml:"sources,omitempty"`
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
		QualityScore  qs      `yaml:"quality_score"`
		Details       details `yaml:"details"`
		Status        string  `yaml:"status"`
		PassThreshold float64 `yaml:"pass_threshold"`
		Reason        string  `yaml:"reason"`
		Fixes         []fix   `yaml:"fixes"`
		Judge         string  `yaml:"judge"`
		Defaulted     int     `yaml:"defaulted_scores"`
		LLMUsage      *usage  `yaml:"llm_usage,omitempty"`
	}
	q := v.QualityScore
	out := card{
		QualityScore: qs{
			Grounding: frac(MetricGrounding, q.Grounding), SourceQuality: frac(MetricSourceQuality, q.SourceQuality),
			SourceDiversity: frac(MetricSourceDiversity, q.SourceDiversity), Completeness: frac(judges.MetricCompleteness, q.Completeness),
			Clarity: frac(MetricClarity, q.Clarity), Total: frac("total", q.Total),
		},
		Details: details{
			TotalClaims: v.Details.TotalClaims, CitedClaims: v.Details.CitedClaims,
			CitationCoveragePct: fmt.Sprintf("%s%%", num(v.Details.CitationCoveragePct)),
			AvgCredibility:      v.Details.AvgCredibility, UniqueSources: v.Details.UniqueSources, UniqueDomains: v.Details.UniqueDomains,
			GapsIdentified: v.Details.GapsIdentified, ClarityIssues: v.Details.ClarityIssues,
			CitationIssues: v.Details.CitationIssues, Sources: v.Details.Sources,
		},
		Status: v.Status, PassThreshold: v.PassThreshold, Reason: v.Reason, Fixes: []fix{},
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
