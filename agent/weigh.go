package agent

import (
	"context"

	"github.com/assaylabs/assay/eval"
	"github.com/assaylabs/assay/metric"
)

// weighed is the scorer of a metric a profile weighs whose scorer knows
// nothing of profiles (a judge of --metric, a judge the profile defines):
// its score's value times the scorer spec's max, as points of that max.
type weighed struct {
	eval.Scorer
	max float64
}

// weigh is sc on a card, its points out of max; a Checker stays one.
func weigh(sc eval.Scorer, max float64) eval.Scorer {
	w := weighed{Scorer: sc, max: max}
	if _, ok := sc.(metric.Checker); ok {
		return checkedWeighed{w}
	}
	return w
}

// Score implements eval.Scorer.
func (w weighed) Score(ctx context.Context, s eval.Sample) (eval.Score, error) {
	sc, err := w.Scorer.Score(ctx, s)
	if err != nil {
		return sc, err
	}
	sc.Points, sc.Max = sc.Value*w.max, w.max
	return sc, nil
}

// checkedWeighed is a weighed Checker.
type checkedWeighed struct{ weighed }

// Check implements metric.Checker.
func (c checkedWeighed) Check(s eval.Sample) error { return c.Scorer.(metric.Checker).Check(s) }
