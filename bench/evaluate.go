package bench

import (
	"context"
	"fmt"
	"iter"
	"slices"

	"github.com/assaylabs/assay/dataset"
	"github.com/assaylabs/assay/eval"
	"github.com/assaylabs/assay/run"
	"github.com/assaylabs/assay/telemetry"
)

// Unit computes some of a record's metrics in one go: one judge's metric,
// or a profile's card (the context card's overall and its four sub-scores
// from one computation).
type Unit struct {
	// Metrics are the metrics of the scores Judge returns.
	Metrics []string
	// Judge scores a sample. Its error (not a judge failure, which is a
	// Defaulted score) stops the run.
	Judge func(ctx context.Context, s eval.Sample) ([]eval.Score, error)
}

// ScorerUnit is the Unit of one scorer of metric.
func ScorerUnit(metric string, sc eval.Scorer) Unit {
	return Unit{Metrics: []string{metric}, Judge: func(ctx context.Context, s eval.Sample) ([]eval.Score, error) {
		out, err := sc.Score(ctx, s)
		if err != nil {
			return nil, err
		}
		return []eval.Score{out}, nil
	}}
}

// Evaluate judges with units every (record, metric) pair run r lacks,
// limit scorers at once ([ScoreStream]'s limit), and appends each unit's
// results as soon as that unit finishes on its record. Records whose every
// pair is done are not started; a unit whose every metric is done on a
// record is not run again, and of a unit run again for some of its
// metrics only the missing results are written. onRecord, when not nil, is
// called once per record started, after its units finished, in record
// order; it gets the number of results written for it.
//
// Evaluate returns when every record is judged, the first error (of the
// records, a unit or a write), or ctx is done; what was written stays
// written. Records must carry their ID in Sample.ID, as
// [dataset.Records] does.
func Evaluate(ctx context.Context, r *run.Run, records iter.Seq2[dataset.Record, error], units []Unit, limit int, onRecord func(rec dataset.Record, written int)) error {
	pendingOf := func(id string, u Unit) bool {
		return slices.ContainsFunc(u.Metrics, func(m string) bool { return !r.Done(run.Key{ID: id, Metric: m}) })
	}
	todo := func(yield func(dataset.Record, error) bool) {
		for rec, err := range records {
			if err == nil && !slices.ContainsFunc(units, func(u Unit) bool { return pendingOf(rec.ID, u) }) {
				continue
			}
			if !yield(rec, err) {
				return
			}
		}
	}
	var metrics []string
	for _, u := range units {
		for _, m := range u.Metrics {
			if slices.Contains(metrics, m) {
				return fmt.Errorf("metric %s is judged by two units: a run holds each (sample, metric) once", m)
			}
			metrics = append(metrics, m)
		}
	}
	scorers := make([]eval.Scorer, len(units))
	for i, u := range units {
		scorers[i] = unitScorer{folder: r, unit: u, pending: pendingOf}
	}
	return ScoreStream(ctx, todo, scorers, limit, func(_ int, rec dataset.Record, scores []eval.Score) error {
		if onRecord != nil {
			written := 0
			for _, sc := range scores {
				written += int(sc.Points)
			}
			onRecord(rec, written)
		}
		return nil
	})
}

// unitScorer runs a Unit inside ScoreStream and appends its results; the
// Score it returns only counts them (Points), for Evaluate's onRecord.
type unitScorer struct {
	folder  *run.Run
	unit    Unit
	pending func(id string, u Unit) bool
}

func (u unitScorer) Score(ctx context.Context, s eval.Sample) (eval.Score, error) {
	if !u.pending(s.ID, u.unit) {
		return eval.Score{}, nil
	}
	results, err := judgeUnit(ctx, u.unit, s, nil)
	if err != nil {
		return eval.Score{}, err
	}
	written, err := u.folder.AppendNew(results)
	return eval.Score{Points: float64(written)}, err
}

// judgeUnit judges sample s with unit u: the results of its metrics, as
// results.jsonl holds them. The in-process run (Evaluate) and a queue's
// workers (Work) judge each (sample, unit) through it. Its error is the
// unit's (which stops an in-process run, and is a failed delivery on a
// queue), or ctx's: a judgement cut short is not written, and a resume
// redoes it. check, when set, may refuse the scores before they count
// (a queue's worker whose model server was unreachable): its error is
// the unit's.
func judgeUnit(ctx context.Context, u Unit, s eval.Sample, check func([]eval.Score) error) ([]run.Result, error) {
	scores, err := u.Judge(ctx, s)
	if err != nil {
		return nil, err
	}
	if check != nil {
		if err := check(scores); err != nil {
			return nil, err
		}
	}
	telemetry.Evaluated(ctx, scores...) // on the sample's span
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	out := make([]run.Result, len(scores))
	for i, sc := range scores {
		out[i] = run.ResultOf(s.ID, sc)
	}
	return out, nil
}
