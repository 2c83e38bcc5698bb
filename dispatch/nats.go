package dispatch

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"iter"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/assaylabs/assay/dataset"
	"github.com/assaylabs/assay/eval"
	"github.com/assaylabs/assay/queue"
	"github.com/assaylabs/assay/run"
)

// NATS hands the items out as tasks of a NATS JetStream queue (the queue
// package), to workers in this process and elsewhere (Worker), and
// collects their replies: one task per item, named by TaskID, so that a
// coordinator started again publishes none twice and takes the replies
// stored meanwhile. The run's configuration goes into the queue's bucket
// as its specification, which each worker builds its plan from.
type NATS struct {
	// Config is the run's configuration (run.Run.Config); Dir its folder,
	// under which the embedded NATS server keeps its store (FileNATS).
	Config run.Config
	Dir    string
	// Units are the plan's units: a task's reply must be its unit's
	// results.
	Units []Unit
	// URL is an existing NATS server to use, with Token; without it a NATS
	// server is embedded, listening on Cluster for remote workers when set.
	URL, Cluster, Token string
	// StallTimeout ends a dispatch that gets no reply for this long with a
	// *StalledError; 0 waits for ever. After is its timer (nil:
	// time.After).
	StallTimeout time.Duration
	After        func(time.Duration) <-chan time.Time
	// Resume is the command that resumes the run, for StalledError.
	Resume string
	// Workers, when set, are the settings of the workers to run in this
	// process on conn; closeAll closes their model clients once they
	// stopped.
	Workers func(conn *queue.Conn) (cfgs []queue.WorkerConfig, closeAll func(), err error)
	// WorkerLLM is the --llm a remote worker is told to give; Log gets
	// where the embedded server listens.
	WorkerLLM string
	Log       io.Writer
}

// FileNATS is the folder of a run's embedded NATS server's store.
const FileNATS = "nats"

// queued is a task the coordinator waits for: its item, whose record
// keeps its id and line only (not the sample), so that a run of any size
// waits in little memory.
type queued struct {
	item Item
}

// Dispatch publishes a task per item not replied to yet, starts the
// in-process workers, and delivers each reply as it is stored, until
// every task has its reply (or ctx is done). A reply whose task ran out
// of deliveries is its unit's neutral defaults, marked Undelivered. The
// record of a Result's item has its id and line only.
func (n *NATS) Dispatch(ctx context.Context, items iter.Seq2[Item, error], deliver func(Result) error) error {
	nc, closeConn, err := n.connect()
	if err != nil {
		return err
	}
	defer closeConn()
	conn, err := queue.Open(ctx, nc, queue.Options{})
	if err != nil {
		return err
	}
	spec, err := json.Marshal(n.Config)
	if err != nil {
		return err
	}
	if err := conn.PutSpec(ctx, n.Config.RunID, spec); err != nil {
		return err
	}
	pending, left, err := n.publish(ctx, conn, items)
	if err != nil {
		return err
	}
	if len(pending) == 0 {
		return nil
	}
	cfgs, closeWorkers := []queue.WorkerConfig(nil), func() {}
	if n.Workers != nil {
		if cfgs, closeWorkers, err = n.Workers(conn); err != nil {
			return err
		}
	}
	defer closeWorkers() // after they stopped: wg.Wait, deferred later, runs first
	wctx, stop := context.WithCancelCause(ctx)
	var wg sync.WaitGroup
	defer wg.Wait()
	defer stop(nil)
	wg.Go(func() {
		if err := conn.RecordUndelivered(wctx, n.Config.RunID); err != nil {
			stop(err)
		}
	})
	for _, wcfg := range cfgs {
		wg.Go(func() {
			if err := conn.Work(wctx, wcfg); err != nil {
				stop(fmt.Errorf("in-process worker: %w", err))
			}
		})
	}
	replies, err := conn.Watch(wctx, n.Config.RunID)
	if err != nil {
		return err
	}
	return n.collect(ctx, wctx, conn, replies, pending, left, deliver)
}

