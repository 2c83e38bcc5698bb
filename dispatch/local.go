package dispatch

import (
	"context"
	"fmt"
	"iter"
	"runtime"
	"runtime/debug"
	"sync"
	"sync/atomic"

	"golang.org/x/sync/errgroup"

	"github.com/assaylabs/assay/dataset"
	"github.com/assaylabs/assay/eval"
	"github.com/assaylabs/assay/telemetry"
)

// Local judges the items in this process: each record's due units side
// by side, Limit units at once across the records (Stream's limit: a few
// times the model client's concurrency, judging.Session.Limit).
type Local struct {
	Units []Unit
	Limit int
}

// record is a record started and the items of it due, by unit.
type record struct {
	items []*Item // by unit; nil where the unit is not due
	left  int     // items without their results yet
}

// Dispatch judges every item with its unit and delivers its results as
// soon as that unit finishes on its record.
func (l Local) Dispatch(ctx context.Context, items iter.Seq2[Item, error], deliver func(Result) error) error {
	var mu sync.Mutex // over started and deliver
	started := map[string]*record{}
	scorers := make([]eval.Scorer, len(l.Units))
	for i, u := range l.Units {
		scorers[i] = unitScorer(func(ctx context.Context, id string) error {
			mu.Lock()
			r := started[id] // nil once its due units all finished
			mu.Unlock()
			if r == nil || r.items[i] == nil {
				return nil // not due
			}
			it := r.items[i]
			results, err := JudgeUnit(ctx, u, it.Record.Sample, nil)
			if err != nil {
				return err
			}
			mu.Lock()
			defer mu.Unlock()
			r.left--
			if r.left == 0 {
				delete(started, id)
			}
			return deliver(Result{Item: *it, Results: results, RecordDone: r.left == 0})
		})
	}
	records := byRecord(items, len(l.Units), func(id string, r *record) {
		mu.Lock()
		started[id] = r
		mu.Unlock()
	})
	return Stream(ctx, records, scorers, l.Limit, AheadPerSlot*max(l.Limit, 1), nil)
}

// byRecord are the records of items, which come record by record, each
// started (its due items by unit) just before it is yielded. An item of
// a unit the plan lacks (of units) is an error.
func byRecord(items iter.Seq2[Item, error], units int, start func(id string, r *record)) iter.Seq2[dataset.Record, error] {
	return func(yield func(dataset.Record, error) bool) {
		var cur *record
		var rec dataset.Record
		flush := func() bool {
			if cur == nil {
				return true
			}
			start(rec.ID, cur)
			cur = nil
			return yield(rec, nil)
		}
		for it, err := range items {
			if err == nil && (it.Unit < 0 || it.Unit >= units) {
				err = fmt.Errorf("record %s: the plan has no unit %d", it.Record.ID, it.Unit)
			}
			if err != nil {
				if flush() {
					yield(dataset.Record{}, err)
				}
				return
			}
			if cur != nil && it.Record.ID != rec.ID && !flush() {
				return
			}
			if cur == nil {
				cur, rec = &record{items: make([]*Item, units)}, it.Record
			}
			if cur.items[it.Unit] == nil {
				cur.left++
			}
			cur.items[it.Unit] = &it
		}
		flush()
	}
}

// unitScorer runs a unit on the record of a sample's id inside Stream;
// its Score is empty, the results having gone to deliver.
type unitScorer func(ctx context.Context, id string) error

func (u unitScorer) Score(ctx context.Context, s eval.Sample) (eval.Score, error) {
	return eval.Score{}, u(ctx, s.ID)
}

// AheadPerSlot bounds how far Stream runs ahead of the record it is
// waiting to emit: at most AheadPerSlot x limit records are started and
// not yet emitted.
const AheadPerSlot = 8

// pending is a record started and not yet emitted.
type pending struct {
	i      int
	rec    dataset.Record
	scores []eval.Score
	left   atomic.Int32  // scorers still running
	done   chan struct{} // closed when left reaches 0
}

