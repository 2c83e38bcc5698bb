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
	"github.com/assaylabs/assay/prompts"
)

// Completeness lists the aspects the query asks for and checks which the
// answer covers; the gaps are named in the evidence. Its points are on the
// research card's scale (Max, default 1), so it can replace the heuristic
// completeness there. Offline it is heuristics.Completeness.
type Completeness struct {
	Model Model
	// Max is the points a complete answer earns (default 1).
	Max float64
}

var _ eval.Scorer = Completeness{}

type aspect struct {
	Aspect   string `json:"aspect"`
	Covered  bool   `json:"covered"`
	Evidence string `json:"evidence"`
}

type aspectList struct {
	Aspects []aspect `json:"aspects"`
}

func (a aspectList) Validate() error {
	if len(a.Aspects) == 0 {
		return errors.New("aspects is empty")
	}
	return nil
}

// completenessQuestion is the question the answer is judged against: the
// query, or, like the heuristic, the report's level-1 title when the query
// is blank; "" when there is neither.
func completenessQuestion(s eval.Sample) string {
	if q := strings.TrimSpace(s.Query); q != "" {
		return q
	}
	return strings.TrimSpace(heuristics.ParseReport([]byte(s.Answer)).Title)
}

var aspectSchema = sync.OnceValue(func() *llm.Schema { return llm.SchemaFor[aspectList]("aspects") })

// Score implements eval.Scorer.
func (c Completeness) Score(ctx context.Context, s eval.Sample) (eval.Score, error) {
	maxPts := c.Max
	if maxPts == 0 {
		maxPts = 1
	}
	if offline(c.Model) {
		sc, err := heuristics.Completeness{Max: maxPts}.Score(ctx, s)
		sc.Method = MethodOffline
		return sc, err
	}
	q := completenessQuestion(s)
	if q == "" {
		// Nothing to ask about: the heuristic says to pass --query.
		return heuristics.Completeness{Max: maxPts}.Score(ctx, s)
	}
	var al aspectList
	u, err := ask(ctx, c.Model, "completeness", prompts.QA{Question: q, Answer: s.Answer}, &al, aspectSchema())
	if err != nil {
		return fail(ctx, MetricCompleteness, c.Model, maxPts, err, u)
	}
	covered := 0
	var gaps, have []string
	for _, a := range al.Aspects {
		if a.Covered {
			covered++
			have = append(have, a.Aspect)
		} else {
			gaps = append(gaps, a.Aspect)
		}
	}
	v := float64(covered) / float64(len(al.Aspects))
	sc := eval.Score{
		Metric: MetricCompleteness, Value: v, Points: v * maxPts, Max: maxPts, Method: method(c.Model), Usage: UsageOf(u),
		Evidence: eval.Evidence{Gaps: gaps, Counts: map[string]float64{"aspects": float64(len(al.Aspects)), "covered": float64(covered)}},
		Reason:   fmt.Sprintf("covers %d of %d aspects", covered, len(al.Aspects)),
	}
	if len(have) > 0 {
		sc.Reason += " (" + strings.Join(have, "; ") + ")"
	}
	if len(gaps) > 0 {
		sc.Reason += "; missing: " + strings.Join(gaps, "; ")
	}
	return sc, nil
}