// connect connects to the queue's server: the one at URL, or one
// embedded in this process, saying where remote workers find it.
func (n *NATS) connect() (*nats.Conn, func(), error) {
	name := "assay bench " + n.Config.RunID
	if n.URL != "" {
		nc, err := queue.Dial(n.URL, n.Token, name)
		if err != nil {
			return nil, nil, err
		}
		return nc, nc.Close, nil
	}
	srv, err := queue.StartServer(queue.ServerConfig{StoreDir: filepath.Join(n.Dir, FileNATS), Listen: n.Cluster, Token: n.Token})
	if err != nil {
		return nil, nil, err
	}
	nc, err := srv.Connect(name)
	if err != nil {
		srv.Close()
		return nil, nil, err
	}
	if u := srv.URL(); u != "" {
		tok := ""
		if n.Token != "" {
			tok = " --token " + n.Token
		}
		fmt.Fprintf(n.Log, "bench: NATS listening on %s; on each machine with a model, run: assay worker %s%s --llm %s\n", u, u, tok, n.WorkerLLM)
	}
	return nc, func() { nc.Close(); srv.Close() }, nil
}

// collect delivers each reply of a pending task as it comes, until none
// is pending, the run stalls, or wctx is done.
func (n *NATS) collect(ctx, wctx context.Context, conn *queue.Conn, replies <-chan queue.Reply, pending map[string]queued, left map[string]int, deliver func(Result) error) error {
	stalled := n.stallTimer()
	for len(pending) > 0 {
		var r queue.Reply
		select {
		case <-wctx.Done():
			if err := context.Cause(wctx); ctx.Err() == nil && err != nil {
				return err
			}
			return nil // interrupted: the run says so, and a resume goes on
		case <-stalled:
			return n.stallError(ctx, conn, pending, len(left))
		case r = <-replies:
		}
		t, ok := pending[r.Task]
		if !ok {
			continue // an earlier attempt's, in results.jsonl already
		}
		delete(pending, r.Task)
		stalled = n.stallTimer()
		id := t.item.Record.ID
		left[id]--
		done := left[id] == 0
		if done {
			delete(left, id)
		}
		if err := deliver(Result{Item: t.item, Results: replyResults(r, id, n.Units[t.item.Unit]), RecordDone: done}); err != nil {
			return err
		}
	}
	return nil
}

// publish publishes a task for each item whose reply is not stored yet,
// keyed by its sample's conversation when it has one (all its tasks go to
// one worker), and returns every item's task (stored or not) by id, with
// how many each record has.
func (n *NATS) publish(ctx context.Context, conn *queue.Conn, items iter.Seq2[Item, error]) (map[string]queued, map[string]int, error) {
	version := JudgeVersion(n.Config)
	replied, err := conn.Replied(ctx, n.Config.RunID)
	if err != nil {
		return nil, nil, err
	}
	pending, left := map[string]queued{}, map[string]int{}
	var tasks []queue.Outgoing
	flush := func() error {
		_, err := conn.PublishTasks(ctx, tasks)
		tasks = tasks[:0]
		return err
	}
	for it, err := range items {
		if err != nil {
			return nil, nil, err
		}
		if it.Unit < 0 || it.Unit >= len(n.Units) {
			return nil, nil, fmt.Errorf("record %s: the plan has no unit %d", it.Record.ID, it.Unit)
		}
		u, rec := n.Units[it.Unit], it.Record
		id := TaskID(n.Config.RunID, rec.ID, u.Metrics, version, it.Tries)
		pending[id] = queued{item: Item{Record: dataset.Record{ID: rec.ID, Line: rec.Line}, Unit: it.Unit, Tries: it.Tries}}
		left[rec.ID]++
		if replied[id] {
			continue
		}
		b, err := json.Marshal(taskBody{Unit: it.Unit, Metrics: u.Metrics, Version: version, Sample: rec.Sample})
		if err != nil {
			return nil, nil, fmt.Errorf("record %s (line %d): %w", rec.ID, rec.Line, err)
		}
		tasks = append(tasks, queue.Outgoing{Run: n.Config.RunID, ID: id, Conversation: Conversation(rec.Sample), Body: b})
		if len(tasks) == 512 {
			if err := flush(); err != nil {
				return nil, nil, err
			}
		}
	}
	if err := flush(); err != nil {
		return nil, nil, err
	}
	return pending, left, nil
}

