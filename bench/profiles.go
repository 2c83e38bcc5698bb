package bench

import (
	"context"
	"fmt"

	"github.com/assaylabs/assay/agent"
	"github.com/assaylabs/assay/dataset"
	"github.com/assaylabs/assay/eval"
	"github.com/assaylabs/assay/heuristics"
	"github.com/assaylabs/assay/heuristics/daily"
	"github.com/assaylabs/assay/judges"
	"github.com/assaylabs/assay/metric"
)

// MetricTotal is the research card's total, as a share of its maximum
// (Points and Max keep the 10-point figure).
const MetricTotal = "total"

// ContextMetrics are the results of the context profile: the overall and
// its four sub-scores, each a result of its own.
var ContextMetrics = []string{agent.MetricContextQuality, heuristics.KeyRetrievalConfidence, heuristics.KeyContextSufficiency,
	heuristics.KeyDiversityScore, heuristics.KeyEstimatedFaithfulness}

// ContextUnit judges a retrieval sample with the context card's scorer
// (heuristics.ContextQuality, the weights of the built-in context
// profile): context_quality, with the evidence, and its four sub-scores
// read from that evidence.
func ContextUnit() Unit {
	scorer := heuristics.ContextQuality{}
	return Unit{Metrics: ContextMetrics, Judge: func(ctx context.Context, s eval.Sample) ([]eval.Score, error) {
		sc, err := scorer.Score(ctx, s)
		if err != nil {
			return nil, err
		}
		out := []eval.Score{sc}
		for _, k := range ContextMetrics[1:] {
			v := sc.Evidence.Counts[k]
			out = append(out, eval.Score{Metric: k, Value: v, Points: v, Max: 1, Method: sc.Method,
				Reason: "sub-score of context_quality"})
		}
		return out, nil
	}}
}

// ResearchMetrics are the results of the research profile p: its
// dimensions in profile order, then MetricTotal.
func ResearchMetrics(p *agent.Profile) []string {
	out := make([]string, 0, len(p.Specs)+1)
	for _, s := range p.Specs {
		out = append(out, s.Metric)
	}
	return append(out, MetricTotal)
}

// ResearchUnit judges a report with the card of profile p (agent.Score,
// with opt): each dimension's score, then the total as a share of the
// card's maximum, whose reason is the card's status and reason. A card
// with a defaulted dimension has its total marked defaulted too, so that
// it is counted apart rather than averaged in.
func ResearchUnit(p *agent.Profile, opt agent.Options) Unit {
	return Unit{Metrics: ResearchMetrics(p), Judge: func(ctx context.Context, s eval.Sample) ([]eval.Score, error) {
		card, err := agent.Score(ctx, p, s, opt)
		if err != nil {
			return nil, err
		}
		total := eval.Score{Metric: MetricTotal, Points: card.Total, Max: card.Max, Method: card.Judge,
			Reason: card.Status + ": " + card.Reason, Usage: card.Usage}
		if card.Max > 0 {
			total.Value = card.Total / card.Max
		}
		// A research card passes by its rule (grounding at its maximum and
		// the total at the pass threshold), not by the total alone.
		pass := card.Status == eval.StatusPass
		total.Pass = &pass
		if card.Defaulted > 0 {
			total.Defaulted = true
			total.Err = fmt.Errorf("%d dimension(s) of the card defaulted", card.Defaulted)
		}
		return append(card.Scores, total), nil
	}}
}

// DailyMetrics are the daily profile's results, in order.
var DailyMetrics = daily.Metrics()

// DailyUnit judges a daily report with seed 003's scorers (the built-in
// daily profile), the report scored once: the five scores and the overall
// quality, each with its dimensions in the evidence. A record without telemetry has its QoS
// skipped.
func DailyUnit() Unit {
	return Unit{Metrics: DailyMetrics, Judge: func(_ context.Context, s eval.Sample) ([]eval.Score, error) {
		return daily.Scores(nil, s)
	}}
}

// profilePlan is what a profile's run judges, given its model.
type profilePlan struct {
	name    string
	metrics []string
	units   func(m judges.Model) []Unit
	// dry are the profile's model-calling metrics and the builder of
	// their scorers; none for a profile that never calls a model.
	dryMetrics []string
	dryScorers func(judges.Model) []eval.Scorer
}

// ProfilePlan returns the plan of the profile a run judges (dataset.ProfileContext,
// dataset.ProfileResearch or dataset.ProfileDaily), or an input error naming --profile.
// reg holds the profile's metrics (nil: the built-in ones).
func ProfilePlan(reg *metric.Registry, profile string) (profilePlan, error) {
	switch profile {
	case dataset.ProfileContext:
		return profilePlan{name: profile, metrics: ContextMetrics, units: func(judges.Model) []Unit { return []Unit{ContextUnit()} }}, nil
	case dataset.ProfileDaily:
		return profilePlan{name: profile, metrics: DailyMetrics, units: func(judges.Model) []Unit { return []Unit{DailyUnit()} }}, nil
	case dataset.ProfileResearch:
		p, err := agent.Profiles{Metrics: reg}.Load("research")
		if err != nil {
			return profilePlan{}, err
		}
		dm, ds := p.ModelScorers(agent.Options{})
		return profilePlan{name: profile, metrics: ResearchMetrics(p), dryMetrics: dm, dryScorers: ds, units: func(m judges.Model) []Unit {
			return []Unit{ResearchUnit(p, agent.Options{Model: m})}
		}}, nil
	}
	return profilePlan{}, &eval.InputError{Field: "--profile", Msg: fmt.Sprintf("want %s, %s or %s, got %q", dataset.ProfileContext, dataset.ProfileResearch, dataset.ProfileDaily, profile)}
}

// build is the run's plan with model m.
func (pp profilePlan) build(m judges.Model) plan {
	p := plan{metrics: pp.metrics, units: pp.units(m), dryMetrics: pp.dryMetrics, dryScorers: pp.dryScorers}
	if !judges.Offline(m) {
		p.modelMetrics = pp.dryMetrics
	}
	return p
}

// profileThreshold is a metric's pass threshold in a run's summary: the
// context card's pass threshold (seed 002's CRAG "correct", 0.7) for
// context_quality under the context profile, the research card's pass
// total over its maximum for its total (the card's verdict decides each
// record, Result.Pass), else the metric's default.
func profileThreshold(reg *metric.Registry, profile, name string, m judges.Model) float64 {
	profiles := agent.Profiles{Metrics: reg}
	switch {
	case profile == dataset.ProfileContext && name == agent.MetricContextQuality:
		if p, err := profiles.Load("context"); err == nil {
			return p.Pass.Threshold
		}
	case profile == dataset.ProfileResearch && name == MetricTotal:
		if p, err := profiles.Load("research"); err == nil && p.Max() > 0 {
			return p.Pass.Threshold / p.Max()
		}
	}
	return reg.DefaultThreshold(name, m)
}
