package judges

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"

	"github.com/assaylabs/assay/eval"
	"github.com/assaylabs/assay/heuristics"
	"github.com/assaylabs/assay/internal/plural"
	"github.com/assaylabs/assay/llm"
	"github.com/assaylabs/assay/metric"
	"github.com/assaylabs/assay/prompts"
)

// contextPrecisionMetric is the registry entry of context precision.
func contextPrecisionMetric() metric.Entry {
	return metric.Entry{
		Name: MetricContextPrecision, Kind: metric.KindJudge, Dataset: true, Needs: metric.NeedsContexts,
		Build:  func(m Model) eval.Scorer { return ContextPrecision{Model: m} },
		DryRun: precisionStandIn,
	}
}

// precisionStandIn answers a context-usefulness prompt with one verdict
// per context it lists: the first useful, the others not.
func precisionStandIn(req llm.Request, _ func(string) int) (string, int, bool) {
	if !asks(req, usefulnessSchema()) {
		return "", 0, false
	}
	var ctxs []struct{ ID string }
	if blocks := dataBlocks(last(req)); len(blocks) > 0 {
		_ = json.Unmarshal([]byte(blocks[len(blocks)-1]), &ctxs)
	}
	if len(ctxs) == 0 {
		ctxs = append(ctxs, struct{ ID string }{"c1"})
	}
	var out usefulnessList
	for i, c := range ctxs {
		v := usefulness{Context: c.ID, Useful: i == 0, Reason: "on topic"}
		if i > 0 {
			v.Reason = "adds nothing the answer needs"
		}
		out.Verdicts = append(out.Verdicts, v)
	}
	b, _ := json.Marshal(out)
	return string(b), 30 * len(out.Verdicts), true
}

// ContextPrecision is RAGAS context precision: each retrieved context is
// judged useful or not, in retrieval order, and the value is the mean of
// precision@k over the ranks k that hold a useful context, so useful
// contexts ranked first score higher; with no useful context it is 0. With
// a reference the model judges usefulness for it (RAGAS's context precision
// with reference), otherwise for the answer (RAGAS's context utilization);
// the Method ends in "(vs reference)" or "(vs answer, no reference)". With
// neither, the error wraps ErrNoReference. Offline, a context is useful
// when its lexical relevance grade to the query is 3 or more.
//
// The prompt names each context by its position (c1, c2, ...), whatever
// its id in the sample, so chunks that share their document's id get a
// verdict each; the evidence names them by the sample's ids. Replies are
// read strictly: a verdict must name a context of the prompt, or the reply
// gets the repair request. A context given two verdicts keeps the worse
// (not useful), counted in the evidence as "repeated_verdicts". Contexts
// the reply skips are asked about once more, alone; when any is still
// without a verdict, the whole score is the neutral default
// (ErrMissingVerdicts), its evidence counting them "unjudged".
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
	if !Offline(p.Model) && strings.TrimSpace(s.Reference) == "" && strings.TrimSpace(s.Answer) == "" {
		return fmt.Errorf("%s: no answer either: %w", MetricContextPrecision, ErrNoReference)
	}
	return nil
}

