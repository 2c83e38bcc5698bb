package agent

import (
	"errors"
	"fmt"
	"sync"

	"github.com/assaylabs/assay/assertions"
	"github.com/assaylabs/assay/eval"
	"github.com/assaylabs/assay/heuristics"
	"github.com/assaylabs/assay/heuristics/daily"
	"github.com/assaylabs/assay/judges"
	"github.com/assaylabs/assay/metric"
	"github.com/assaylabs/assay/toolcall"
)

// Metric names of the profiles' own scorers, as in profiles and cards.
const (
	MetricGrounding       = "grounding"
	MetricSourceQuality   = "source_quality"
	MetricSourceDiversity = "source_diversity"
	MetricClarity         = "clarity"
	MetricContextQuality  = "context_quality"
)

// SpecBuilder builds a metric's scorer from a profile's scorer spec and
// the scoring options: a metric.Entry's Spec, for a metric whose spec sets
// more than its maximum (bands, steps, weights) or whose scale is the
// profile's.
type SpecBuilder func(s ScorerSpec, opt Options) eval.Scorer

// Builtins returns the built-in metric registry: the judges' metrics
// (judges.AddBuiltins), the assertions (assertions.AddBuiltins), the tool
// call metrics (toolcall.AddBuiltins) and the
// profiles' own (AddBuiltins), built on first use and sealed. It is what a nil registry means wherever one is taken;
// to add metrics of your own, Clone it.
func Builtins() *metric.Registry { return builtins() }

var builtins = sync.OnceValue(func() *metric.Registry {
	var r metric.Registry
	if err := judges.AddBuiltins(&r); err != nil {
		panic(err) // the built-in entries are fixed: a programming error
	}
	if err := assertions.AddBuiltins(&r); err != nil {
		panic(err)
	}
	if err := toolcall.AddBuiltins(&r); err != nil {
		panic(err)
	}
	if err := AddBuiltins(&r); err != nil {
		panic(err)
	}
	r.Seal()
	return &r
})

// or is reg, or the built-in registry when reg is nil.
func or(reg *metric.Registry) *metric.Registry {
	if reg == nil {
		return Builtins()
	}
	return reg
}

