package judges

import (
	"context"

	"github.com/assaylabs/assay/eval"
	"github.com/assaylabs/assay/heuristics"
)

var _ heuristics.ReportScorer = Completeness{}

// ScoreReport implements heuristics.ReportScorer, so that a card's scorers
// share one parse of the report: offline, the heuristic completeness scores
// r, the report already parsed; with a model it is Score, whose prompt takes
// the answer's text.
func (c Completeness) ScoreReport(ctx context.Context, r *heuristics.Report, s eval.Sample) (eval.Score, error) {
	if blank(s.Answer) || !Offline(c.Model) {
		return c.Score(ctx, s)
	}
	maxPts := c.Max
	if maxPts == 0 {
		maxPts = 1
	}
	sc, err := heuristics.Completeness{Max: maxPts}.ScoreReport(ctx, r, s)
	sc.Method = MethodOffline
	return sc, err
}
