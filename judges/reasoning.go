package judges

import (
	"context"
	"errors"
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
// an integer 0-100, weighted clarity 20, coverage 20, specificity 20,
// alignment 15, minimality 15, consistency 10. Offline it falls back on the
// clarity heuristic (structure, sentence length, repetition).
//
// The reply's schema holds every dimension to an integer from 0 to 100
// and requires them all, and the reply is read on that scale only: a reply
// missing a dimension, out of range, or on another scale (0.8 for 80, as
// on a 0-1 scale; every dimension 0 or 1 and not all 0, as a 0-1 scale
// written in integers) gets the repair request, then the neutral default.
// A missing or blank answer is Skipped (eval.ErrNoAnswer), not scored.
//
// Offline, the clarity heuristic reads a report's sections (summary,
// findings, conclusion, sources): it applies to an answer with at least
// one Markdown heading, and an answer with none (a RAG answer) is Skipped
// with eval.ErrNoSections, not scored 0 for sections it was never meant to
// have. With a model the rubric reads any answer.
type Reasoning struct {
	Model Model
}

var _ eval.Scorer = Reasoning{}

type reasoningReply struct {
	Clarity     int      `json:"clarity" schema:"minimum=0,maximum=100"`
	Coverage    int      `json:"coverage" schema:"minimum=0,maximum=100"`
	Specificity int      `json:"specificity" schema:"minimum=0,maximum=100"`
	Alignment   int      `json:"alignment" schema:"minimum=0,maximum=100"`
	Minimality  int      `json:"minimality" schema:"minimum=0,maximum=100"`
	Consistency int      `json:"consistency" schema:"minimum=0,maximum=100"`
	Issues      []string `json:"issues"`
}

// Validate implements llm.Validator: the schema holds each dimension to an
// integer 0-100, which a reply on a 0-1 scale in integers (every
// dimension 0 or 1) also is; such a reply reads as a 0-1 scale, not as an
// answer rated 1 of 100 on some dimensions and 0 on the rest.
func (r reasoningReply) Validate() error {
	ones := 0
	for _, d := range r.dims() {
		switch d.v {
		case 0:
		case 1:
			ones++
		default:
			return nil
		}
	}
	if ones > 0 {
		return errors.New("every dimension is 0 or 1, as on a 0-1 scale: rate each dimension 0-100 (100 best)")
	}
	return nil
}

func (r reasoningReply) dims() []struct {
	name   string
	v, wgt float64
} {
	return []struct {
		name   string
		v, wgt float64
	}{
		{"clarity", float64(r.Clarity), 0.20}, {"coverage", float64(r.Coverage), 0.20}, {"specificity", float64(r.Specificity), 0.20},
		{"alignment", float64(r.Alignment), 0.15}, {"minimality", float64(r.Minimality), 0.15}, {"consistency", float64(r.Consistency), 0.10},
	}
}

var reasoningSchema = sync.OnceValue(func() *llm.Schema { return llm.SchemaFor[reasoningReply]("reasoning") })

// Score implements eval.Scorer.
func (r Reasoning) Score(ctx context.Context, s eval.Sample) (eval.Score, error) {
	if blank(s.Answer) {
		return skip(MetricReasoning, Method(r.Model), 100, eval.ErrNoAnswer, eval.Usage{}), nil
	}
	if Offline(r.Model) {
		rep := heuristics.ParseReport([]byte(s.Answer))
		if !rep.HasHeading() {
			return skip(MetricReasoning, MethodOffline, 100, fmt.Errorf("offline reasoning reads a report's sections: %w", eval.ErrNoSections), eval.Usage{}), nil
		}
		sc, err := heuristics.Clarity{}.ScoreReport(ctx, rep, s)
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
		Metric: MetricReasoning, Value: total / 100, Points: total, Max: 100, Method: Method(r.Model), Usage: u.Recorded(),
		Reason:   fmt.Sprintf("reasoning %.1f/100 (%s)", total, strings.Join(parts, ", ")),
		Evidence: eval.Evidence{Issues: rr.Issues, Counts: counts},
	}, nil
}
