package daily

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"

	"github.com/assaylabs/assay/eval"
)

// Result is the five scores of a report, its overall quality and the gate,
// under the keys of seed 003's API response.
type Result struct {
	Faithfulness FaithfulnessScore `json:"faithfulness_score" yaml:"faithfulness_score"`
	Completeness CompletenessScore `json:"completeness_score" yaml:"completeness_score"`
	Reasoning    ReasoningScore    `json:"reasoning_quality_score" yaml:"reasoning_quality_score"`
	Compliance   ComplianceScore   `json:"compliance_score" yaml:"compliance_score"`
	// QoS is nil without telemetry.
	QoS *QoSScore `json:"qos_score" yaml:"qos_score"`
	// OverallQuality is the weighted content quality (QoS apart).
	OverallQuality float64 `json:"overall_quality" yaml:"overall_quality"`
	Gate           Gate    `json:"gate" yaml:"gate"`
	// Language is the report's language as detected ("th", "en").
	Language string `json:"language" yaml:"language"`
	// NotChecked names the seed's checks no deterministic rule makes.
	NotChecked []string `json:"not_checked" yaml:"not_checked"`
	// SemanticReasoning is the LLM reasoning judge's verdict, beside the
	// deterministic reasoning score, when one was asked for (--llm).
	SemanticReasoning *SemanticVerdict `json:"reasoning_llm_verdict,omitempty" yaml:"reasoning_llm_verdict,omitempty"`

	// weights are the profile's overall weights OverallQuality was
	// computed with, stated by Markdown; nil in a result decoded.
	weights *Weights
}

// SemanticVerdict is a model's reasoning verdict, labelled as such.
type SemanticVerdict struct {
	Label     string  `json:"label" yaml:"label"`
	Method    string  `json:"method" yaml:"method"`
	Score     float64 `json:"score" yaml:"score"`
	Reason    string  `json:"reason,omitempty" yaml:"reason,omitempty"`
	Defaulted bool    `json:"defaulted,omitempty" yaml:"defaulted,omitempty"`
}

// Gate decisions.
const (
	Publish = "publish"
	Review  = "review"
)

// Gate is seed 003's deployment gate: publish when every content score
// reaches its threshold, else review, with what failed.
type Gate struct {
	Decision string   `json:"decision" yaml:"decision"`
	Failed   []string `json:"failed" yaml:"failed"`
}

// Score runs the five scorers over a report: the four content scorers
// against the truth, and QoS when the telemetry is given (nil: none).
func (p *Profile) Score(report string, t *eval.Truth, tel *eval.Telemetry) Result {
	d := p.parse(report)
	x := p.extract(d)
	var r Result
	r.Faithfulness = p.Faithfulness(x, t)
	r.Completeness = p.Completeness(d, x, t)
	r.Reasoning = p.Reasoning(d, x, r.Faithfulness, t)
	r.Compliance = p.Compliance(d, x, t)
	if tel != nil {
		q := p.QoS(tel)
		r.QoS = &q
	}
	r.Language = d.lang
	r.NotChecked = append([]string{}, p.NotChecked...)
	w := p.Overall
	r.weights = &w
	r.OverallQuality = round1(r.Faithfulness.OverallScore*w.Faithfulness + r.Completeness.OverallScore*w.Completeness +
		r.Reasoning.OverallScore*w.Reasoning + r.Compliance.OverallScore*w.Compliance)
	r.Gate = p.gate(r)
	return r
}

func (p *Profile) gate(r Result) Gate {
	g := Gate{Decision: Publish, Failed: []string{}}
	for _, c := range []struct {
		name      string
		got, want float64
	}{{"faithfulness_score", r.Faithfulness.OverallScore, p.Gate.Faithfulness},
		{"completeness_score", r.Completeness.OverallScore, p.Gate.Completeness},
		{"reasoning_quality_score", r.Reasoning.OverallScore, p.Gate.Reasoning},
		{"compliance_score", r.Compliance.OverallScore, p.Gate.Compliance}} {
		if c.got < c.want {
			g.Failed = append(g.Failed, fmt.Sprintf("%s %s < %s", c.name, fnum(c.got), fnum(c.want)))
		}
	}
	if len(g.Failed) > 0 {
		g.Decision = Review
	}
	return g
}

const rule = "================================================================================"

