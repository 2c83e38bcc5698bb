package bench

import (
	"context"
	"fmt"
	"runtime/debug"

	"golang.org/x/sync/errgroup"

	"github.com/assaylabs/assay/eval"
)

// ScoreAll runs every scorer on every record, up to limit at once, and
// returns scores[i][j] for record i and scorer j. It is the fan-out of
// `assay judge` and the benchmark runner: goroutines are cheap and the model
// client's own limit sets the pace of model calls, so limit should be a
// few times that limit.
//
// A scorer's error (not a judge failure, which is a Defaulted score) stops
// the run and names the record; so does a panic. Cancelling ctx stops the
// run promptly and returns ctx.Err().
func ScoreAll(ctx context.Context, records []Record, scorers []eval.Scorer, limit int) ([][]eval.Score, error) {
	out := make([][]eval.Score, len(records))
	for i := range out {
		out[i] = make([]eval.Score, len(scorers))
	}
	g, gctx := errgroup.WithContext(ctx)
	if limit > 0 {
		g.SetLimit(limit)
	}
	// Scorer by scorer rather than record by record: a judge that makes
	// several calls in a row (faithfulness: extract, then verify) starts
	// on every record early, so its later calls do not trail behind the
	// last wave of single-call judges.
	for j, sc := range scorers {
		for i, rec := range records {
			if gctx.Err() != nil {
				break
			}
			g.Go(func() (err error) {
				defer func() {
					if r := recover(); r != nil {
						err = fmt.Errorf("record %s: scorer %d panicked: %v\n%s", rec.ID, j, r, debug.Stack())
					}
				}()
				s, err := sc.Score(gctx, rec.Sample)
				if err != nil {
					if ctx.Err() != nil {
						return ctx.Err()
					}
					return fmt.Errorf("record %s (line %d): %w", rec.ID, rec.Line, err)
				}
				out[i][j] = s
				return nil
			})
		}
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return out, nil
}
