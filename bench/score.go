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
//
// Records start in order, and at most aheadPerSlot x limit of them are
// started and not yet emitted (with limit > 0), so memory holds that many
// records' scores however long the dataset: emit must copy what it keeps
// of the scores it is handed.
func ScoreEach(ctx context.Context, records []Record, scorers []eval.Scorer, limit int, emit func(i int, scores []eval.Score) error) error {
	out := make([][]eval.Score, len(records))
	left := make([]atomic.Int32, len(records)) // scorers still running per record
	g, gctx := errgroup.WithContext(ctx)
	window := len(records)
	if limit > 0 {
		g.SetLimit(limit + 1) // one slot for the emitter
		window = min(window, aheadPerSlot*limit)
	}
	// ahead holds a token per record started and not yet emitted.
	ahead := make(chan struct{}, max(window, 1))
	done := make(chan int, len(records))
	g.Go(func() error {
		return emitInOrder(gctx, len(records), done, func(i int) error {
			err := emit(i, out[i])
			out[i] = nil // emitted: let it go
			<-ahead
			return err
		})
	})
	// Record by record, so results come out from the start and only the
	// window is held. A judge that makes several calls in a row
	// (faithfulness: extract, then verify) still overlaps with the
	// records after it, up to the window.
	for i, rec := range records {
		select {
		case ahead <- struct{}{}:
		case <-gctx.Done():
		}
		if gctx.Err() != nil {
			break
		}
		out[i] = make([]eval.Score, len(scorers))
		left[i].Store(int32(len(scorers)))
		if len(scorers) == 0 {
			done <- i // no scorer will report it: it is ready now
		}
		for j, sc := range scorers {
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

// aheadPerSlot bounds how far ScoreEach runs ahead of the record it is
// waiting to emit: at most aheadPerSlot x limit records are started and not
// yet emitted.
const aheadPerSlot = 8