// replyResults are the results reply r brings for the sample id of unit
// u: a worker's, checked to be the unit's on that sample, or neutral
// defaults saying why there are none (its deliveries ran out, or the
// reply was not one).
func replyResults(r queue.Reply, id string, u Unit) []run.Result {
	var results []run.Result
	why := r.Err
	if r.Undelivered == 0 {
		err := json.Unmarshal(r.Results, &results)
		switch {
		case err != nil:
			why = "a worker's reply did not read: " + err.Error()
		case !slices.EqualFunc(results, u.Metrics, func(res run.Result, m string) bool { return res.ID == id && res.Metric == m }):
			why = fmt.Sprintf("a worker's reply is not the results of %s on sample %s", strings.Join(u.Metrics, ", "), id)
		default:
			return results
		}
	}
	out := make([]run.Result, len(u.Metrics))
	for i, m := range u.Metrics {
		out[i] = run.Result{ID: id, Metric: m, Value: 0.5, Method: "queue", Defaulted: true, Undelivered: max(r.Undelivered, 1),
			Reason: "not judged: the queue gave up on its task", Error: eval.Clip("undelivered: "+why, eval.MaxText)}
	}
	return out
}

// stallTimer fires when a dispatch has waited StallTimeout for its next
// reply; nil (never) without a bound.
func (n *NATS) stallTimer() <-chan time.Time {
	if n.StallTimeout <= 0 {
		return nil
	}
	if n.After != nil {
		return n.After(n.StallTimeout)
	}
	return time.After(n.StallTimeout)
}

// StalledError is a queued run that got no reply for NATS.StallTimeout
// (--stall-timeout): what it lacks, what the queue held then, and the
// command that resumes it. The run ends as an interrupted one (exit 3),
// its results so far summarized.
type StalledError struct {
	Timeout time.Duration
	// Tasks, Pairs and Records have no reply yet.
	Tasks, Pairs, Records int
	// Backlog is the queue's state then; nil when it could not be read.
	Backlog *queue.Backlog
	// Refusals are the workers that refused the run's tasks, and why.
	Refusals []queue.Refusal
	// Resume is the command that resumes the run.
	Resume string
}

func (e *StalledError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "no reply from the queue's workers for %v (--stall-timeout): %d task(s) without one, %d pair(s) of %d record(s)",
		e.Timeout, e.Tasks, e.Pairs, e.Records)
	if bl := e.Backlog; bl != nil {
		fmt.Fprintf(&b, "; the queue holds %d task(s) no worker has taken and %d handed out and not done (in a worker's hands, or given back to be delivered again), "+
			"%d worker(s) taking tasks, %d worker fetch(es) waiting", bl.Waiting, bl.Unacked, bl.Workers, bl.Idle)
		if !bl.Joined {
			b.WriteString("; no worker has ever joined the queue: start one (assay worker NATS_URL)")
		} else if bl.Workers == 0 && bl.Idle == 0 {
			b.WriteString("; no worker is taking tasks now: are the workers running, and their model servers up?")
		}
	}
	for _, r := range e.Refusals {
		fmt.Fprintf(&b, "; the workers of %s refused the run: %s", r.Endpoint, r.Reason)
	}
	fmt.Fprintf(&b, "; resume with: %s", e.Resume)
	return b.String()
}

// stallError is the StalledError of a dispatch that waits for pending.
func (n *NATS) stallError(ctx context.Context, conn *queue.Conn, pending map[string]queued, records int) error {
	e := &StalledError{Timeout: n.StallTimeout, Tasks: len(pending), Records: records, Resume: n.Resume}
	for _, t := range pending {
		e.Pairs += len(n.Units[t.item.Unit].Metrics)
	}
	bctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	if bl, err := conn.Backlog(bctx); err == nil {
		e.Backlog = &bl
	}
	if rs, err := conn.Refusals(bctx, n.Config.RunID); err == nil {
		e.Refusals = rs
	}
	return e
}