// AddBuiltins adds the profiles' own metrics to r: the daily profile's
// (seed 003's five scores, the overall quality and their dimensions), the
// research card's heuristics and the context card's score and sub-scores.
//
// Of these, --metric takes grounding: a RAG answer is Markdown, its inline
// citations are what grounding counts, and an answer citing nothing reads
// as the 0 it is. The others it does not take, as a RAG sample does not
// carry what they need: clarity is mostly a report's required sections
// (which no RAG answer has), source quality and diversity rate the URLs a
// report cites (source quality against today's date, which a dataset's run
// must not depend on), context_quality needs the retrieval scores of a
// retrieval sample (assay bench --profile context reads those), and the
// daily metrics need a ground truth.
// It gives the judges' completeness, which r must already hold
// (judges.AddBuiltins), its research-card scale and its repair action.
func AddBuiltins(r *metric.Registry) error {
	entries := dailyMetrics()
	report := []string{KindReport}
	entries = append(entries,
		metric.Entry{Name: MetricGrounding, Kind: metric.KindHeuristic, Dataset: true, Profiles: report, Needs: metric.NeedsAnswer,
			Spec: SpecBuilder(func(s ScorerSpec, _ Options) eval.Scorer {
				return heuristics.Grounding{Bands: s.Bands, Max: s.Max, AcceptUnquoted: s.RequireQuote != nil && !*s.RequireQuote}
			}),
			Repair: repair(repairGrounding)},
		metric.Entry{Name: MetricSourceQuality, Kind: metric.KindHeuristic, Profiles: report, Needs: metric.NeedsAnswer,
			Spec: SpecBuilder(func(s ScorerSpec, opt Options) eval.Scorer {
				return heuristics.SourceQuality{Credibility: heuristics.Credibility{Tiers: opt.Tiers, Now: opt.recency()}, Table: s.Steps, Max: s.Max}
			}),
			Repair: repair(repairSourceQuality)},
		metric.Entry{Name: MetricSourceDiversity, Kind: metric.KindHeuristic, Profiles: report, Needs: metric.NeedsAnswer,
			Spec: SpecBuilder(func(s ScorerSpec, _ Options) eval.Scorer {
				return heuristics.Diversity{MinUnique: s.MinUnique, Max: s.Max}
			}),
			Repair: repair(repairDiversity)},
		metric.Entry{Name: MetricClarity, Kind: metric.KindHeuristic, Profiles: report, Needs: metric.NeedsAnswer,
			Spec: SpecBuilder(func(s ScorerSpec, _ Options) eval.Scorer {
				return heuristics.Clarity{MaxAvgSentenceWords: s.MaxAvgSentenceWords, MaxSentenceWords: s.MaxSentenceWords, NearDuplicate: s.NearDuplicate, Max: s.Max}
			}),
			Repair: repair(repairClarity)},
		metric.Entry{Name: MetricContextQuality, Kind: metric.KindHeuristic, Profiles: []string{KindContext}, Needs: metric.NeedsContexts,
			Spec: SpecBuilder(func(s ScorerSpec, _ Options) eval.Scorer { return contextScorer(s) })},
	)
	// The context card's sub-scores, carried in context_quality's evidence.
	for _, name := range []string{heuristics.KeyRetrievalConfidence, heuristics.KeyContextSufficiency, heuristics.KeyDiversityScore, heuristics.KeyEstimatedFaithfulness} {
		e := metric.Entry{Name: name, Kind: metric.KindValue, Of: MetricContextQuality, Profiles: []string{KindContext}}
		if name == heuristics.KeyDiversityScore {
			e.Label = "Diversity"
		}
		entries = append(entries, e)
	}
	for _, e := range entries {
		if e.Build == nil && e.Kind != metric.KindValue {
			e.Build = buildDefault(e.Spec.(SpecBuilder))
		}
		if err := r.Add(e); err != nil {
			return fmt.Errorf("agent: %w", err)
		}
	}
	// Completeness is a judge, added by package judges; in a report
	// profile it is the heuristic offline and the judge with a model, on
	// the profile's scale, and the research loop searches for its gaps.
	c, ok := r.Lookup(judges.MetricCompleteness)
	if !ok {
		return errors.New("agent: the registry has no completeness: add judges.AddBuiltins first")
	}
	c.Spec = SpecBuilder(func(s ScorerSpec, opt Options) eval.Scorer {
		if opt.Model != nil {
			return judges.Completeness{Model: opt.Model, Max: s.Max}
		}
		return heuristics.Completeness{Max: s.Max}
	})
	c.Repair = repair(repairCompleteness)
	if err := r.Replace(c); err != nil {
		return fmt.Errorf("agent: %w", err)
	}
	return nil
}

// buildDefault is the Build of a metric built from a profile's spec: the
// spec's defaults.
func buildDefault(b SpecBuilder) func(metric.Model) eval.Scorer {
	return func(m metric.Model) eval.Scorer { return b(ScorerSpec{}, Options{Model: m}) }
}

// dailyMetrics are the daily profile's metrics (seed 003's five scorers
// and the overall quality) and their dimension scores. Their scorers read
// the report from the sample's Answer and the truth and telemetry from its
// metadata (eval.MetaTruth, eval.MetaTelemetry).
func dailyMetrics() []metric.Entry {
	var out []metric.Entry
	for _, name := range daily.Metrics() {
		out = append(out, metric.Entry{
			Name: name, Kind: metric.KindHeuristic, Profiles: []string{KindDaily}, Needs: metric.NeedsAnswer,
			Threshold: metric.Threshold{Offline: dailyThreshold(name), Model: dailyThreshold(name)},
			Build:     func(metric.Model) eval.Scorer { return daily.Scorer{Metric: name} },
		})
	}
	dims := daily.Dimensions()
	for _, name := range daily.Metrics() {
		for _, d := range dims[name] {
			out = append(out, metric.Entry{Name: d, Kind: metric.KindValue, Of: name, Profiles: []string{KindDaily}})
		}
	}
	return out
}
