package bench

import (
	"context"
	"github.com/assaylabs/assay/dataset"
	"github.com/assaylabs/assay/dispatch"
	"github.com/assaylabs/assay/eval"
	"github.com/assaylabs/assay/judging"
	"iter"
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
// Records start in order, and at most dispatch.AheadPerSlot x limit of them are
// started and not yet emitted (with limit > 0), so memory holds that many
// records' scores however long the dataset: emit must copy what it keeps
// of the scores it is handed.
func ScoreEach(ctx context.Context, records []dataset.Record, scorers []eval.Scorer, limit int, emit func(i int, scores []eval.Score) error) error {
	window := max(len(records), 1)
	if limit > 0 {
		window = min(window, dispatch.AheadPerSlot*limit)
	}
	return dispatch.Stream(ctx, dataset.All(records), scorers, limit, window, func(i int, _ dataset.Record, scores []eval.Score) error {
		return emit(i, scores)
	})
}

// ScoreStream is ScoreEach over records read one at a time, from
// [dataset.Records] say, so that neither the records nor their scores need
// fit in memory: at most dispatch.AheadPerSlot x limit records are read and not yet
// emitted. emit gets each record's index (from 0, in order), the record
// and its scores; it may keep the record. A limit below 1 counts as 1, as
// a stream has no length to bound the window otherwise.
//
// An error from records stops the reading: the records read before it are
// still scored and emitted, then ScoreStream returns that error.
func ScoreStream(ctx context.Context, records iter.Seq2[dataset.Record, error], scorers []eval.Scorer, limit int, emit func(i int, rec dataset.Record, scores []eval.Score) error) error {
	limit = max(limit, 1)
	return dispatch.Stream(ctx, records, scorers, limit, dispatch.AheadPerSlot*limit, emit)
}
