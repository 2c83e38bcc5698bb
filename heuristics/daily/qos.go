package daily

import (
	"fmt"
	"maps"
	"slices"

	"github.com/assaylabs/assay/eval"
	"github.com/assaylabs/assay/internal/plural"
)

// QoSScore is seed 003's quality of service: latency 25, cost efficiency
// 20, determinism 15, reliability 20, resource efficiency 10, scalability
// 10.
type QoSScore struct {
	OverallScore    float64    `json:"overall_score" yaml:"overall_score"`
	DimensionScores Dims       `json:"dimension_scores" yaml:"dimension_scores"`
	Metrics         QoSMetrics `json:"metrics" yaml:"metrics"`
	Issues          []string   `json:"issues" yaml:"issues"`
	Strengths       []string   `json:"strengths" yaml:"strengths"`
	// Rating is the seed's name for the score (Excellent ... Poor).
	Rating     string      `json:"rating" yaml:"rating"`
	Deductions []Deduction `json:"deductions" yaml:"deductions"`
}

// QoSMetrics are the run's measurements the QoS score was computed from.
type QoSMetrics struct {
	TimingsS     map[string]float64 `json:"timings_s" yaml:"timings_s"`
	TotalS       float64            `json:"total_s" yaml:"total_s"`
	LLMCalls     int                `json:"llm_calls" yaml:"llm_calls"`
	InputTokens  int                `json:"input_tokens" yaml:"input_tokens"`
	OutputTokens int                `json:"output_tokens" yaml:"output_tokens"`
	CostUSD      float64            `json:"cost_usd" yaml:"cost_usd"`
	DBQueries    int                `json:"db_queries" yaml:"db_queries"`
	CacheHit     bool               `json:"cache_hit" yaml:"cache_hit"`
	Errors       int                `json:"errors" yaml:"errors"`
}

// step returns the score and label of v in a threshold table.
func step(steps []Step, v float64) (float64, string) {
	for _, s := range steps {
		if s.holds(v) {
			return s.Score, s.Label
		}
	}
	return 0, ""
}