// Stream runs every scorer on every record, limit at once (limit <= 0
// is no limit), and hands each record's scores to emit (when not nil) as
// soon as that record and every record before it are scored, in record
// order; at most window records are started and not yet emitted. emit
// runs on one goroutine at a time; its error stops the run. A scorer's
// error (not a judge failure, which is a Defaulted score) stops the run
// and names the record; so does a panic. Each record is a span
// (telemetry.StartSample) over its scorers.
//
// An error from records stops the reading: the records read before it
// are still scored and emitted, then Stream returns that error.
// Cancelling ctx stops the run promptly and returns ctx.Err().
func Stream(ctx context.Context, records iter.Seq2[dataset.Record, error], scorers []eval.Scorer, limit, window int, emit func(i int, rec dataset.Record, scores []eval.Score) error) error {
	g, gctx := errgroup.WithContext(ctx)
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
			var err error
			if emit != nil {
				err = emit(p.i, p.rec, p.scores)
			}
			<-ahead
			if err != nil {
				return err
			}
		}
		return nil
	})
	tasks := &pool{g: g, gctx: gctx, limit: limit}
	readErr := startRecords(ctx, gctx, tasks, records, scorers, ahead, queue)
	tasks.close()
	close(queue) // the emitter ends after the last record
	if err := g.Wait(); err != nil {
		return err
	}
	if readErr != nil {
		return readErr
	}
	return ctx.Err()
}

// startRecords reads the records and starts their scorers, record by
// record, so results come out from the start and only the window is
// held. A judge that makes several calls in a row (faithfulness:
// extract, then verify) still overlaps with the records after it, up to
// the window. It returns the records' error.
func startRecords(ctx, gctx context.Context, tasks *pool, records iter.Seq2[dataset.Record, error], scorers []eval.Scorer, ahead chan struct{}, queue chan *pending) error {
	i, started := 0, 0
	for rec, err := range records {
		if err != nil {
			return err
		}
		select {
		case ahead <- struct{}{}:
		case <-gctx.Done():
		}
		if gctx.Err() != nil {
			return nil
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
			ok := tasks.run(func() (err error) {
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
			if !ok {
				return nil // the run stopped; the scorers report why
			}
			// At the start of a run, let the task just started do its
			// first work (render its prompt, reach the model client)
			// before the next one is started, so the first calls leave in
			// record order instead of after every task's first work. Later
			// tasks start as earlier ones end, one at a time.
			if started++; started <= tasks.limit {
				runtime.Gosched()
			}
		}
	}
	return nil
}

// pool runs Stream's tasks on at most limit goroutines that live for the
// whole run (limit <= 0: a goroutine per task). A worker keeps its stack
// from one task to the next: a task goes deep (the reply cache's SQLite,
// JSON decoding), and a goroutine per task grew a new stack every time.
type pool struct {
	g       *errgroup.Group
	gctx    context.Context
	limit   int
	workers int // started so far; only the caller of run counts them
	tasks   chan func() error
}

// run hands f to an idle worker, or to a new one while there are fewer
// than limit, or else waits for a worker to come free. It reports false,
// f not run, when the run stopped first.
func (p *pool) run(f func() error) bool {
	if p.limit <= 0 {
		p.g.Go(f)
		return true
	}
	if p.tasks == nil {
		p.tasks = make(chan func() error)
	}
	select {
	case p.tasks <- f:
		return true
	default:
	}
	if p.workers < p.limit {
		p.workers++
		p.g.Go(func() error {
			for ; f != nil; f = <-p.tasks {
				if err := f(); err != nil {
					return err
				}
			}
			return nil
		})
		return true
	}
	select {
	case p.tasks <- f:
		return true
	case <-p.gctx.Done():
		return false
	}
}

// close ends the workers once they finish their tasks.
func (p *pool) close() {
	if p.tasks != nil {
		close(p.tasks)
	}
}
