package bench

import (
	"context"
	"fmt"
	"slices"

	"github.com/assaylabs/assay/agent"
	"github.com/assaylabs/assay/dataset"
	"github.com/assaylabs/assay/dispatch"
	"github.com/assaylabs/assay/eval"
	"github.com/assaylabs/assay/heuristics"
	"github.com/assaylabs/assay/heuristics/daily"
	"github.com/assaylabs/assay/judges"
	"github.com/assaylabs/assay/metric"
)

// MetricTotal is the research card's total, as a share of its maximum
// (Points and Max keep the 10-point figure).
const MetricTotal = "total"

// contextMetrics backs ContextMetrics, which hands out copies.
var contextMetrics = []string{agent.MetricContextQuality, heuristics.KeyRetrievalConfidence, heuristics.KeyContextSufficiency,
	heuristics.KeyDiversityScore, heuristics.KeyEstimatedFaithfulness}

// ContextMetrics returns the results of the context profile: the overall
// and its four sub-scores, each a result of its own.
func ContextMetrics() []string { return slices.Clone(contextMetrics) }

// ContextUnit judges a retrieval sample with the context card's scorer
// (heuristics.ContextQuality, the weights of the built-in context
// profile): context_quality, with the evidence, and its four sub-scores
// read from that evidence.
func ContextUnit() dispatch.Unit {
	scorer := heuristics.ContextQuality{}
	return dispatch.Unit{Metrics: contextMetrics, Judge: func(ctx context.Context, s eval.Sample) ([]eval.Score, error) {
		sc, err := scorer.Score(ctx, s)
		if err != nil {
			return nil, err
		}
		return append([]eval.Score{sc}, subScores(sc)...), nil
	}}
}

// ResearchMetrics are the results of the card of profile p (a research
// profile, or a profile file of kind report or context): its dimensions
// in profile order, context_quality followed by its four sub-scores, then
// MetricTotal.
func ResearchMetrics(p *agent.Profile) []string {
	out := make([]string, 0, len(p.Specs)+1)
	for _, s := range p.Specs {
		out = append(out, s.Metric)
		if s.Metric == agent.MetricContextQuality {
			out = append(out, contextMetrics[1:]...)
		}
	}
	return append(out, MetricTotal)
}

// ResearchUnit judges a report (or, of a profile of kind context, a
// retrieval) with the card of profile p (agent.Score, with opt): each
// dimension's score (context_quality's followed by its sub-scores, read
// from its evidence), then the total as a share of the card's maximum,
// whose reason is the card's status and reason. A card with a defaulted
// dimension has its total marked defaulted too, so that it is counted
// apart rather than averaged in.
func ResearchUnit(p *agent.Profile, opt agent.Options) dispatch.Unit {
	return dispatch.Unit{Metrics: ResearchMetrics(p), Judge: func(ctx context.Context, s eval.Sample) ([]eval.Score, error) {
		card, err := agent.Score(ctx, p, s, opt)
		if err != nil {
			return nil, err
		}
		// The dimensions carry the card's calls, tokens and cost; the total
		// keeps only its latency, so that a run's usage counts each call once.
		total := eval.Score{Metric: MetricTotal, Points: card.Total, Max: card.Max, Method: card.Judge,
			Reason: card.Status + ": " + card.Reason, Usage: eval.Usage{Latency: card.Usage.Latency}}
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
		out := make([]eval.Score, 0, len(card.Scores)+len(contextMetrics))
		for _, sc := range card.Scores {
			out = append(out, sc)
			if sc.Metric == agent.MetricContextQuality {
				out = append(out, subScores(sc)...)
			}
		}
		return append(out, total), nil
	}}
}

// subScores are the four sub-scores of a context_quality score, read from
// its evidence, each a result of its own.
func subScores(sc eval.Score) []eval.Score {
	var out []eval.Score
	for _, k := range contextMetrics[1:] {
		v := sc.Evidence.Counts[k]
		out = append(out, eval.Score{Metric: k, Value: v, Points: v, Max: 1, Method: sc.Method,
			Reason: "sub-score of context_quality"})
	}
	return out
}

// dailyMetrics are the daily profile's results, in order.
var dailyMetrics = daily.Metrics()

// DailyUnit judges a daily report with seed 003's scorers (the built-in
// daily profile), the report scored once: the five scores and the overall
// quality, each with its dimensions in the evidence. A record without telemetry has its QoS
// skipped.
func DailyUnit() dispatch.Unit { return dailyUnit(nil) }

// dailyUnit is DailyUnit with the daily profile p (nil: the built-in one).
func dailyUnit(p *daily.Profile) dispatch.Unit {
	return dispatch.Unit{Metrics: dailyMetrics, Judge: func(_ context.Context, s eval.Sample) ([]eval.Score, error) {
		return daily.Scores(p, s)
	}}
}

