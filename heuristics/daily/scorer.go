package daily

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/assaylabs/assay/eval"
	"github.com/assaylabs/assay/internal/plural"
)

// Metric names of the daily profile, as in the registry, in Result's JSON
// and in bench gates ("faithfulness_score.mean>=80").
const (
	MetricFaithfulness = "faithfulness_score"
	MetricCompleteness = "completeness_score"
	MetricReasoning    = "reasoning_quality_score"
	MetricCompliance   = "compliance_score"
	MetricQoS          = "qos_score"
	MetricOverall      = "overall_quality"
)

// Metrics lists the daily profile's metrics in order.
func Metrics() []string {
	return []string{MetricFaithfulness, MetricCompleteness, MetricReasoning, MetricCompliance, MetricQoS, MetricOverall}
}

// Dimensions returns each metric's dimension keys as they appear in a
// Score's Evidence.Counts: the metric's prefix and the seed's key
// ("faithfulness_numeric_accuracy"), so that no two metrics share a name.
func Dimensions() map[string][]string {
	return map[string][]string{
		MetricFaithfulness: prefixed("faithfulness_", "numeric_accuracy", "percentile_accuracy", "news_citation_accuracy", "interpretation_accuracy"),
		MetricCompleteness: prefixed("completeness_", "context_completeness", "analysis_dimensions", "temporal_completeness", "actionability", "narrative_structure", "quantitative_context"),
		MetricReasoning:    prefixed("reasoning_", "clarity", "coverage", "specificity", "alignment", "minimality", "consistency"),
		MetricCompliance:   prefixed("compliance_", "structure_compliance", "content_compliance", "format_compliance", "length_compliance", "language_compliance", "citation_compliance"),
		MetricQoS:          prefixed("qos_", "latency", "cost_efficiency", "determinism", "reliability", "resource_efficiency", "scalability"),
	}
}

func prefixed(prefix string, keys ...string) []string {
	for i, k := range keys {
		keys[i] = prefix + k
	}
	return keys
}

// ErrNoTruth is returned (wrapped) by a Scorer for a sample without a
// truth. Test with errors.Is.
var ErrNoTruth = errors.New("no ground truth: the daily scorers need the report's truth (sample metadata \"truth\")")

// ErrNoTelemetry is the cause of a skipped QoS score: the sample has no
// telemetry.
var ErrNoTelemetry = errors.New("no telemetry: qos_score needs the run's telemetry (sample metadata \"telemetry\")")

// Scorer is one metric of the daily profile as an eval.Scorer, for the
// registry and bench: the sample's Answer is the report, its metadata
// holds the truth and the telemetry (see eval.MetaTruth). Profile nil is the
// built-in profile.
type Scorer struct {
	Profile *Profile
	Metric  string
}

var _ eval.Scorer = Scorer{}

// Score implements eval.Scorer. A sample whose truth does not decode is an
// error naming the field; QoS without telemetry is Skipped.
func (s Scorer) Score(_ context.Context, sm eval.Sample) (eval.Score, error) {
	scores, err := s.Profile.scores(sm, []string{s.Metric})
	if err != nil {
		return eval.Score{Metric: s.Metric, Max: 100}, err
	}
	return scores[0], nil
}

// Scores are the sample's scores of every metric (Metrics, in order), its
// report scored once: what a Scorer per metric gives, for a caller that
// wants them all. Profile nil is the built-in profile.
func Scores(p *Profile, sm eval.Sample) ([]eval.Score, error) {
	return p.scores(sm, Metrics())
}

