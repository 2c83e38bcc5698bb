package bench

import (
	"context"
	"fmt"
	"runtime/debug"
	"sync/atomic"

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
	err := ScoreEach(ctx, records, scorers, limit, func(i int, scores []eval.Score) error {
		out[i] = scores
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// ScoreEach is ScoreAll that hands each record's scores to emit as soon as
// that record and every record before it are scored, in record order, so
// a caller can write results while later records are still being judged.
// emit runs on one goroutine at a time; an error from it stops the run.
// On an error, emit has seen a prefix of the records, which a caller can
// keep. With no scorers, emit sees every record with no scores.
func ScoreEach(ctx context.Context, records []Record, scorers []eval.Scorer, limit int, emit func(i int, scores []eval.Score) error) error {
	out := make([][]eval.Score, len(records))
	left := make([]atomic.Int32, len(records)) // scorers still running per record
	done := make(chan int, len(records))
	for i := range out {
		out[i] = make([]eval.Score, len(scorers))
		left[i].Store(int32(len(scorers)))
		if len(scorers) == 0 {
			done <- i // no scorer will report it: it is ready now
		}
	}
	g, gctx := errgroup.WithContext(ctx)
	if limit > 0 {
		g.SetLimit(limit + 1) // one slot for the emitter
	}
	g.Go(func() error {
		return emitInOrder(gctx, len(records), done, func(i int) error { return emit(i, out[i]) })
	})
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
				if left[i].Add(-1) == 0 {
					done <- i // buffered for every record: never blocks
				}
				return nil
			})
		}
	}
	if err := g.Wait(); err != nil {
		return err
	}
	return ctx.Err()
}

// emitInOrder calls emit for 0, 1, ... n-1 as the indexes arrive on done
// in any order, until all n are emitted or ctx ends.
func emitInOrder(ctx context.Context, n int, done <-chan int, emit func(int) error) error {
	ready := make([]bool, n)
	next := 0
	for next < n {
		select {
		case i := <-done:
			ready[i] = true
		case <-ctx.Done():
			return nil // the scorers report why
		}
		for ; next < n && ready[next]; next++ {
			if err := emit(next); err != nil {
				return err
			}
		}
	}
	return nil
}
