package dispatch

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"iter"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode"

	"github.com/assaylabs/assay/eval"
	"github.com/assaylabs/assay/internal/atomicfile"
	"github.com/assaylabs/assay/internal/termtext"
	"github.com/assaylabs/assay/llm"
)

// Batch judges the items in rounds of provider batches (--batch). Each
// round runs every item still due with a client that answers from the
// replies of the batches read so far (llm.Batch) and records the calls it
// has no reply for; a judgement that made such a call brings no results,
// and the round's recorded calls go out as one batch, which is polled
// until it ends and read back into the replies (and the reply cache). The
// next round runs those judgements again, now a step further: a judge's
// dependent calls (claims, then their verdicts) take a round each. The
// run ends with a round that recorded none. The judges are the plan's
// own, unchanged: the batch only answers their calls.
//
// Every batch is kept in the run folder's batches.json as it is
// submitted, so that a resume of a run stopped while one was in flight
// picks it up (polls and reads it) instead of submitting its calls again.
type Batch struct {
	// Local runs each round's judgements (its Units, its Limit).
	Local Local
	// Batch is the model client's batch (llm.Client.Batch).
	Batch *llm.Batch
	// Dir is the run folder, where batches.json is kept.
	Dir string
	// Log gets how the batches go; Now is the clock of their times.
	Log io.Writer
	Now func() time.Time
}

// MaxBatchRounds bounds a batch run's rounds: a judge's chain of
// dependent calls (claims, verdicts, a repair) is a few long, and a run
// still missing replies after so many has a judge whose calls differ each
// time it runs, which no batch can answer.
const MaxBatchRounds = 16

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
	// Status is the last the server said (llm.BatchStatus.Status), or
	// batchLost.
	Status string `json:"status"`
}

// batchLost is the status of a batch that the server no longer knew
// when a resume picked it up (a 404 for it or its files): its calls went
// in a new batch, and it is not asked for again.
const batchLost = "lost"

// unknownBatch reports whether err says the server does not know a
// batch or one of its files (a 404 or 410).
func unknownBatch(err error) bool {
	var se *llm.StatusError
	return errors.As(err, &se) && (se.Code == http.StatusNotFound || se.Code == http.StatusGone)
}

// serverSays is what the server answered in err: its status and message.
func serverSays(err error) string {
	var se *llm.StatusError
	if errors.As(err, &se) {
		return strings.TrimSpace(fmt.Sprintf("status %d: %s", se.Code, se.Message))
	}
	return err.Error()
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
		if msg := badBatchID(e.ID); msg != "" {
			return batchBook{}, &eval.InputError{File: path, Field: fmt.Sprintf("batches[%d].id", i), Msg: msg}
		}
	}
	return b, nil
}

// badBatchID says what is wrong with id as a batch's id, "" for nothing:
// it goes in the path of the server's URL (/v1/batches/ID), so it must be
// one segment of it, with nothing a URL or a terminal reads otherwise.
func badBatchID(id string) string {
	switch {
	case id == "":
		return "missing"
	case id == "." || id == ".." || strings.ContainsAny(id, "/\\?#%") || strings.ContainsFunc(id, func(r rune) bool { return unicode.IsSpace(r) || termtext.Hidden(r) }):
		return fmt.Sprintf("%q is not a batch id: one segment of a URL path, with no /, \\, ?, #, %%, space or control character", id)
	}
	return ""
}

// Dispatch judges the items in rounds of batches; items is read again
// each round, and a record is done once none of its judgements waits
// for a batch. The items of the first round that are still due are the
// ones a later round may run, those waiting on a batch.
func (b *Batch) Dispatch(ctx context.Context, items iter.Seq2[Item, error], deliver func(Result) error) error {
	book, err := readBatches(b.Dir)
	if err != nil {
		return err
	}
	round := 0
	for i, e := range book.Batches {
		round = max(round, e.Round)
		if e.Status == batchLost {
			continue
		}
		// A batch of an earlier attempt: in flight, it is waited for; done,
		// its replies are read again, so that none is paid twice.
		fmt.Fprintf(b.Log, "bench: picking up batch %s (round %d, %d call(s), %s when last seen)\n", termtext.Visible(e.ID), e.Round, e.Calls, termtext.Visible(e.Status))
		err := b.finish(ctx, &book, i)
		if unknownBatch(err) && ctx.Err() == nil {
			// Its calls, unknown here, are recorded again when made: they go
			// in the next batch.
			book.Batches[i].Status = batchLost
			if err := b.save(&book); err != nil {
				return err
			}
			fmt.Fprintf(b.Log, "bench: the server does not know batch %s (%s): its calls go in a new batch\n", termtext.Visible(e.ID), termtext.Visible(serverSays(err)))
			continue
		}
		if err != nil {
			return err
		}
	}
	r := &rounds{}
	local := Local{Units: make([]Unit, len(b.Local.Units)), Limit: b.Local.Limit}
	for i, u := range b.Local.Units {
		local.Units[i] = r.unit(i, u)
	}
	for {
		round++
		err := local.Dispatch(ctx, r.items(items), func(res Result) error {
			res.RecordDone = res.RecordDone && !r.waiting(res.Item.Record.ID)
			return deliver(res)
		})
		if err != nil {
			return err
		}
		n := b.Batch.Pending()
		if n == 0 {
			return nil
		}
		if round >= MaxBatchRounds {
			return fmt.Errorf("--batch: after %d rounds, %d call(s) still have no reply: a judge asks for other calls each time it runs, which no batch can answer; judge without --batch (--resume keeps what was judged)", round, n)
		}
		r.next()
		if err := b.submit(ctx, &book, round); err != nil {
			return err
		}
	}
}

