package llm

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/assaylabs/assay/eval"
)

// ErrBatchPending is the error of a call that a batch run's Client
// (Config.Batch) has no reply for yet: the call is kept for the next
// batch (Batch.Submit), and whoever made it runs again once the batch is
// read back (Batch.Read). Test with errors.Is; WatchPending tells a caller
// whose judge may have hidden it.
var ErrBatchPending = errors.New("llm: the call waits for its batch")

// BatchAPI is a backend's batch endpoint: OpenAI's /v1/files and
// /v1/batches, which answer a file of calls within a day at a discount.
// llm/openai's Backend implements it.
type BatchAPI interface {
	// SubmitBatch uploads calls as one batch input file and creates the
	// batch; the status has its id. Calls past the endpoint's limits on
	// a batch are refused with a *BatchTooLargeError, nothing sent.
	SubmitBatch(ctx context.Context, calls []BatchCall) (BatchStatus, error)
	// RetrieveBatch is the batch's status now.
	RetrieveBatch(ctx context.Context, id string) (BatchStatus, error)
	// BatchReplies reads an ended batch's output and error files: one
	// BatchReply for each call they name.
	BatchReplies(ctx context.Context, st BatchStatus) ([]BatchReply, error)
}

// BatchTooLargeError is SubmitBatch refusing calls past its endpoint's
// limits on a batch (OpenAI's: 50,000 requests, a 200 MB input file)
// before sending anything: only the first Fits of them fit in one batch.
// Batch.Submit then submits those, and the rest in the next batch.
type BatchTooLargeError struct {
	Calls, Fits int
	// Limit says which limit the calls pass.
	Limit string
}

func (e *BatchTooLargeError) Error() string {
	return fmt.Sprintf("%d call(s) are past a batch's limit (%s): %d fit in one", e.Calls, e.Limit, e.Fits)
}

// BatchCall is one call of a batch: ID is its custom_id, by which its
// reply is matched.
type BatchCall struct {
	ID      string
	Request Request
}

// BatchStatus is what the server says of a batch.
type BatchStatus struct {
	ID string `json:"id"`
	// Status is the server's: validating, in_progress, finalizing,
	// completed, failed, expired, cancelling or cancelled.
	Status string `json:"status"`
	// Total, Completed and Failed count the batch's calls.
	Total     int `json:"total"`
	Completed int `json:"completed"`
	Failed    int `json:"failed"`
	// OutputFile and ErrorFile are the ids of the files of replies and of
	// failed calls, once there are any.
	OutputFile string `json:"output_file,omitempty"`
	ErrorFile  string `json:"error_file,omitempty"`
	// Errors say why a batch failed (its input refused, say).
	Errors []string `json:"errors,omitempty"`
}

// Batch statuses the server gives that end a batch.
const (
	BatchCompleted = "completed"
	BatchFailed    = "failed"
	BatchExpired   = "expired"
	BatchCancelled = "cancelled"
)

// Ended reports whether the batch will not change any more.
func (s BatchStatus) Ended() bool {
	switch s.Status {
	case BatchCompleted, BatchFailed, BatchExpired, BatchCancelled:
		return true
	}
	return false
}

// BatchReply is the outcome of one call of a batch, matched by ID. A call
// the server answered has its Response (usage as the server counted it),
// and Err when the answer is no reply (a refusal). A call that failed in
// the batch (Failed: an error status, expired with its batch, or an
// empty reply to be asked again) has Err saying why, and the usage the
// server billed for it, if any, in Response.Usage.
type BatchReply struct {
	ID       string
	Response Response
	Err      error
	Failed   bool
}

// BatchPolicy is how a batch's status is polled. Zero fields take the
// defaults in brackets.
type BatchPolicy struct {
	// Poll is the first wait between two polls [5s]; each wait is twice
	// the last, up to MaxPoll [1m].
	Poll, MaxPoll time.Duration
	// MaxFailing bounds how long polls may fail in a row for a reason
	// that passes (a 503, a 429) before the wait ends [15m]; MaxWait,
	// how long a batch is waited for [25h: its 24-hour window and an
	// hour]. Both are counted in the waits between polls.
	MaxFailing, MaxWait time.Duration
	// Sleep waits d or until ctx ends (its error then); nil is a timer.
	// Tests drive the server's batches from it.
	Sleep func(ctx context.Context, d time.Duration) error
}