// scores reads the sample's truth and telemetry, scores the report once
// and returns the named metrics' scores.
func (p *Profile) scores(sm eval.Sample, metrics []string) ([]eval.Score, error) {
	if p == nil {
		p = Default()
	}
	tr, err := sampleTruth(p, sm)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", metrics[0], err)
	}
	tel, err := sampleTelemetry(sm)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", metrics[0], err)
	}
	var r *Result
	out := make([]eval.Score, len(metrics))
	for i, m := range metrics {
		if m == MetricQoS && tel == nil {
			out[i] = eval.Score{Metric: m, Max: 100, Skipped: true, Err: ErrNoTelemetry, Reason: ErrNoTelemetry.Error()}
			continue
		}
		if r == nil {
			res := p.Score(sm.Answer, tr, tel)
			r = &res
		}
		if out[i], err = scoreOf(m, *r); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// scoreOf is metric's score of a scored report.
func scoreOf(metric string, r Result) (eval.Score, error) {
	out := eval.Score{Metric: metric, Max: 100}
	var dims Dims
	var issues, gaps []string
	var rating string
	switch metric {
	case MetricFaithfulness:
		out.Points, dims, issues, rating = r.Faithfulness.OverallScore, r.Faithfulness.MetricScores, r.Faithfulness.Violations, r.Faithfulness.Rating
	case MetricCompleteness:
		out.Points, dims, gaps, rating = r.Completeness.OverallScore, r.Completeness.DimensionScores, r.Completeness.MissingElements, r.Completeness.Rating
	case MetricReasoning:
		out.Points, dims, issues, rating = r.Reasoning.OverallScore, r.Reasoning.DimensionScores, r.Reasoning.Issues, r.Reasoning.Rating
	case MetricCompliance:
		out.Points, dims, issues, rating = r.Compliance.OverallScore, r.Compliance.DimensionScores, r.Compliance.Violations, r.Compliance.Rating
	case MetricQoS:
		out.Points, dims, issues, rating = r.QoS.OverallScore, r.QoS.DimensionScores, r.QoS.Issues, r.QoS.Rating
	case MetricOverall:
		out.Points, gaps = r.OverallQuality, r.Gate.Failed
		out.Reason = "gate: " + r.Gate.Decision
	default:
		return out, fmt.Errorf("daily: unknown metric %q (have %s)", metric, strings.Join(Metrics(), ", "))
	}
	out.Value = out.Points / 100
	keys := Dimensions()[metric]
	if len(dims) > 0 {
		out.Evidence.Counts = map[string]float64{}
		for i, d := range dims {
			out.Evidence.Counts[keys[i]] = d.Score
		}
	}
	out.Evidence.Issues, out.Evidence.Gaps = issues, gaps
	if out.Reason == "" {
		out.Reason = fmt.Sprintf("%s/100 (%s)", fnum(out.Points), rating)
		if n := len(issues) + len(gaps); n > 0 {
			out.Reason += fmt.Sprintf(", %s (first: %s)", plural.Count(n, "finding"), first(issues, gaps))
		}
	}
	return out, nil
}

func first(a, b []string) string {
	if len(a) > 0 {
		return a[0]
	}
	return b[0]
}

func sampleTruth(p *Profile, sm eval.Sample) (*eval.Truth, error) {
	v, ok := sm.Metadata[eval.MetaTruth]
	if !ok || v == nil {
		if len(sm.GroundTruth) > 0 {
			return &eval.Truth{Values: sm.GroundTruth}, nil
		}
		return nil, ErrNoTruth
	}
	switch t := v.(type) {
	case *eval.Truth:
		return t, nil
	case eval.Truth:
		return &t, nil
	}
	data, err := metaJSON(v)
	if err != nil {
		return nil, fmt.Errorf("metadata %q: %w", eval.MetaTruth, err)
	}
	return eval.ReadTruth("truth", data, p.MetricNames())
}

func sampleTelemetry(sm eval.Sample) (*eval.Telemetry, error) {
	v, ok := sm.Metadata[eval.MetaTelemetry]
	if !ok || v == nil {
		return nil, nil
	}
	switch t := v.(type) {
	case *eval.Telemetry:
		return t, nil
	case eval.Telemetry:
		return &t, nil
	}
	data, err := metaJSON(v)
	if err != nil {
		return nil, fmt.Errorf("metadata %q: %w", eval.MetaTelemetry, err)
	}
	return eval.ReadTelemetry("telemetry", data)
}

// metaJSON is a metadata value as JSON.
func metaJSON(v any) ([]byte, error) {
	switch t := v.(type) {
	case json.RawMessage:
		return t, nil
	case []byte:
		return t, nil
	case string:
		return []byte(t), nil
	}
	return json.Marshal(v)
}
