package heuristics

import (
	"context"
	"sync"

	"github.com/assaylabs/assay/eval"
)

// ReportScorer is a Scorer of a Markdown report (Sample.Answer) that also
// takes the report already parsed, so that the scorers of one card share one
// ParseReport instead of each parsing the same text. Grounding,
// SourceQuality, Diversity, Completeness and Clarity are ReportScorers.
//
// ScoreReport(ctx, ParseReport([]byte(s.Answer)), s) returns what Score(ctx,
// s) returns. A caller running several ReportScorers on one sample parses
// once (ParseOnce) and hands every one the same *Report; r is only read,
// never modified, so the scorers may run in parallel.
type ReportScorer interface {
	eval.Scorer
	ScoreReport(ctx context.Context, r *Report, s eval.Sample) (eval.Score, error)
}

// ParseOnce returns a function that parses s.Answer on its first call and
// returns the same *Report on every call, from any goroutine: the memo of
// one card, held by whoever runs its scorers, not by this package. Callers
// that arrive while the parse runs wait for it; parses of other samples
// run alongside.
func ParseOnce(s eval.Sample) func() *Report {
	answer := s.Answer
	return sync.OnceValue(func() *Report { return ParseReport([]byte(answer)) })
}