func (p BatchPolicy) withDefaults() BatchPolicy {
	if p.Poll <= 0 {
		p.Poll = 5 * time.Second
	}
	if p.MaxPoll <= 0 {
		p.MaxPoll = time.Minute
	}
	p.MaxPoll = max(p.MaxPoll, p.Poll)
	if p.MaxFailing <= 0 {
		p.MaxFailing = 15 * time.Minute
	}
	if p.MaxWait <= 0 {
		p.MaxWait = 25 * time.Hour
	}
	if p.Sleep == nil {
		p.Sleep = sleep
	}
	return p
}

// BatchReport is what a batch run's batches did.
type BatchReport struct {
	// Batches were submitted or picked up, holding Calls calls, of which
	// Answered came back answered.
	Batches  int `json:"batches"`
	Calls    int `json:"calls"`
	Answered int `json:"answered"`
	// Failed counts the batches that did not complete (failed, expired,
	// cancelled), and Direct the calls no batch answered, which were
	// sent the normal way instead.
	Failed int `json:"failed,omitempty"`
	Direct int `json:"direct,omitempty"`
}

// Batch is a batch run's book of replies: a Client given one
// (Config.Batch) answers each call from it, or records the call as a miss
// and returns ErrBatchPending. Submit sends the misses as one batch, Wait
// polls it until it ends and Read fills the book from its files; the
// calls it did not answer go the normal way when made again. A run goes
// in rounds: judge, submit the misses, wait, read, judge again, until a
// round has no miss. It is safe for concurrent use.
type Batch struct {
	api    BatchAPI
	policy BatchPolicy

	mu      sync.Mutex
	replies map[string]*batchReply
	direct  map[string]bool
	// billed is the usage of the calls whose batch reply the server
	// billed but that was no answer (an empty one), until the call sent
	// again the normal way carries it.
	billed map[string]eval.Usage
	misses map[string]Request
	// owners are the judgements that recorded each call, until its
	// reply is in.
	owners map[string]string
	// sent are the keys of the batches this process submitted and has
	// not read yet, by batch id.
	sent   map[string][]string
	report BatchReport
}

// batchReply is a reply in the book: a batch's, or one sent the normal
// way. usage is what it cost, priced, nil until a batch's is first handed
// out; owner is the judgement that asked for it, whose every run gets
// its usage: the one that recorded it, else the first it is handed to
// (owned says it is known).
type batchReply struct {
	r     Response
	err   error
	usage eval.Usage
	paid  bool
	owner string
	owned bool
}

// NewBatch returns an empty book whose batches go to api.
func NewBatch(api BatchAPI, p BatchPolicy) *Batch {
	return &Batch{api: api, policy: p.withDefaults(), replies: map[string]*batchReply{}, direct: map[string]bool{}, billed: map[string]eval.Usage{},
		misses: map[string]Request{}, owners: map[string]string{}, sent: map[string][]string{}}
}

// batchState is what the book holds for a call.
type batchState int

const (
	batchMissing batchState = iota // no reply yet: a miss
	batchFirst                     // a reply, handed out the first time
	batchAgain                     // a reply handed out before
	batchDirect                    // no batch answered it: send it
)

// take is the book's answer to the call of key made by the judgement
// owner: its reply (priced by price the first time it is handed out,
// batchFirst), and whether it is owner's to pay for; or a miss recorded
// (req kept for the next batch); or that it goes the normal way.
func (b *Batch) take(key string, req Request, owner string, price func(Response, error) eval.Usage) (got batchReply, st batchState, mine bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if r, ok := b.replies[key]; ok {
		st = batchAgain
		if !r.paid {
			r.paid, r.usage, st = true, price(r.r, r.err), batchFirst
		}
		if !r.owned {
			r.owner, r.owned = owner, true
		}
		return *r, st, r.owner == owner
	}
	if b.direct[key] {
		// What the batch billed for it, handed out once.
		u := b.billed[key]
		delete(b.billed, key)
		return batchReply{r: Response{Usage: u}}, batchDirect, false
	}
	req.Check = nil // a function: the batch needs only what is sent
	b.misses[key] = req
	if _, ok := b.owners[key]; !ok {
		b.owners[key] = owner
	}
	return batchReply{}, batchMissing, false
}

// holds reports whether the book has a reply for the call of key.
func (b *Batch) holds(key string) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	_, ok := b.replies[key]
	return ok
}

// keep puts r, the reply of the call of key sent the normal way by the
// judgement owner, in the book, paid.
func (b *Batch) keep(key string, r Response, owner string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if _, ok := b.replies[key]; !ok {
		b.replies[key] = &batchReply{r: r, usage: r.Usage, paid: true, owner: owner, owned: true}
	}
}

