package judges

import (
	"context"
	"fmt"
	"strings"
	"sync"

	"github.com/assaylabs/assay/eval"
	"github.com/assaylabs/assay/heuristics"
	"github.com/assaylabs/assay/llm"
	"github.com/assaylabs/assay/metric"
	"github.com/assaylabs/assay/prompts"
)

// reasoningMetric is the registry entry of reasoning.
func reasoningMetric() metric.Entry {
	return metric.Entry{
		Name: MetricReasoning, Kind: metric.KindJudge, Dataset: true, Needs: metric.NeedsAnswer,
		Build:  func(m Model) eval.Scorer { return Reasoning{Model: m} },
		DryRun: reasoningStandIn,
	}
}

// reasoningStandIn rates every dimension well but not fully, with one
// issue.
func reasoningStandIn(req llm.Request, _ func(string) int) (string, int, bool) {
	if !asks(req, reasoningSchema()) {
		return "", 0, false
	}
	return `{"clarity":80,"coverage":70,"specificity":60,"alignment":90,"minimality":80,"consistency":100,"issues":["few numbers"]}`, 120, true
}

// Reasoning rates an answer's reasoning on seed 003's six dimensions, each
// 0-100, weighted clarity 20, coverage 20, specificity 20, alignment 15,
// minimality 15, consistency 10. Offline it falls back on the clarity
// heuristic (structure, sentence length, repetition).
//
// The reply's schema holds every dimension to 0-100 and requires them all:
// a reply missing one or out of range gets the repair request, then the
// neutral default. A missing or blank answer is Skipped (eval.ErrNoAnswer),
// not scored.
type Reasoning struct {
	Model Model
}

var _ eval.Scorer = Reasoning{}

type reasoningReply struct {
	Clarity     float64  `json:"clarity" jsonschema:"minimum=0,maximum=100"`
	Coverage    float64  `json:"coverage" jsonschema:"minimum=0,maximum=100"`
	Specificity float64  `json:"specificity" jsonschema:"minimum=0,maximum=100"`
	Alignment   float64  `json:"alignment" jsonschema:"minimum=0,maximum=100"`
	Minimality  float64  `json:"minimality" jsonschema:"minimum=0,maximum=100"`
	Consistency float64  `json:"consistency" jsonschema:"minimum=0,maximum=100"`
	Issues      []string `json:"issues"`
}

func (r reasoningReply) dims() []struct {
	name   string
	v, wgt float64
} {
	return []struct {
		name   string
		v, wgt float64
	}{
		{"clarity", r.Clarity, 0.20}, {"coverage", r.Coverage, 0.20}, {"specificity", r.Specificity, 0.20},
		{"alignment", r.Alignment, 0.15}, {"minimality", r.Minimality, 0.15}, {"consistency", r.Consistency, 0.10},
	}
}

var reasoningSchema = sync.OnceValue(func() *llm.Schema { return llm.SchemaFor[reasoningReply]("reasoning") })

// Score implements eval.Scorer.
func (r Reasoning) Score(ctx context.Context, s eval.Sample) (eval.Score, error) {
	if blank(s.Answer) {
		return skip(MetricReasoning, Method(r.Model), 100, eval.ErrNoAnswer, llm.Usage{}), nil
	}
	if Offline(r.Model) {
		sc, err := heuristics.Clarity{}.Score(ctx, s)
		if err != nil {
			return sc, err
		}
		sc.Metric, sc.Method = MetricReasoning, MethodOffline
		sc.Points, sc.Max = 100*sc.Value, 100
		return sc, nil
	}
	var rr reasoningReply
	u, err := ask(ctx, r.Model, "reasoning", prompts.QA{Question: s.Query, Answer: s.Answer}, &rr, reasoningSchema())
	if err != nil {
		return fail(ctx, MetricReasoning, r.Model, 100, err, u)
	}
	total := 0.0
	counts := map[string]float64{}
	var parts []string
	for _, d := range rr.dims() {
		total += d.v * d.wgt
		counts[d.name] = d.v
		parts = append(parts, fmt.Sprintf("%s %.0f", d.name, d.v))
	}
	return eval.Score{
		Metric: MetricReasoning, Value: total / 100, Points: total, Max: 100, Method: Method(r.Model), Usage: UsageOf(u),
		Reason:   fmt.Sprintf("reasoning %.1f/100 (%s)", total, strings.Join(parts, ", ")),
		Evidence: eval.Evidence{Issues: rr.Issues, Counts: counts},
	}, nil
}