// Text is the seed's score reports, one block per scorer: its score, its
// breakdown, violations or issues, and strengths; then the overall
// quality and the gate.
func (r Result) Text() string {
	var b strings.Builder
	mark := func(v float64) string {
		if v >= 70 {
			return "✅"
		}
		return "⚠️"
	}
	block := func(title, label string, overall float64, rating, breakdown string, dims Dims, ds []Deduction) {
		fmt.Fprintf(&b, "%s\n%s\n%s\n\n📊 Overall %s: %.1f/100 (%s)\n\n%s:\n", rule, title, rule, label, overall, rating, breakdown)
		for _, d := range dims {
			fmt.Fprintf(&b, "  %s %s: %.1f/100\n", mark(d.Score), d.Name, d.Score)
			for _, x := range ForDimension(ds, d.Name) {
				fmt.Fprintf(&b, "      -%s %s\n", fnum(x.Points), x.Reason)
			}
		}
		b.WriteString("\n")
	}
	list := func(head, icon string, items []string) {
		if len(items) == 0 {
			return
		}
		fmt.Fprintf(&b, "%s\n", head)
		for _, it := range items {
			fmt.Fprintf(&b, "  %s %s\n", icon, it)
		}
		b.WriteString("\n")
	}
	f := r.Faithfulness
	block("FAITHFULNESS SCORE REPORT", "Faithfulness Score", f.OverallScore, f.Rating, "Metric Breakdown", f.MetricScores, f.Deductions)
	list("⚠️ Faithfulness Violations:", "❌", f.Violations)
	fmt.Fprintf(&b, "✅ Verified Claims: %d\n\n", f.VerifiedClaims)

	c := r.Completeness
	block("COMPLETENESS SCORE REPORT", "Completeness Score", c.OverallScore, c.Rating, "Dimension Breakdown", c.DimensionScores, c.Deductions)
	list("❌ Missing Elements:", "❌", c.MissingElements)
	fmt.Fprintf(&b, "✅ Covered Elements: %d\n\n", len(c.CoveredElements))

	q := r.Reasoning
	block("REASONING QUALITY SCORE REPORT", "Reasoning Quality Score", q.OverallScore, q.Rating, "Dimension Breakdown", q.DimensionScores, q.Deductions)
	list("✅ Reasoning Quality Strengths:", "✅", q.Strengths)
	list("❌ Reasoning Quality Issues:", "⚠️", q.Issues)
	if s := r.SemanticReasoning; s != nil {
		fmt.Fprintf(&b, "🤖 %s (%s): %.1f/100", s.Label, s.Method, s.Score)
		if s.Defaulted {
			b.WriteString(" DEFAULTED")
		}
		if s.Reason != "" {
			fmt.Fprintf(&b, "\n  %s", s.Reason)
		}
		b.WriteString("\n\n")
	}

	m := r.Compliance
	block("COMPLIANCE SCORE REPORT", "Compliance Score", m.OverallScore, m.Rating, "Dimension Breakdown", m.DimensionScores, m.Deductions)
	list("✅ Compliant Elements:", "✅", m.CompliantElements)
	list("❌ Compliance Violations:", "⚠️", m.Violations)

	if s := r.QoS; s != nil {
		fmt.Fprintf(&b, "%s\nQoS SCORE REPORT\n%s\nOverall QoS Score: %.1f/100 (%s)\n\nDimension Scores:\n", rule, rule, s.OverallScore, s.Rating)
		for _, d := range s.DimensionScores {
			fmt.Fprintf(&b, "  %-22s: %5.1f/100 (%s)\n", title(d.Name), d.Score, band(d.Score))
			for _, x := range ForDimension(s.Deductions, d.Name) {
				fmt.Fprintf(&b, "      -%s %s\n", fnum(x.Points), x.Reason)
			}
		}
		fmt.Fprintf(&b, "\nMetrics:\n  Timing (seconds):\n")
		for _, k := range slices.Sorted(maps.Keys(s.Metrics.TimingsS)) {
			fmt.Fprintf(&b, "    %-22s: %6.2fs\n", k, s.Metrics.TimingsS[k])
		}
		fmt.Fprintf(&b, "    %-22s: %6.2fs\n", "total", s.Metrics.TotalS)
		fmt.Fprintf(&b, "  Costs (USD):\n    LLM Estimated Cost:     $%.6f\n    Input Tokens:           %d\n    Output Tokens:          %d\n",
			s.Metrics.CostUSD, s.Metrics.InputTokens, s.Metrics.OutputTokens)
		yes := map[bool]string{true: "Yes", false: "No"}
		fmt.Fprintf(&b, "  Database:\n    Query Count:            %d\n    Cache Hit:              %s\n\n", s.Metrics.DBQueries, yes[s.Metrics.CacheHit])
		list("Strengths:", "✅", s.Strengths)
		list("Issues:", "⚠️", s.Issues)
	}
	fmt.Fprintf(&b, "%s\nOVERALL QUALITY: %.1f/100 (QoS apart)\nGATE: %s\n", rule, r.OverallQuality, strings.ToUpper(r.Gate.Decision))
	for _, f := range r.Gate.Failed {
		fmt.Fprintf(&b, "  ❌ %s\n", f)
	}
	if len(r.NotChecked) > 0 {
		b.WriteString("NOT CHECKED (no deterministic rule):\n")
		for _, n := range r.NotChecked {
			fmt.Fprintf(&b, "  - %s\n", n)
		}
	}
	b.WriteString(rule + "\n")
	return b.String()
}

