package bench

import (
	"context"
	"fmt"
	"iter"
	"runtime"
	"runtime/debug"
	"sync/atomic"

	"golang.org/x/sync/errgroup"

	"github.com/assaylabs/assay/dataset"
	"github.com/assaylabs/assay/eval"
	"github.com/assaylabs/assay/judging"
	"github.com/assaylabs/assay/telemetry"
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
func ScoreAll(ctx context.Context, records []dataset.Record, scorers []eval.Scorer, limit int) ([][]eval.Score, error) {
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

// TasksPerCall is how many judge tasks to run per model-call slot, the
// limit to give ScoreStream for a client of concurrency c being
// TasksPerCall x c. Tasks are cheap goroutines that mostly wait; more of
// them than call slots keeps every slot busy while multi-step judges work
// between their calls, and renders the next prompts while the calls in
// flight wait. Many more would make every task's first work compete at the
// start, delaying the first calls.
const TasksPerCall = judging.TasksPerCall

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
func ScoreEach(ctx context.Context, records []dataset.Record, scorers []eval.Scorer, limit int, emit func(i int, scores []eval.Score) error) error {
	window := max(len(records), 1)
	if limit > 0 {
		window = min(window, aheadPerSlot*limit)
	}
	return scoreStream(ctx, dataset.All(records), scorers, limit, window, func(i int, _ dataset.Record, scores []eval.Score) error {
		return emit(i, scores)
	})
}

// ScoreStream is ScoreEach over records read one at a time, from
// [dataset.Records] say, so that neither the records nor their scores need
// fit in memory: at most aheadPerSlot x limit records are read and not yet
// emitted. emit gets each record's index (from 0, in order), the record
// and its scores; it may keep the record. A limit below 1 counts as 1, as
// a stream has no length to bound the window otherwise.
//
// An error from records stops the reading: the records read before it are
// still scored and emitted, then ScoreStream returns that error.
func ScoreStream(ctx context.Context, records iter.Seq2[dataset.Record, error], scorers []eval.Scorer, limit int, emit func(i int, rec dataset.Record, scores []eval.Score) error) error {
	limit = max(limit, 1)
	return scoreStream(ctx, records, scorers, limit, aheadPerSlot*limit, emit)
}

// pending is a record started and not yet emitted.
type pending struct {
	i      int
	rec    dataset.Record
	scores []eval.Score
	left   atomic.Int32  // scorers still running
	done   chan struct{} // closed when left reaches 0
}

// scoreStream runs ScoreEach and ScoreStream: at most window records are
// started and not yet emitted; limit <= 0 is no limit on the scorers.
func scoreStream(ctx context.Context, records iter.Seq2[dataset.Record, error], scorers []eval.Scorer, limit, window int, emit func(i int, rec dataset.Record, scores []eval.Score) error) error {
	g, gctx := errgroup.WithContext(ctx)
	if limit > 0 {
		g.SetLimit(limit + 1) // one slot for the emitter
	}
	// ahead holds a token per record started and not yet emitted, and
	// queue those records in order, so neither ever holds more than window.
	ahead := make(chan struct{}, window)
	queue := make(chan *pending, window)
	g.Go(func() error {
		for p := range queue {
			select {
			case <-p.done:
			case <-gctx.Done():
				return nil // the scorers report why
			}
			err := emit(p.i, p.rec, p.scores)
			<-ahead
			if err != nil {
				return err
			}
		}
		return nil
	})
	// Record by record, so results come out from the start and only the
	// window is held. A judge that makes several calls in a row
	// (faithfulness: extract, then verify) still overlaps with the
	// records after it, up to the window.
	var readErr error
	i, started := 0, 0
	for rec, err := range records {
		if err != nil {
			readErr = err
			break
		}
		select {
		case ahead <- struct{}{}:
		case <-gctx.Done():
		}
		if gctx.Err() != nil {
			break
		}
		p := &pending{i: i, rec: rec, scores: make([]eval.Score, len(scorers)), done: make(chan struct{})}
		sctx, sample := telemetry.StartSample(gctx, rec.ID, rec.Line, len(scorers)) // a span over its scorers
		i++
		p.left.Store(int32(len(scorers)))
		queue <- p // never blocks: it holds fewer than window records
		if len(scorers) == 0 {
			close(p.done) // no scorer will report it: it is ready now
		}
		for j, sc := range scorers {
			g.Go(func() (err error) {
				defer func() {
					if r := recover(); r != nil {
						err = fmt.Errorf("record %s: scorer %d panicked: %v\n%s", rec.ID, j, r, debug.Stack())
					}
					sample.Done(err)
				}()
				s, err := sc.Score(sctx, rec.Sample)
				if err != nil {
					if ctx.Err() != nil {
						return ctx.Err()
					}
					return fmt.Errorf("record %s (line %d): %w", rec.ID, rec.Line, err)
				}
				p.scores[j] = s
				if p.left.Add(-1) == 0 {
					close(p.done)
				}
				return nil
			})
			// At the start of a run, let the task just started do its
			// first work (render its prompt, reach the model client)
			// before the next one is started, so the first calls leave in
			// record order instead of after every task's first work. Later
			// tasks start as earlier ones end, one at a time.
			if started++; started <= limit {
				runtime.Gosched()
			}
		}
	}
	close(queue) // the emitter ends after the last record
	if err := g.Wait(); err != nil {
		return err
	}
	if readErr != nil {
		return readErr
	}
	return ctx.Err()
}

// aheadPerSlot bounds how far ScoreEach runs ahead of the record it is
// waiting to emit: at most aheadPerSlot x limit records are started and not
// yet emitted.
const aheadPerSlot = 8
