// Package dispatch hands a run's work items out and collects their
// results, one interface for the ways work goes out: in this process
// (Local, a pool of goroutines at the model client's concurrency), in
// rounds of provider batches (Batch, llm.Batch), or through a NATS
// JetStream queue to workers of this process and others (NATS, the queue
// package).
//
// A work item is one sample and one unit of the run's plan: a unit judges
// some of the sample's metrics in one go (one judge's metric, or a
// profile's card). The caller decides which items are due (a resumed run
// leaves out the pairs it has) and what becomes of each result (appended
// to results.jsonl as it arrives); a dispatcher only hands the items out
// and brings each item's results back. A queue's worker (Worker) is
// handed the plan it judges with, built from the run's configuration
// that the queue holds, and imports nothing of the caller's.
package dispatch

import (
	"context"
	"iter"

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

// Item is one work item: a record to judge with one unit of the plan.
// The items of a record come one after another.
type Item struct {
	Record dataset.Record
	// Unit is the index of the plan's unit.
	Unit int
	// Tries is how often the run judged the pair already (run.Run.Tries,
	// the most of the unit's metrics not done): it names a queue's task,
	// so that a pair judged again is a new task.
	Tries int
}

// Result is what came back for one item: the results of its unit's
// metrics (none for an item a round of batches left waiting), and
// whether it was the last of its record's items to come back.
type Result struct {
	Item    Item
	Results []run.Result
	// RecordDone says every item of the record has its results now.
	RecordDone bool
}

// Dispatcher hands out work items and collects their results.
type Dispatcher interface {
	// Dispatch hands out every item and calls deliver with each item's
	// results as they arrive, one call at a time. It returns when every
	// item has its results, on the first error (of items, a unit or
	// deliver), or when ctx is done: the caller tells an interrupted run
	// by ctx, whatever the error. What deliver took stays taken.
	Dispatch(ctx context.Context, items iter.Seq2[Item, error], deliver func(Result) error) error
}

// JudgeUnit judges sample s with unit u: the results of its metrics, as
// results.jsonl holds them. Every dispatcher judges each (sample, unit)
// through it, in this process or in a queue's worker. Its error is the
// unit's (which stops an in-process run, and is a failed delivery on a
// queue), or ctx's: a judgement cut short is not written, and a resume
// redoes it. check, when set, may refuse the scores before they count
// (a queue's worker whose model server was unreachable): its error is
// the unit's.
func JudgeUnit(ctx context.Context, u Unit, s eval.Sample, check func([]eval.Score) error) ([]run.Result, error) {
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