// QoS scores the run that produced the report with the profile's
// thresholds: total latency, cost, determinism checks, errors, database
// queries and model calls, and the latency trend against earlier runs
// (inferred from the latency alone without them).
func (p *Profile) QoS(t *eval.Telemetry) QoSScore {
	r := p.QoSRules
	out := QoSScore{Issues: []string{}, Strengths: []string{}}
	issue := func(format string, a ...any) { out.Issues = append(out.Issues, fmt.Sprintf(format, a...)) }
	strength := func(format string, a ...any) { out.Strengths = append(out.Strengths, fmt.Sprintf(format, a...)) }
	total := t.TotalS()
	out.Metrics = QoSMetrics{TimingsS: t.Timings, TotalS: round2(total), LLMCalls: t.LLMCalls, InputTokens: t.InputTokens,
		OutputTokens: t.OutputTokens, CostUSD: t.CostUSD, DBQueries: t.DBQueries, CacheHit: t.CacheHit, Errors: len(t.Errors)}
	if out.Metrics.TimingsS == nil {
		out.Metrics.TimingsS = map[string]float64{}
	}

	var l ledger
	latency, label := step(r.LatencyS, total)
	latencyLabel := label
	l.take("latency", 100-latency, fmt.Sprintf("%s total latency: %.2fs", label, total))
	if latency >= 85 {
		strength("%s total latency: %.2fs", label, total)
	} else {
		issue("%s total latency: %.2fs", label, total)
	}
	cost, label := step(r.CostUSD, t.CostUSD)
	l.take("cost_efficiency", 100-cost, fmt.Sprintf("%s cost: $%.4f", label, t.CostUSD))
	if cost >= 85 {
		strength("%s cost: $%.6f", label, t.CostUSD)
	} else {
		issue("%s cost: $%.4f", label, t.CostUSD)
	}

	determinism := 100.0
	if n := len(t.Consistency); n > 0 {
		ok := 0
		for _, k := range slices.Sorted(maps.Keys(t.Consistency)) {
			if t.Consistency[k] {
				ok++
			} else {
				issue("Inconsistent %s across repeated runs", k)
				l.take("determinism", 100/float64(n), fmt.Sprintf("Inconsistent %s across repeated runs", k))
			}
		}
		determinism = share(ok, n)
	}

	reliability := 100.0
	if len(t.Errors) > 0 {
		reliability = r.ReliabilityErrorScore
		issue("%s during the run (first: %s)", plural.Count(len(t.Errors), "error"), t.Errors[0])
		l.take("reliability", 100-r.ReliabilityErrorScore, fmt.Sprintf("%s during the run (first: %s)", plural.Count(len(t.Errors), "error"), t.Errors[0]))
	} else {
		strength("No errors")
	}
	if r.VeryHighLatencyS > 0 && total > r.VeryHighLatencyS {
		reliability -= r.VeryHighLatencyPenalty
		issue("Very high latency (over %gs)", r.VeryHighLatencyS)
		l.take("reliability", r.VeryHighLatencyPenalty, fmt.Sprintf("Very high latency (over %gs)", r.VeryHighLatencyS))
	}

	resource := 100.0
	switch q := r.DBQueries; {
	case q.Many > 0 && t.DBQueries > q.Many:
		resource -= q.ManyPenalty
		issue("Many database queries: %d", t.DBQueries)
		l.take("resource_efficiency", q.ManyPenalty, fmt.Sprintf("Many database queries: %d", t.DBQueries))
	case q.Some > 0 && t.DBQueries >= q.Some:
		resource -= q.SomePenalty
		issue("Database queries: %d", t.DBQueries)
		l.take("resource_efficiency", q.SomePenalty, fmt.Sprintf("Database queries: %d", t.DBQueries))
	}
	if r.LLMCalls.Max > 0 && t.LLMCalls > r.LLMCalls.Max {
		resource -= r.LLMCalls.Penalty
		issue("%d LLM calls (more than %d)", t.LLMCalls, r.LLMCalls.Max)
		l.take("resource_efficiency", r.LLMCalls.Penalty, fmt.Sprintf("%d LLM calls (more than %d)", t.LLMCalls, r.LLMCalls.Max))
	} else if t.LLMCalls == 1 {
		strength("Single LLM call optimized cost")
	}
	if t.CacheHit {
		strength("Cache hit")
	}

	// Scalability: inferred from latency, less when it degrades against
	// earlier runs.
	scalability := latency
	l.take("scalability", 100-latency, fmt.Sprintf("Inferred from the total latency (%.2fs, %s)", total, latencyLabel))
	if len(t.History) > 0 {
		mean := 0.0
		for _, h := range t.History {
			mean += h
		}
		mean /= float64(len(t.History))
		tr := r.Trend
		switch ratio := total / max(mean, 1e-9); {
		case tr.SevereRatio > 0 && ratio > tr.SevereRatio:
			scalability -= tr.SeverePenalty
			issue("Latency degrading: %.2fs against a mean of %.2fs over %s", total, mean, plural.Count(len(t.History), "earlier run"))
			l.take("scalability", tr.SeverePenalty, out.Issues[len(out.Issues)-1])
		case tr.DegradingRatio > 0 && ratio > tr.DegradingRatio:
			scalability -= tr.DegradingPenalty
			issue("Latency rising: %.2fs against a mean of %.2fs over %s", total, mean, plural.Count(len(t.History), "earlier run"))
			l.take("scalability", tr.DegradingPenalty, out.Issues[len(out.Issues)-1])
		default:
			strength("Latency stable against %s", plural.Count(len(t.History), "earlier run"))
		}
	}

	out.DimensionScores = Dims{{"latency", clamp(latency)}, {"cost_efficiency", clamp(cost)}, {"determinism", clamp(determinism)},
		{"reliability", clamp(reliability)}, {"resource_efficiency", clamp(resource)}, {"scalability", clamp(scalability)}}
	out.OverallScore = weighted(out.DimensionScores, 0.25, 0.20, 0.15, 0.20, 0.10, 0.10)
	out.Rating, out.Deductions = band(out.OverallScore), l.list()

	return out
}

func round2(v float64) float64 { return float64(int64(v*100+0.5)) / 100 }
