package bench

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"iter"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/assaylabs/assay/dataset"
	"github.com/assaylabs/assay/eval"
	"github.com/assaylabs/assay/internal/atomicfile"
	"github.com/assaylabs/assay/judging"
	"github.com/assaylabs/assay/llm"
	"github.com/assaylabs/assay/run"
)

// A batch run (--batch) judges in rounds. Each round runs every judge the
// run still lacks with a client that answers from the replies of the
// batches read so far (llm.Batch) and records the calls it has no reply
// for; a judge that made such a call wrote nothing, and the round's
// recorded calls go out as one batch, which is polled until it ends and
// read back into the replies (and the reply cache). The next round runs
// the judges again, now a step further: a judge's dependent calls
// (claims, then their verdicts) take a round each. The run ends with a
// round that recorded none. The judges are the run's own, unchanged: the
// batch only answers their calls.
//
// Every batch is kept in the run folder's batches.json as it is
// submitted, so that --resume of a run stopped while one was in flight
// picks it up (polls and reads it) instead of submitting its calls again.

// maxBatchRounds bounds a batch run's rounds: a judge's chain of
// dependent calls (claims, verdicts, a repair) is a few long, and a run
// still missing replies after so many has a judge whose calls differ each
// time it runs, which no batch can answer.
const maxBatchRounds = 16

// FileBatches is the run folder's record of a batch run's batches.
const FileBatches = "batches.json"

// batchBook is batches.json: the batches of the run, in the order they
// were submitted.
type batchBook struct {
	Batches []batchEntry `json:"batches"`
}

// batchEntry is one batch of the run.
type batchEntry struct {
	ID        string    `json:"id"`
	Round     int       `json:"round"`
	Calls     int       `json:"calls"`
	Submitted time.Time `json:"submitted"`
	// Status is the last the server said (llm.BatchStatus.Status).
	Status string `json:"status"`
}

// readBatches reads dir's batches.json; none is an empty book.
func readBatches(dir string) (batchBook, error) {
	path := filepath.Join(dir, FileBatches)
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return batchBook{}, nil
	}
	if err != nil {
		return batchBook{}, fmt.Errorf("run folder %s: %w", dir, err)
	}
	var b batchBook
	if err := json.Unmarshal(data, &b); err != nil {
		return batchBook{}, &eval.InputError{File: path, Msg: "not a run's batches: " + err.Error(), Err: err}
	}
	for i, e := range b.Batches {
		if e.ID == "" {
			return batchBook{}, &eval.InputError{File: path, Field: fmt.Sprintf("batches[%d].id", i), Msg: "missing"}
		}
	}
	return b, nil
}

// checkBatch refuses what --batch cannot go with.
func checkBatch(job Job) error {
	if !job.Judging.LLM.Batch || job.Judging.DryRun {
		return nil
	}
	switch {
	case job.Queue.On():
		return eval.FlagError("--batch", "the queue's workers call their own models one call at a time: give --batch or --workers/--cluster/--queue, not both")
	case job.Judging.LLM.MaxCostUSD > 0:
		return eval.FlagError("--batch", "a batch's cost is known only when it is done, so --max-cost cannot stop its calls before they are made: give one of --batch and --max-cost")
	}
	return nil
}

// batched is a batch run under way.
type batched struct {
	dir   string
	log   io.Writer
	now   func() time.Time
	batch *llm.Batch
	book  batchBook
}

// evaluateBatched judges the pairs the run lacks in rounds of batches
// (see FileBatches), limit judges at once; done is called once for each
// record whose every pair is written.
func evaluateBatched(ctx context.Context, job Job, s *judging.Session, folder *run.Run, d data, units []Unit, metrics []string, done func()) error {
	book, err := readBatches(folder.Dir())
	if err != nil {
		return err
	}
	b := &batched{dir: folder.Dir(), log: job.Log, now: job.Now, batch: s.Client().Batch(), book: book}
	round := 0
	for i, e := range b.book.Batches {
		// A batch of an earlier attempt: in flight, it is waited for; done,
		// its replies are read again, so that none is paid twice.
		fmt.Fprintf(b.log, "bench: picking up batch %s (round %d, %d call(s), %s when last seen)\n", e.ID, e.Round, e.Calls, e.Status)
		if err := b.finish(ctx, i); err != nil {
			return err
		}
		round = max(round, e.Round)
	}
	r := &rounds{}
	wrapped := make([]Unit, len(units))
	for i, u := range units {
		wrapped[i] = r.unit(i, u)
	}
	onRecord := func(rec dataset.Record, written int) {
		if written > 0 && !r.waiting(rec.ID) {
			done()
		}
	}
	for {
		round++
		if err := Evaluate(ctx, folder, r.records(d.Records()), wrapped, s.Limit(), onRecord); err != nil {
			return err
		}
		n := b.batch.Pending()
		if n == 0 {
			return nil
		}
		if round >= maxBatchRounds {
			return fmt.Errorf("--batch: after %d rounds, %d call(s) still have no reply: a judge asks for other calls each time it runs, which no batch can answer; judge without --batch (--resume keeps what was judged)", round, n)
		}
		r.next()
		st, err := b.batch.Submit(ctx)
		if err != nil {
			return err
		}
		b.book.Batches = append(b.book.Batches, batchEntry{ID: st.ID, Round: round, Calls: st.Total, Submitted: b.now().UTC(), Status: st.Status})
		if err := b.save(); err != nil {
			return err
		}
		fmt.Fprintf(b.log, "bench: round %d: %d call(s) sent in batch %s\n", round, st.Total, st.ID)
		if err := b.finish(ctx, len(b.book.Batches)-1); err != nil {
			return err
		}
	}
}