// submit sends the round's recorded calls as batches, as many as it
// takes (a batch holds so many calls), keeps each in the book, and waits
// for them.
func (b *Batch) submit(ctx context.Context, book *batchBook, round int) error {
	first := len(book.Batches)
	for b.Batch.Pending() > 0 {
		st, err := b.Batch.Submit(ctx)
		if err != nil {
			return err
		}
		if msg := badBatchID(st.ID); msg != "" {
			// Kept, it would make batches.json unreadable for every resume.
			return fmt.Errorf("the server made a batch of %d call(s) whose id cannot be polled: %s", st.Total, msg)
		}
		book.Batches = append(book.Batches, batchEntry{ID: st.ID, Round: round, Calls: st.Total, Submitted: b.Now().UTC(), Status: st.Status})
		if err := b.save(book); err != nil {
			return err
		}
		fmt.Fprintf(b.Log, "bench: round %d: %d call(s) sent in batch %s\n", round, st.Total, termtext.Visible(st.ID))
	}
	for i := first; i < len(book.Batches); i++ {
		if err := b.finish(ctx, book, i); err != nil {
			return err
		}
	}
	return nil
}

// rounds says which judgements a batch run runs in a round: in the
// first, every one due; in each later one, those that made a call the
// last round's batch was to answer. It holds only the judgements waiting
// on a batch. It is safe for concurrent use.
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

// unit is the i-th unit u in a batch run: a judgement that made a call
// the batch has no reply for yet brings no results, whatever its judge
// made of the error, and waits for the next round.
func (r *rounds) unit(i int, u Unit) Unit {
	return Unit{Metrics: u.Metrics, Judge: func(ctx context.Context, s eval.Sample) ([]eval.Score, error) {
		ctx, p := llm.WatchPending(ctx, s.ID+"\x00"+strconv.Itoa(i))
		scores, err := u.Judge(ctx, s)
		if p.Count() > 0 {
			r.mu.Lock()
			if r.wait == nil {
				r.wait = map[pairOf]struct{}{}
			}
			r.wait[pairOf{s.ID, i}] = struct{}{}
			r.mu.Unlock()
			return nil, nil
		}
		return scores, err
	}}
}

// items are the items of the round among all.
func (r *rounds) items(all iter.Seq2[Item, error]) iter.Seq2[Item, error] {
	r.mu.Lock()
	now := r.now
	r.mu.Unlock()
	return func(yield func(Item, error) bool) {
		for it, err := range all {
			if err == nil && now != nil {
				if _, ok := now[pairOf{it.Record.ID, it.Unit}]; !ok {
					continue
				}
			}
			if !yield(it, err) {
				return
			}
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
func (b *Batch) finish(ctx context.Context, book *batchBook, i int) error {
	e := &book.Batches[i]
	last := ""
	st, err := b.Batch.Wait(ctx, e.ID, func(st llm.BatchStatus) {
		now := fmt.Sprintf("%s, %d of %d call(s) done", termtext.Visible(st.Status), st.Completed+st.Failed, st.Total)
		if st.Failed > 0 {
			now += fmt.Sprintf(" (%d failed)", st.Failed)
		}
		if now == last {
			return
		}
		last = now
		fmt.Fprintf(b.Log, "bench: batch %s: %s\n", termtext.Visible(e.ID), now)
		if st.Status != e.Status {
			e.Status = st.Status
			// Kept for --resume; a write that fails now is tried again at the
			// next change, and the batch is polled all the same.
			_ = b.save(book)
		}
	})
	if err != nil && ctx.Err() == nil && !unknownBatch(err) {
		return fmt.Errorf("%w (%s keeps the batch: --resume picks it up)", err, FileBatches)
	}
	if err != nil {
		return err
	}
	e.Status = st.Status
	if err := b.save(book); err != nil {
		return err
	}
	rd, err := b.Batch.Read(ctx, st)
	if err != nil {
		return err
	}
	if st.Status != llm.BatchCompleted {
		why := append(st.Errors, rd.Errors...)
		reason := ""
		if len(why) > 0 {
			reason = ": " + strings.Join(why, "; ")
		}
		fmt.Fprintf(b.Log, "bench: batch %s %s%s; %d call(s) answered, %d to send directly\n", termtext.Visible(e.ID), termtext.Visible(st.Status), termtext.Visible(reason), rd.Answered, rd.Direct)
	} else if rd.Direct > 0 {
		fmt.Fprintf(b.Log, "bench: batch %s: %d call(s) failed in it (%s); they are sent directly\n", termtext.Visible(e.ID), rd.Direct, termtext.Visible(strings.Join(rd.Errors, "; ")))
	}
	if rd.Stray > 0 {
		fmt.Fprintf(b.Log, "bench: batch %s: %d line(s) of its files name no call of it; they are ignored\n", termtext.Visible(e.ID), rd.Stray)
	}
	return nil
}

// save writes batches.json whole (atomicfile).
func (b *Batch) save(book *batchBook) error {
	return atomicfile.WriteJSON(filepath.Join(b.Dir, FileBatches), book)
}