// Markdown is the result as a Markdown card: a table of the scores, then
// each scorer's findings.
func (r Result) Markdown() string {
	var b strings.Builder
	fmt.Fprintf(&b, "# Daily report score: %s\n\n", strings.ToUpper(r.Gate.Decision))
	formula := ""
	if w := r.weights; w != nil {
		formula = fmt.Sprintf("%s faithfulness + %s completeness + %s reasoning + %s compliance; ", fnum(w.Faithfulness), fnum(w.Completeness), fnum(w.Reasoning), fnum(w.Compliance))
	}
	fmt.Fprintf(&b, "Overall quality **%.1f**/100 (%sQoS apart).\n\n", r.OverallQuality, formula)
	b.WriteString("| scorer | score | rating |\n|---|---|---|\n")
	fmt.Fprintf(&b, "| faithfulness_score | %.1f | %s |\n| completeness_score | %.1f | %s |\n| reasoning_quality_score | %.1f | %s |\n| compliance_score | %.1f | %s |\n",
		r.Faithfulness.OverallScore, r.Faithfulness.Rating, r.Completeness.OverallScore, r.Completeness.Rating,
		r.Reasoning.OverallScore, r.Reasoning.Rating, r.Compliance.OverallScore, r.Compliance.Rating)
	if r.QoS != nil {
		fmt.Fprintf(&b, "| qos_score | %.1f | %s |\n", r.QoS.OverallScore, r.QoS.Rating)
	}
	if s := r.SemanticReasoning; s != nil {
		fmt.Fprintf(&b, "| %s (%s) | %.1f | |\n", s.Label, s.Method, s.Score)
	}
	if len(r.Gate.Failed) > 0 {
		b.WriteString("\n## Gate\n\n")
		for _, f := range r.Gate.Failed {
			fmt.Fprintf(&b, "- %s\n", f)
		}
	}
	section := func(title string, dims Dims, ds []Deduction, items ...[]string) {
		fmt.Fprintf(&b, "\n## %s\n\n", title)
		for _, d := range dims {
			fmt.Fprintf(&b, "- %s: %.1f\n", d.Name, d.Score)
			for _, x := range ForDimension(ds, d.Name) {
				fmt.Fprintf(&b, "  - -%s %s\n", fnum(x.Points), x.Reason)
			}
		}
		for _, l := range items {
			for _, it := range l {
				fmt.Fprintf(&b, "- ❌ %s\n", it)
			}
		}
	}
	section("Faithfulness", r.Faithfulness.MetricScores, r.Faithfulness.Deductions, r.Faithfulness.Violations)
	section("Completeness", r.Completeness.DimensionScores, r.Completeness.Deductions, r.Completeness.MissingElements)
	section("Reasoning quality", r.Reasoning.DimensionScores, r.Reasoning.Deductions, r.Reasoning.Issues)
	section("Compliance", r.Compliance.DimensionScores, r.Compliance.Deductions, r.Compliance.Violations)
	if r.QoS != nil {
		section("QoS", r.QoS.DimensionScores, r.QoS.Deductions, r.QoS.Issues)
	}
	if len(r.NotChecked) > 0 {
		b.WriteString("\n## Not checked (no deterministic rule)\n\n")
		for _, n := range r.NotChecked {
			fmt.Fprintf(&b, "- %s\n", n)
		}
	}
	return b.String()
}

// title turns "cost_efficiency" into "Cost Efficiency".
func title(s string) string {
	parts := strings.Split(s, "_")
	for i, p := range parts {
		if p != "" {
			parts[i] = strings.ToUpper(p[:1]) + p[1:]
		}
	}
	return strings.Join(parts, " ")
}

// band names a QoS score as the seed's interpretation does.
func band(v float64) string {
	switch v = math.Round(v*10) / 10; {
	case v >= 90:
		return "Excellent"
	case v >= 80:
		return "Good"
	case v >= 70:
		return "Acceptable"
	case v >= 60:
		return "Needs Improvement"
	}
	return "Poor"
}
