package judges

import (
	"context"
	"fmt"
	"strings"

	"github.com/assaylabs/assay/eval"
	"github.com/assaylabs/assay/heuristics"
	"github.com/assaylabs/assay/metric"
)

// MetricTokenOverlap names the plain baseline every offline judge is
// measured against.
const MetricTokenOverlap = "token_overlap"

// TokenOverlap is the plain baseline: the share of the answer's word tokens
// (of the query's, when there is no answer, as in passage-relevance sets)
// that occur in the contexts. No stemming, no stop words, no claims. A
// sample with neither, or whose text has no word, is skipped.
type TokenOverlap struct{}

var _ eval.Scorer = TokenOverlap{}

// Score implements eval.Scorer.
func (TokenOverlap) Score(_ context.Context, s eval.Sample) (eval.Score, error) {
	text, of := s.Answer, "answer"
	if strings.TrimSpace(text) == "" {
		text, of = s.Query, "query"
	}
	switch {
	case strings.TrimSpace(text) == "":
		return skip(MetricTokenOverlap, "baseline", 1, eval.ErrNoAnswer, eval.Usage{}), nil
	case heuristics.TokenCount(text) == 0:
		// A share of no token is no 0: it would count as a failure.
		return skip(MetricTokenOverlap, "baseline", 1, fmt.Errorf("%w: the %s has no word to look for in the contexts", eval.ErrNoClaims, of), eval.Usage{}), nil
	}
	v := heuristics.TokenOverlap(text, strings.Join(texts(passages(s)), "\n"))
	return eval.Score{
		Metric: MetricTokenOverlap, Value: v, Points: v, Max: 1, Method: "baseline",
		Reason: fmt.Sprintf("%.0f%% of the %s's tokens occur in the contexts", 100*v, of),
	}, nil
}

// tokenOverlapMetric is the registry entry of the baseline: --metric takes
// it, as it takes the judges it is the baseline of.
func tokenOverlapMetric() metric.Entry {
	return metric.Entry{
		Name: MetricTokenOverlap, Kind: metric.KindHeuristic, Dataset: true, Needs: metric.NeedsContexts,
		Threshold: metric.Threshold{Offline: 0.8, Model: 0.8},
		Build:     func(Model) eval.Scorer { return TokenOverlap{} },
	}
}