// profilePlan is what a profile's run judges, given its model.
type profilePlan struct {
	name    string
	metrics []string
	units   func(m judges.Model) []dispatch.Unit
	// dry are the profile's model-calling metrics and the builder of
	// their scorers; none for a profile that never calls a model.
	dryMetrics []string
	dryScorers func(judges.Model) []eval.Scorer
	// data is the dataset's form (dataset.ProfileContext, ...), read by
	// dataset.OpenProfileData.
	data string
	// registry holds the profile's metrics, the judges it defines among
	// them; card is the card's own threshold of a metric, where it has one.
	registry *metric.Registry
	card     func(name string) (float64, bool)
}

// ProfilePlan returns the plan of the profile a run judges: a built-in one
// (dataset.ProfileContext, dataset.ProfileResearch or dataset.ProfileDaily)
// or a profile file (agent.IsProfileFile) of any kind, whose records are
// those of its kind's built-in profile; else an input error naming
// --profile. reg holds the profile's metrics (nil: the built-in ones); a
// profile file's own judges are added to a copy of it, the plan's.
func ProfilePlan(reg *metric.Registry, profile string) (profilePlan, error) {
	profiles := agent.Profiles{Metrics: reg}
	switch profile {
	case dataset.ProfileContext:
		p, err := profiles.Load(profile)
		if err != nil {
			return profilePlan{}, err
		}
		return profilePlan{name: profile, metrics: contextMetrics, units: func(judges.Model) []dispatch.Unit { return []dispatch.Unit{ContextUnit()} },
			data: profile, card: cardThreshold(p)}, nil
	case dataset.ProfileDaily:
		return profilePlan{name: profile, metrics: dailyMetrics, units: func(judges.Model) []dispatch.Unit { return []dispatch.Unit{DailyUnit()} }, data: profile}, nil
	case dataset.ProfileResearch:
		p, err := profiles.Load(profile)
		if err != nil {
			return profilePlan{}, err
		}
		return cardPlan(p, profile, dataset.ProfileResearch), nil
	}
	if !agent.IsProfileFile(profile) {
		return profilePlan{}, &eval.InputError{Field: "--profile", Msg: fmt.Sprintf("want %s, %s or %s, or a profile file (.yaml), got %q", dataset.ProfileContext, dataset.ProfileResearch, dataset.ProfileDaily, profile)}
	}
	p, err := profiles.Load(profile)
	if err != nil {
		return profilePlan{}, eval.AsInputError("--profile", err)
	}
	switch p.Kind {
	case agent.KindDaily:
		return profilePlan{name: profile, metrics: dailyMetrics, units: func(judges.Model) []dispatch.Unit { return []dispatch.Unit{dailyUnit(p.Daily)} }, data: dataset.ProfileDaily}, nil
	case agent.KindContext:
		return cardPlan(p, profile, dataset.ProfileContext), nil
	}
	// A research dataset's records are {id, query, report}: no sources.
	for _, name := range p.Names() {
		e, _ := p.Metrics().Lookup(name)
		if d, ok := judges.DefinitionOf(e); ok && slices.Contains(d.Fields, judges.FieldContexts) {
			return profilePlan{}, &eval.InputError{File: profile, Line: d.Line, Field: "judges: " + d.Name,
				Msg: "reads contexts, which the records of a report profile's dataset ({id, query, report}) never have: leave contexts out of its fields to bench it"}
		}
	}
	return cardPlan(p, profile, dataset.ProfileResearch), nil
}

// cardPlan is the plan of a run that judges each record with the card of
// profile p (ResearchUnit), its records of the form data.
func cardPlan(p *agent.Profile, name, data string) profilePlan {
	dm, ds := p.ModelScorers(agent.Options{})
	return profilePlan{name: name, metrics: ResearchMetrics(p), dryMetrics: dm, dryScorers: ds, data: data,
		registry: p.Metrics(), card: cardThreshold(p), units: func(m judges.Model) []dispatch.Unit {
			return []dispatch.Unit{ResearchUnit(p, agent.Options{Model: m})}
		}}
}

// build is the run's plan with model m.
func (pp profilePlan) build(m judges.Model) plan {
	p := plan{metrics: pp.metrics, units: pp.units(m), dryMetrics: pp.dryMetrics, dryScorers: pp.dryScorers,
		data: pp.data, registry: pp.registry, card: pp.card}
	if !judges.Offline(m) {
		p.modelMetrics = pp.dryMetrics
	}
	return p
}

// cardThreshold is the card's own pass threshold of a metric in a run's
// summary: the context card's pass threshold (seed 002's CRAG "correct",
// 0.7) for context_quality when it is the card's one scorer, the card's
// pass total over its maximum for its total (the card's verdict decides
// each record, Result.Pass).
func cardThreshold(p *agent.Profile) func(name string) (float64, bool) {
	return func(name string) (float64, bool) {
		switch {
		case name == agent.MetricContextQuality && p.Kind == agent.KindContext && len(p.Specs) == 1:
			return p.Pass.Threshold, true
		case name == MetricTotal && p.Max() > 0:
			return p.Pass.Threshold / p.Max(), true
		}
		return 0, false
	}
}
