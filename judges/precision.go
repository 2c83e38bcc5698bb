package judges

import (
	"context"
	"fmt"
	"strings"
	"sync"

	"github.com/assaylabs/assay/eval"
	"github.com/assaylabs/assay/heuristics"
	"github.com/assaylabs/assay/llm"
	"github.com/assaylabs/assay/prompts"
)

// ContextPrecision is RAGAS context precision: each retrieved context is
// judged useful or not, in retrieval order, and the value is the mean of
// precision@k over the ranks k that hold a useful context, so useful
// contexts ranked first score higher; with no useful context it is 0. With
// a reference the model judges usefulness for it (RAGAS's context precision
// with reference), otherwise for the answer (RAGAS's context utilization);
// the Method ends in "(vs reference)" or "(vs answer, no reference)". With
// neither, the error wraps ErrNoReference. Offline, a context is useful
// when its lexical relevance grade to the query is 3 or more.
type ContextPrecision struct {
	Model Model
}

var _ eval.Scorer = ContextPrecision{}

type usefulness struct {
	Context string `json:"context"`
	Useful  bool   `json:"useful"`
	Reason  string `json:"reason"`
}

type usefulnessList struct {
	Verdicts []usefulness `json:"verdicts"`
}

var usefulnessSchema = sync.OnceValue(func() *llm.Schema { return llm.SchemaFor[usefulnessList]("usefulness") })

var _ Checker = ContextPrecision{}

// Check implements Checker: context precision needs contexts, and with a
// model a reference or else an answer to judge them against.
func (p ContextPrecision) Check(s eval.Sample) error {
	if len(passages(s)) == 0 {
		return fmt.Errorf("%s: %w", MetricContextPrecision, ErrNoContexts)
	}
	if !offline(p.Model) && strings.TrimSpace(s.Reference) == "" && strings.TrimSpace(s.Answer) == "" {
		return fmt.Errorf("%s: no answer either: %w", MetricContextPrecision, ErrNoReference)
	}
	return nil
}

// Score implements eval.Scorer.
func (p ContextPrecision) Score(ctx context.Context, s eval.Sample) (eval.Score, error) {
	if err := p.Check(s); err != nil {
		return eval.Score{}, err
	}
	ps := passages(s)
	useful := make([]bool, len(ps))
	reasons := make([]string, len(ps))
	unjudged := 0
	var u llm.Usage
	meth := method(p.Model)
	if offline(p.Model) {
		for i, c := range ps {
			g := heuristics.GradeOfRelevance(heuristics.SourceRelevance(s.Query, c.Text))
			useful[i] = g >= 3
			reasons[i] = fmt.Sprintf("lexical relevance grade %d", g)
		}
	} else {
		ref := s.Reference
		meth += " (vs reference)"
		if strings.TrimSpace(ref) == "" {
			ref = s.Answer
			meth = method(p.Model) + " (vs answer, no reference)"
		}
		var vl usefulnessList
		var err error
		u, err = ask(ctx, p.Model, "context.precision", prompts.RankedContexts{Question: s.Query, Reference: ref, Contexts: ps}, &vl, usefulnessSchema())
		if err != nil {
			sc, ferr := fail(ctx, MetricContextPrecision, p.Model, 1, err, u)
			if ferr == nil {
				sc.Method = meth
			}
			return sc, ferr
		}
		byID := map[string]usefulness{}
		for _, v := range vl.Verdicts {
			byID[v.Context] = v
		}
		for i, c := range ps {
			v, ok := byID[c.ID]
			if !ok && i < len(vl.Verdicts) && vl.Verdicts[i].Context == "" {
				v, ok = vl.Verdicts[i], true
			}
			useful[i] = ok && v.Useful
			reasons[i] = v.Reason
			if !ok {
				reasons[i] = "no verdict given; counted as not useful"
				unjudged++
			}
		}
	}
	v := AveragePrecision(useful)
	sc := eval.Score{Metric: MetricContextPrecision, Value: v, Points: v, Max: 1, Method: meth, Usage: UsageOf(u)}
	n := 0
	for i, c := range ps {
		rating := 0.0
		if useful[i] {
			rating = 1
			n++
		}
		sc.Evidence.Sources = append(sc.Evidence.Sources, eval.SourceRating{URL: c.ID, Rating: rating, Basis: reasons[i]})
	}
	sc.Evidence.Counts = map[string]float64{"contexts": float64(len(ps)), "useful": float64(n)}
	sc.Reason = fmt.Sprintf("%d of %d contexts useful; rank-weighted precision %.2f", n, len(ps), v)
	if unjudged > 0 {
		sc.Evidence.Counts["unjudged"] = float64(unjudged)
		sc.Reason += fmt.Sprintf("; %d left without a verdict by the model, counted as not useful", unjudged)
	}
	return sc, nil
}

// AveragePrecision is the mean of precision@k over the ranks k (1-based)
// that hold a relevant item; 0 when none does.
func AveragePrecision(relevant []bool) float64 {
	hits, sum := 0, 0.0
	for k, r := range relevant {
		if r {
			hits++
			sum += float64(hits) / float64(k+1)
		}
	}
	if hits == 0 {
		return 0
	}
	return sum / float64(hits)
}