// rounds says which judgements a batch run runs in a round: in the
// first, every one the run lacks; in each later one, those that made a
// call the last round's batch was to answer. (A run writes each pair
// once: a judgement that wrote its results is not run again.) It holds
// only the judgements waiting on a batch. It is safe for concurrent use.
type rounds struct {
	mu sync.Mutex
	// now are the judgements of this round, nil in the first (all);
	// waiting those that made a call with no reply yet.
	now, wait map[pairOf]struct{}
}

// pairOf is a judgement: a sample and the index of its unit.
type pairOf struct {
	id   string
	unit int
}

// unit is the i-th unit u in a batch run: run in the rounds that ask
// for it; a judgement that made a call the batch has no reply for yet
// writes nothing, whatever its judge made of the error, and waits for
// the next round.
func (r *rounds) unit(i int, u Unit) Unit {
	return Unit{Metrics: u.Metrics, Judge: func(ctx context.Context, s eval.Sample) ([]eval.Score, error) {
		k := pairOf{s.ID, i}
		r.mu.Lock()
		_, asked := r.now[k]
		skip := r.now != nil && !asked
		r.mu.Unlock()
		if skip {
			return nil, nil
		}
		ctx, p := llm.WatchPending(ctx, s.ID+"\x00"+strconv.Itoa(i))
		scores, err := u.Judge(ctx, s)
		if p.Count() > 0 {
			r.mu.Lock()
			if r.wait == nil {
				r.wait = map[pairOf]struct{}{}
			}
			r.wait[k] = struct{}{}
			r.mu.Unlock()
			return nil, nil
		}
		return scores, err
	}}
}

// records are the records of the round among all.
func (r *rounds) records(all iter.Seq2[dataset.Record, error]) iter.Seq2[dataset.Record, error] {
	r.mu.Lock()
	ids := map[string]bool{}
	for k := range r.now {
		ids[k.id] = true
	}
	first := r.now == nil
	r.mu.Unlock()
	return func(yield func(dataset.Record, error) bool) {
		for rec, err := range all {
			if (err == nil && !first && !ids[rec.ID]) || yield(rec, err) {
				continue
			}
			return
		}
	}
}

// waiting reports whether a judgement of the record id waits for the
// next round.
func (r *rounds) waiting(id string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	for k := range r.wait {
		if k.id == id {
			return true
		}
	}
	return false
}

// next starts a round: the judgements waiting are the ones it runs.
func (r *rounds) next() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.now, r.wait = r.wait, nil
	if r.now == nil {
		r.now = map[pairOf]struct{}{}
	}
}

// finish polls the book's batch i until it ends, saying how it goes, and
// reads its replies.
func (b *batched) finish(ctx context.Context, i int) error {
	e := &b.book.Batches[i]
	last := ""
	st, err := b.batch.Wait(ctx, e.ID, func(st llm.BatchStatus) {
		now := fmt.Sprintf("%s, %d of %d call(s) done", st.Status, st.Completed+st.Failed, st.Total)
		if st.Failed > 0 {
			now += fmt.Sprintf(" (%d failed)", st.Failed)
		}
		if now == last {
			return
		}
		last = now
		fmt.Fprintf(b.log, "bench: batch %s: %s\n", st.ID, now)
		if st.Status != e.Status {
			e.Status = st.Status
			// Kept for --resume; a write that fails now is tried again at the
			// next change, and the batch is polled all the same.
			_ = b.save()
		}
	})
	if err != nil {
		return err
	}
	e.Status = st.Status
	if err := b.save(); err != nil {
		return err
	}
	r, err := b.batch.Read(ctx, st)
	if err != nil {
		return err
	}
	if st.Status != llm.BatchCompleted {
		why := append(st.Errors, r.Errors...)
		reason := ""
		if len(why) > 0 {
			reason = ": " + strings.Join(why, "; ")
		}
		fmt.Fprintf(b.log, "bench: batch %s %s%s; %d call(s) answered, %d to send directly\n", e.ID, st.Status, reason, r.Answered, r.Direct)
	} else if r.Direct > 0 {
		fmt.Fprintf(b.log, "bench: batch %s: %d call(s) failed in it (%s); they are sent directly\n", e.ID, r.Direct, strings.Join(r.Errors, "; "))
	}
	return nil
}

// save writes batches.json whole (atomicfile).
func (b *batched) save() error {
	return atomicfile.WriteJSON(filepath.Join(b.dir, FileBatches), b.book)
}