// Score implements eval.Scorer.
func (p ContextPrecision) Score(ctx context.Context, s eval.Sample) (eval.Score, error) {
	if err := p.Check(s); err != nil {
		return eval.Score{}, err
	}
	ps, ids := passages(s), sampleIDs(s)
	useful := make([]bool, len(ps))
	reasons := make([]string, len(ps))
	var u eval.Usage
	var repeated []string
	unjudged := 0
	meth := Method(p.Model)
	if Offline(p.Model) {
		for i, c := range ps {
			r := heuristics.Explain(s.Query, c.Text)
			g := heuristics.GradeOfRelevance(r.Value)
			useful[i] = g >= 3
			reasons[i] = fmt.Sprintf("lexical relevance grade %d: %s", g, r)
		}
	} else {
		ref := s.Reference
		meth += " (vs reference)"
		if strings.TrimSpace(ref) == "" {
			ref = s.Answer
			meth = Method(p.Model) + " (vs answer, no reference)"
		}
		var (
			got []*usefulness
			err error
		)
		got, repeated, u, err = p.judge(ctx, s.Query, ref, ps, ids)
		if err != nil {
			sc, ferr := fail(ctx, MetricContextPrecision, p.Model, 1, err, u)
			if ferr == nil {
				sc.Method = meth
			}
			return sc, ferr
		}
		for i, v := range got {
			if v == nil {
				reasons[i] = "no verdict given, even when asked again"
				unjudged++
				continue
			}
			useful[i], reasons[i] = v.Useful, v.Reason
		}
	}
	v := AveragePrecision(useful)
	sc := eval.Score{Metric: MetricContextPrecision, Value: v, Points: v, Max: 1, Method: meth, Usage: u.Recorded()}
	n := 0
	for i := range ps {
		rating := 0.0
		if useful[i] {
			rating = 1
			n++
		}
		sc.Evidence.Sources = append(sc.Evidence.Sources, eval.SourceRating{URL: ids[i], Rating: rating, Basis: reasons[i]})
	}
	sc.Evidence.Counts = map[string]float64{"contexts": float64(len(ps)), "useful": float64(n)}
	sc.Reason = fmt.Sprintf("%d of %s useful; rank-weighted precision %.2f", n, plural.Count(len(ps), "context"), v)
	if len(repeated) > 0 {
		sc.Evidence.Counts["repeated_verdicts"] = float64(len(repeated))
		sc.Evidence.Issues = repeated
		sc.Reason += fmt.Sprintf("; %s given more than one verdict, the worse kept", plural.Count(len(repeated), "context"))
	}
	if unjudged > 0 {
		return incomplete(sc, unjudged, len(ps), "context"), nil
	}
	return sc, nil
}

// judge asks the model which contexts are useful for ref, then once more
// about those its reply skipped, and returns a verdict per context (nil
// where there is still none) with a note per context given more than one.
func (p ContextPrecision) judge(ctx context.Context, query, ref string, ps []prompts.Passage, ids []string) ([]*usefulness, []string, eval.Usage, error) {
	got := make([]*usefulness, len(ps))
	given := make([]int, len(ps))
	todo := make([]prompts.Passage, len(ps))
	copy(todo, ps)
	var u eval.Usage
	for ask2 := 0; ask2 < 2 && len(todo) > 0; ask2++ {
		known := knownContext(todo, false)
		first, n := ask2 == 0, len(todo)
		check := func(o any) error {
			vs := o.(*usefulnessList).Verdicts
			if first && len(vs) == 0 {
				// Not a reply to keep: asked again, the same contexts
				// would be the same request, answered by the cache with
				// this same reply.
				return fmt.Errorf("no verdict given, for %s asked about", plural.Count(n, "context"))
			}
			for i, v := range vs {
				if err := known(fmt.Sprintf("verdicts[%d].context", i), v.Context); err != nil {
					return err
				}
			}
			return nil
		}
		var vl usefulnessList
		u2, err := ask(ctx, p.Model, "context.precision", prompts.RankedContexts{Question: query, Reference: ref, Contexts: todo}, &vl, usefulnessSchema(), check)
		u = u.Add(u2)
		if err != nil {
			return nil, nil, u, err
		}
		for _, v := range vl.Verdicts {
			i := indexOf(ps, v.Context)
			given[i]++
			if got[i] == nil || (got[i].Useful && !v.Useful) {
				got[i] = &v
			}
		}
		todo = todo[:0]
		for i, v := range got {
			if v == nil {
				todo = append(todo, ps[i])
			}
		}
	}
	var repeated []string
	for i, n := range given {
		if n > 1 {
			kept := "useful"
			if !got[i].Useful {
				kept = "not useful"
			}
			repeated = append(repeated, fmt.Sprintf("context %s (%s) given %d verdicts: the worse, %s, kept", ps[i].ID, ids[i], n, kept))
		}
	}
	return got, repeated, u, nil
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