// Pending is the number of calls recorded for the next batch.
func (b *Batch) Pending() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return len(b.misses)
}

// Submit sends the calls recorded so far as one batch, in the order of
// their keys, and returns its status (Total the calls sent). Nothing
// recorded submits nothing (a zero status). When they are more than a
// batch takes (a *BatchTooLargeError), the first that fit are sent, and
// the rest stay recorded for the next Submit. When the batch cannot be
// created the calls stay recorded and the error says why.
func (b *Batch) Submit(ctx context.Context) (BatchStatus, error) {
	b.mu.Lock()
	keys := slices.Sorted(maps.Keys(b.misses))
	calls := make([]BatchCall, len(keys))
	for i, k := range keys {
		calls[i] = BatchCall{ID: k, Request: b.misses[k]}
	}
	b.mu.Unlock()
	if len(calls) == 0 {
		return BatchStatus{}, nil
	}
	st, err := b.api.SubmitBatch(ctx, calls)
	if tl, ok := errors.AsType[*BatchTooLargeError](err); ok && tl.Fits > 0 && tl.Fits < len(calls) {
		keys, calls = keys[:tl.Fits], calls[:tl.Fits]
		st, err = b.api.SubmitBatch(ctx, calls)
	}
	if err != nil {
		return st, fmt.Errorf("submitting a batch of %d call(s): %w", len(calls), err)
	}
	if st.Total == 0 {
		st.Total = len(calls) // not counted yet while it is validated
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, k := range keys {
		delete(b.misses, k)
	}
	b.sent[st.ID] = keys
	b.report.Batches++
	b.report.Calls += len(keys)
	return st, nil
}

// Wait polls the batch id until it ends, waiting the policy's Poll
// between polls, twice as long each time up to MaxPoll, and returns its
// last status. progress, when set, gets every status polled. A poll that
// fails for a reason that passes (Temporary) is tried again at the next
// one, until polls have failed for MaxFailing in a row; another error,
// ctx's end, or a batch still not ended after MaxWait ends the wait with
// an error.
func (b *Batch) Wait(ctx context.Context, id string, progress func(BatchStatus)) (BatchStatus, error) {
	var last BatchStatus
	waited, err := b.retry(ctx, "polling batch "+id, "poll", b.policy.MaxWait, func() (bool, error) {
		st, err := b.api.RetrieveBatch(ctx, id)
		if err != nil {
			return false, err
		}
		last = st
		if progress != nil {
			progress(st)
		}
		return st.Ended(), nil
	})
	if errors.Is(err, errWaitedOut) {
		return last, fmt.Errorf("batch %s: still %s after %s of polling: stopped waiting for it", id, cmp.Or(last.Status, "unknown"), waited)
	}
	return last, err
}

// errWaitedOut is retry's error when maxWait has been waited.
var errWaitedOut = errors.New("waited out")

// retry calls try until it is done, waiting between calls as polls
// wait (Poll, doubling up to MaxPoll): a failure that passes (Temporary)
// is tried again until tries have failed for MaxFailing in a row; any
// other failure, or ctx's end, ends it, as does errWaitedOut once the
// waits reach maxWait. doing names the work in its errors, a try the
// attempt ("every poll failed"). waited is the time waited.
func (b *Batch) retry(ctx context.Context, doing, a string, maxWait time.Duration, try func() (done bool, err error)) (waited time.Duration, err error) {
	d := b.policy.Poll
	var failing time.Duration // since the last try that did not fail
	for {
		done, err := try()
		switch {
		case err == nil:
			if done {
				return waited, nil
			}
			failing = 0
		case ctx.Err() != nil:
			return waited, ctx.Err()
		case !Temporary(err):
			return waited, fmt.Errorf("%s: %w", doing, err)
		case failing >= b.policy.MaxFailing:
			return waited, fmt.Errorf("%s: every %s failed for %s: %w", doing, a, failing, err)
		}
		if waited >= maxWait {
			return waited, errWaitedOut
		}
		if serr := b.policy.Sleep(ctx, d); serr != nil {
			return waited, serr
		}
		waited += d
		if err != nil {
			failing += d
		}
		d = min(2*d, b.policy.MaxPoll)
	}
}

// BatchRead is what reading an ended batch put in the book.
type BatchRead struct {
	// Answered calls have their replies; Direct ones go the normal way
	// when made again (failed in the batch, or left unanswered by one
	// that did not complete); Errors are the first reasons of the
	// failed calls, at most three. Stray counts the lines of a batch this
	// process submitted that name no call of it, which are ignored.
	Answered, Direct, Stray int
	Errors                  []string
}

// Read puts the replies of st, an ended batch, in the book; its files
// are read again after a failure that passes, as Wait polls. The calls of
// a batch this process submitted that came back with no reply, and every
// call named as failed, go the normal way when made again. A batch picked
// up from an earlier process (its calls unknown here) is read the same
// way: its calls with no reply are recorded again when made, as misses.
func (b *Batch) Read(ctx context.Context, st BatchStatus) (BatchRead, error) {
	replies, err := b.readFiles(ctx, st)
	if err != nil {
		return BatchRead{}, err
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	keys, mine := b.sent[st.ID]
	var ours map[string]bool
	if mine {
		ours = make(map[string]bool, len(keys))
		for _, k := range keys {
			ours[k] = true
		}
	}
	var out BatchRead
	for _, r := range replies {
		if mine && !ours[r.ID] {
			out.Stray++
			continue
		}
		if r.Failed {
			if len(out.Errors) < 3 && r.Err != nil {
				out.Errors = append(out.Errors, r.Err.Error())
			}
			if _, ok := b.replies[r.ID]; !ok && !b.direct[r.ID] {
				b.direct[r.ID] = true
				out.Direct++
				if u := r.Response.Usage; u.TokensIn > 0 || u.TokensOut > 0 {
					b.billed[r.ID] = u
				}
			}
			delete(b.owners, r.ID)
			continue
		}
		if _, ok := b.replies[r.ID]; ok {
			continue // read before (a batch picked up twice)
		}
		owner, owned := b.owners[r.ID]
		b.replies[r.ID] = &batchReply{r: r.Response, err: r.Err, owner: owner, owned: owned}
		delete(b.owners, r.ID)
		delete(b.direct, r.ID)
		out.Answered++
	}
	delete(b.sent, st.ID)
	lineless := 0
	for _, k := range keys {
		if _, ok := b.replies[k]; !ok && !b.direct[k] {
			b.direct[k] = true
			out.Direct++
			lineless++
		}
		delete(b.owners, k)
	}
	if lineless > 0 && st.Status == BatchCompleted && len(out.Errors) < 3 {
		// A batch that did not complete leaves calls unanswered; one that
		// did should name each call in a file.
		out.Errors = append(out.Errors, fmt.Sprintf("no line for %d call(s) in the batch's files", lineless))
	}
	if !mine {
		b.report.Batches++
		b.report.Calls += st.Total
	}
	b.report.Answered += out.Answered
	b.report.Direct += out.Direct
	if st.Status != BatchCompleted {
		b.report.Failed++
	}
	return out, nil
}

// readFiles reads st's files, as Wait polls: a read that fails for a
// reason that passes (Temporary) is tried again after a wait, until reads
// have failed for MaxFailing.
func (b *Batch) readFiles(ctx context.Context, st BatchStatus) ([]BatchReply, error) {
	var replies []BatchReply
	_, err := b.retry(ctx, "reading batch "+st.ID, "read", time.Duration(math.MaxInt64), func() (bool, error) {
		var err error
		replies, err = b.api.BatchReplies(ctx, st)
		return err == nil, err
	})
	if err != nil {
		return nil, err
	}
	return replies, nil
}

// Report is what the batches did so far.
func (b *Batch) Report() BatchReport {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.report
}

// Pending counts the calls that got ErrBatchPending under a context of
// WatchPending, whatever their caller made of the error.
type Pending struct {
	n     atomic.Int64
	owner string
}

type pendingKey struct{}

// WatchPending returns ctx carrying a count of the calls made under it
// that a batch run's Client had no reply for: a judge that turned the
// error into a neutral default was not judged, and is run again after
// the batch. owner names the judgement (a sample and its metric): the
// replies to the calls it records are its to pay for, so each of its
// runs gets their usage, and the run whose results are kept carries
// what they cost.
func WatchPending(ctx context.Context, owner string) (context.Context, *Pending) {
	p := &Pending{owner: owner}
	return context.WithValue(ctx, pendingKey{}, p), p
}

// owner is the judgement ctx's calls are made for, "" for none.
func owner(ctx context.Context) string {
	if p, ok := ctx.Value(pendingKey{}).(*Pending); ok {
		return p.owner
	}
	return ""
}

// Count is the number of calls that were missed.
func (p *Pending) Count() int { return int(p.n.Load()) }

// missed counts a missed call on ctx's Pending, if it has one.
func missed(ctx context.Context) {
	if p, ok := ctx.Value(pendingKey{}).(*Pending); ok {
		p.n.Add(1)
	}
}
