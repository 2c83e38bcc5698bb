package agent

import (
	"context"
	"strings"

	"github.com/assaylabs/assay/eval"
	"github.com/assaylabs/assay/heuristics"
	"github.com/assaylabs/assay/metric"
)

// weighed is the scorer of a metric a profile weighs whose scorer knows
// nothing of profiles (a judge of --metric, a judge the profile defines):
// its score's value times the scorer spec's max, as points of that max.
// Of a report profile (titled), a report scored without its query is
// judged with its title for the query, as the report's other scorers
// take it.
type weighed struct {
	eval.Scorer
	max    float64
	titled bool
}

// weigh is sc on a card, its points out of max; a Checker stays one.
func weigh(sc eval.Scorer, max float64, titled bool) eval.Scorer {
	w := weighed{Scorer: sc, max: max, titled: titled}
	if _, ok := sc.(metric.Checker); ok {
		return checkedWeighed{w}
	}
	return w
}

// Score implements eval.Scorer.
func (w weighed) Score(ctx context.Context, s eval.Sample) (eval.Score, error) {
	sc, err := w.Scorer.Score(ctx, w.sample(s))
	if err != nil {
		return sc, err
	}
	sc.Points, sc.Max = sc.Value*w.max, w.max
	return sc, nil
}

// ScoreReport implements heuristics.ReportScorer: the scorer's own
// ScoreReport, with the card's parsed report, when it has one; else Score.
func (w weighed) ScoreReport(ctx context.Context, r *heuristics.Report, s eval.Sample) (eval.Score, error) {
	rs, ok := w.Scorer.(heuristics.ReportScorer)
	if !ok {
		return w.Score(ctx, s)
	}
	sc, err := rs.ScoreReport(ctx, r, w.sample(s))
	if err != nil {
		return sc, err
	}
	sc.Points, sc.Max = sc.Value*w.max, w.max
	return sc, nil
}

// sample is s as the scorer judges it: with the report's title for its
// query, when titled and s has none.
func (w weighed) sample(s eval.Sample) eval.Sample {
	if w.titled && strings.TrimSpace(s.Query) == "" {
		s.Query = heuristics.ParseReport([]byte(s.Answer)).Title
	}
	return s
}

// checkedWeighed is a weighed Checker.
type checkedWeighed struct{ weighed }

// Check implements metric.Checker.
func (c checkedWeighed) Check(s eval.Sample) error {
	return c.Scorer.(metric.Checker).Check(c.sample(s))
}
