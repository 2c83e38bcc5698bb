package queue

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/cenkalti/backoff/v4"
	"github.com/nats-io/nats.go/jetstream"
)

// Task is one work item as a worker gets it.
type Task struct {
	ID, Run string
	// Key is the key of the task's reply in Bucket.
	Key  string
	Body []byte
	// Delivery is which delivery of the task this is, from 1; Last says
	// it is the last one MaxDeliver allows.
	Delivery int
	Last     bool
}

// Handler does a task and returns its results (JSON), or an error, after
// which the task is delivered again (to this worker or another) until
// its deliveries run out. An error that wraps ErrRefused stops the
// worker instead, leaving the task to others.
type Handler func(ctx context.Context, t Task) ([]byte, error)

// ErrRefused is a task this worker cannot do (another model, another
// version of a judge): the worker gives it back and stops.
var ErrRefused = errors.New("refused")

// ErrUnavailable is a task this worker cannot do for now: its model
// server gives no answer (llm.IsUnreachable). The worker gives the task
// back to the queue (NakWithDelay) for another worker, takes no more
// tasks, and probes its server with backoff (WorkerConfig.Probe) until it
// answers again. The task is not counted as failed: only its delivery.
var ErrUnavailable = errors.New("the worker's model server is unreachable")

// unavailableDelay is how long a task given back for want of a model
// server waits before it is delivered again (to another worker: this one
// takes none until its server answers).
const unavailableDelay = time.Second

// WorkerConfig is a worker's settings.
type WorkerConfig struct {
	// Endpoint names the model endpoint the worker calls (its model and
	// URL), for what it logs: the workers of every endpoint share one
	// durable consumer of each stream (Consumer), so the streams stay
	// work queues and each task goes to exactly one worker.
	Endpoint string
	// MaxInFlight is the shared consumer's MaxAckPending: the tasks
	// handed out and not acked yet, across all workers of every
	// endpoint. 0 keeps an existing consumer's and gives a new one
	// NATS's default (1000). What one endpoint is sent is capped by its
	// workers' own Concurrency (and their model clients' limits), as a
	// worker fetches no more tasks than it has free slots.
	MaxInFlight int
	// Concurrency is how many tasks this worker does at once (at least 1)
	// of each stream: runs' tasks (Stream) and keyed ones (Items), and as
	// many of the conversations of each that it owns. Its model client's
	// own limit bounds the calls they make together.
	Concurrency int
	// AckWait is how long a task may go without word from its worker
	// before it is delivered to another: a little over one model call's
	// timeout, as a worker says it is still at a task (InProgress) every
	// AckWait/3 while it is.
	AckWait time.Duration
	// MaxDeliver bounds a task's deliveries; then its pair is recorded
	// as undelivered. 0 is 5.
	MaxDeliver int
	// Handle does each task.
	Handle Handler
	// Accept, when set, says whether the worker would do a run's tasks:
	// an error that wraps ErrRefused refuses the run. Work asks it for
	// each run with tasks on the streams before it fetches any, and
	// refuses such a run (recorded, as Handle's refusal is) and stops
	// without taking a task: a fetch is a delivery, so a worker that
	// refuses each time it is started (a restart policy) would otherwise
	// run good tasks out of their deliveries. Other errors are left to
	// Handle (a run whose specification is not stored yet, say).
	Accept func(ctx context.Context, run string) error
	// Probe reports whether the worker's model server answers again
	// (nil) once a task found it unreachable (ErrUnavailable): a cheap
	// request, such as GET /v1/models. The worker takes no task until it
	// does, probing with backoff (1s doubling to a minute, for ever). Nil
	// Probe waits the backoff alone, then takes tasks again: the next
	// task is the probe.
	Probe func(ctx context.Context) error
	// Log receives what the worker did that a person should know.
	Log io.Writer
	// Peers is how many workers start together with this one, itself
	// included (the in-process workers of `bench --workers N`): it takes
	// no conversation's task until it sees that many leases, or one
	// lease period has passed, so that a conversation published before
	// they start is not begun by the first one up and then moved. 0 or 1
	// waits for none.
	Peers int
}

// Consumer is the durable pull consumer of Stream, and of Items, that
// every worker binds to, whatever its model endpoint: a work-queue stream
// takes one consumer per subject, and a pull consumer lets each worker
// take only what it has room for.
const Consumer = "assay-workers"

// partitionConsumer begins the name of the durable pull consumer of each
// partition of conversations' tasks, on each stream (assay-workers-c7):
// the worker that owns the partition pulls from it.
const partitionConsumer = Consumer + "-c"

// The subject filters of the shared consumer of stream and of its
// consumer of partition part.
func sharedFilter(stream string) string {
	if stream == Items {
		return itemPrefix + ">"
	}
	return subjectPrefix + ">"
}

func partitionFilter(stream string, part int) string {
	if stream == Items {
		return convItemPrefix + strconv.Itoa(part) + ".>"
	}
	return convPrefix + strconv.Itoa(part) + ".*"
}

// Work takes tasks from the streams (Stream and Items) and does them with
// cfg.Handle, up to cfg.Concurrency of each at once, until ctx is done
// (nil then) or a task is refused (that error). Each task's reply is
// stored before its message is acked, and a task whose reply is there
// already (a duplicate delivery) is acked without doing it.
//
// The worker keeps a lease in Workers while it works, and takes the
// tasks of the conversations' partitions it owns among the workers whose
// leases are there, up to cfg.Concurrency of each stream's at once
// besides the others: a conversation's tasks all come to it, while it
// owns their partition. A worker paused (its model server unreachable)
// gives its lease up until its server answers again; one stopped gives
// it up at once; one killed keeps it until it expires.
func (c *Conn) Work(ctx context.Context, cfg WorkerConfig) error {
	if cfg.Concurrency < 1 {
		return fmt.Errorf("queue: a worker's concurrency must be at least 1, got %d", cfg.Concurrency)
	}
	if cfg.MaxDeliver == 0 {
		cfg.MaxDeliver = 5
	}
	if cfg.AckWait <= 0 {
		return errors.New("queue: a worker needs an ack wait")
	}
	if cfg.Log == nil {
		cfg.Log = io.Discard
	}
	streams := []string{Stream, Items}
	var conss []jetstream.Consumer
	for _, stream := range streams {
		cons, err := c.consumer(ctx, cfg, stream, Consumer, sharedFilter(stream))
		if err != nil {
			return err
		}
		conss = append(conss, cons)
	}
	if err := c.accept(ctx, cfg); err != nil {
		return err
	}
	m, err := c.newMembers(ctx, cfg.Endpoint, cfg.Log)
	if err != nil {
		return err
	}
	m.peers, m.start = cfg.Peers, time.Now()
	m.setJoined(true)
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	p := &pauser{cfg: cfg, members: m}
	defer p.probes.Wait() // ended with ctx
	var loops sync.WaitGroup
	loops.Go(func() { m.run(ctx) })
	for i, cons := range conss {
		loops.Go(func() { c.take(ctx, cancel, cfg, p, cons) })
		loops.Go(func() { c.takeConversations(ctx, cancel, cfg, p, m, streams[i]) })
	}
	loops.Wait()
	if err := context.Cause(ctx); err != nil && !errors.Is(err, context.Canceled) && !errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	return nil
}

// accept asks cfg.Accept about each run with tasks on the streams now,
// and returns the first refusal, recorded in the bucket, before the
// worker takes any task.
func (c *Conn) accept(ctx context.Context, cfg WorkerConfig) error {
	if cfg.Accept == nil {
		return nil
	}
	runs, err := c.runs(ctx)
	if err != nil {
		return err
	}
	for _, run := range runs {
		err := cfg.Accept(ctx, run)
		if !errors.Is(err, ErrRefused) {
			continue
		}
		fmt.Fprintf(cfg.Log, "worker: %s refuses run %s before taking any of its tasks: %v\n", cfg.Endpoint, run, err)
		rctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		if rerr := c.refuse(rctx, run, cfg.Endpoint, err); rerr != nil {
			fmt.Fprintf(cfg.Log, "worker: could not record the refusal of run %s in the queue: %v\n", run, rerr)
		}
		cancel()
		return err
	}
	return nil
}

// runs are the runs with tasks on the streams (waiting or being done),
// in order.
func (c *Conn) runs(ctx context.Context) ([]string, error) {
	filters := map[string][]string{
		Stream: {subjectPrefix + "*", convPrefix + "*.*"},
		Items:  {itemPrefix + "*.*", convItemPrefix + "*.*.*"},
	}
	seen := map[string]bool{}
	for _, stream := range []string{Stream, Items} {
		err := retry(ctx, func() error {
			st, err := c.js.Stream(ctx, stream)
			if err != nil {
				return err
			}
			for _, f := range filters[stream] {
				info, err := st.Info(ctx, jetstream.WithSubjectFilter(f))
				if err != nil {
					return err
				}
				for subj := range info.State.Subjects {
					if run, _, ok := parseSubject(subj); ok {
						seen[run] = true
					}
				}
			}
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("queue: the runs of stream %s: %w", stream, err)
		}
	}
	return slices.Sorted(maps.Keys(seen)), nil
}

// take fetches cons's tasks and does them, up to cfg.Concurrency at once,
// until ctx is done; a task's error (a refusal) cancels ctx with it.
// While the worker's model server is unreachable (p paused), it fetches
// none: a fetch is a delivery, and a task delivered to a worker that
// cannot do it uses up one of its MaxDeliver for nothing.
func (c *Conn) take(ctx context.Context, cancel context.CancelCauseFunc, cfg WorkerConfig, p *pauser, cons jetstream.Consumer) {
	slots := make(chan struct{}, cfg.Concurrency)
	var wg sync.WaitGroup
	defer wg.Wait()
	for ctx.Err() == nil {
		if !p.wait(ctx) {
			continue
		}
		// Fetch as many as there are free slots, at least one.
		select {
		case slots <- struct{}{}:
		case <-ctx.Done():
			continue
		}
		n := 1
		for n < cfg.Concurrency {
			select {
			case slots <- struct{}{}:
				n++
				continue
			default:
			}
			break
		}
		if p.paused() {
			// Paused while waiting for a free slot: fetch nothing.
			for range n {
				<-slots
			}
			continue
		}
		fctx, cancelFetch := context.WithTimeout(ctx, 5*time.Second)
		batch, err := cons.Fetch(n, jetstream.FetchContext(fctx))
		got := 0
		if err == nil {
			for m := range batch.Messages() {
				got++
				wg.Add(1)
				go func() {
					defer wg.Done()
					defer func() { <-slots }()
					if err := c.do(ctx, cfg, p, m); err != nil {
						cancel(err)
					}
				}()
			}
		}
		cancelFetch()
		for range n - got {
			<-slots
		}
		if err != nil && ctx.Err() == nil {
			// The server away (restarting): wait a moment, then again.
			select {
			case <-ctx.Done():
			case <-time.After(100 * time.Millisecond):
			}
		}
	}
}

// consumer is the workers' durable consumer name of stream, taking the
// tasks of filter, made or updated as cfg asks.
func (c *Conn) consumer(ctx context.Context, cfg WorkerConfig, stream, name, filter string) (jetstream.Consumer, error) {
	desc := "assay workers, of every model endpoint"
	if name != Consumer {
		desc = "assay workers: the one that owns this partition of conversations"
	}
	want := jetstream.ConsumerConfig{
		Durable: name, Description: desc, AckPolicy: jetstream.AckExplicitPolicy,
		AckWait: cfg.AckWait, MaxDeliver: cfg.MaxDeliver, FilterSubject: filter, MaxAckPending: cfg.MaxInFlight,
		// A partition's consumer keeps its state in memory: many of them
		// cost a server little, and one lost (the server restarted) is
		// made again by its worker, the tasks it had handed out handed
		// out again.
		MemoryStorage: name != Consumer,
	}
	var cons jetstream.Consumer
	err := retry(ctx, func() error {
		have, err := c.js.Consumer(ctx, stream, name)
		switch {
		case errors.Is(err, jetstream.ErrConsumerNotFound):
		case err != nil:
			return err
		default:
			info := have.CachedInfo().Config
			if cfg.MaxInFlight == 0 {
				want.MaxAckPending = info.MaxAckPending
			}
			if info.AckWait == want.AckWait && info.MaxDeliver == want.MaxDeliver && info.MaxAckPending == want.MaxAckPending {
				cons = have
				return nil
			}
		}
		cons, err = c.js.CreateOrUpdateConsumer(ctx, stream, want)
		if err != nil && strings.Contains(err.Error(), "not unique") {
			return backoff.Permanent(fmt.Errorf("queue: another consumer takes stream %s's tasks (an older assay's, one per model endpoint): "+
				"stop its workers and remove it (nats consumer rm %s NAME) (%w)", stream, stream, err))
		}
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("queue: consumer %s of %s: %w", name, stream, err)
	}
	return cons, nil
}

// do does one task: it skips one replied to already, heartbeats while the
// handler works, stores the reply, then acks. A task the worker's model
// server cannot do (ErrUnavailable), or that comes while it is paused
// for that, goes back to the queue and pauses the worker. Its error
// stops the worker.
func (c *Conn) do(ctx context.Context, cfg WorkerConfig, p *pauser, m jetstream.Msg) error {
	md, err := m.Metadata()
	if err != nil {
		_ = m.Term()
		return nil
	}
	run, _, ok := parseSubject(m.Subject())
	if !ok {
		_ = m.Term() // not a task of ours
		return nil
	}
	t := Task{ID: m.Headers().Get(HeaderTask), Run: run, Body: m.Data(), Delivery: int(md.NumDelivered)}
	t.Last = t.Delivery >= cfg.MaxDeliver
	if t.ID == "" {
		_ = m.Term() // not a task of ours
		return nil
	}
	t.Key = replyKey(run, t.ID, m.Headers().Get(HeaderKey))
	if done, err := c.has(ctx, t.Key); err != nil || done {
		if done {
			_ = m.DoubleAck(ctx) // a duplicate delivery: replied to already
		}
		return nil
	}
	if p.paused() {
		// Fetched as the worker paused: given back untried.
		_ = m.NakWithDelay(unavailableDelay)
		return nil
	}
	hctx, stop := context.WithCancel(ctx)
	go heartbeat(hctx, m, cfg.AckWait/3)
	results, err := handle(ctx, cfg.Handle, t, cfg.Log)
	stop()
	if errors.Is(err, ErrUnavailable) {
		p.pause(ctx, err)
	}
	switch {
	case ctx.Err() != nil:
		_ = m.Nak() // to another worker at once
		return nil
	case errors.Is(err, ErrRefused):
		_ = m.Nak()
		// Said in the bucket too, so that the run's coordinator, which
		// may be on another machine, can say why its tasks wait.
		rctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		if rerr := c.refuse(rctx, run, cfg.Endpoint, err); rerr != nil {
			fmt.Fprintf(cfg.Log, "worker: could not record the refusal of run %s in the queue: %v\n", run, rerr)
		}
		cancel()
		return err
	case errors.Is(err, ErrUnavailable) && !t.Last:
		fmt.Fprintf(cfg.Log, "worker: task %s of run %s given back to the queue (delivery %d of %d): %v\n", t.ID, run, t.Delivery, cfg.MaxDeliver, err)
		_ = m.NakWithDelay(unavailableDelay)
		return nil
	case err != nil && !t.Last:
		fmt.Fprintf(cfg.Log, "worker: task %s of run %s, delivery %d of %d: %v; it will be delivered again\n", t.ID, run, t.Delivery, cfg.MaxDeliver, err)
		_ = m.NakWithDelay(min(time.Duration(t.Delivery)*250*time.Millisecond, 5*time.Second))
		return nil
	case err != nil:
		fmt.Fprintf(cfg.Log, "worker: task %s of run %s failed its last delivery (%d): %v\n", t.ID, run, t.Delivery, err)
		if _, perr := c.put(ctx, t.Key, Reply{Task: t.ID, Undelivered: t.Delivery, Err: err.Error()}); perr != nil {
			return nil // the advisory records it
		}
		_ = m.Term()
		return nil
	}
	if _, err := c.put(ctx, t.Key, Reply{Task: t.ID, Results: results}); err != nil {
		return nil // ctx done: the task is delivered again and finds its reply
	}
	_ = m.DoubleAck(ctx) // not acked: delivered again, it finds its reply
	return nil
}

// handle is h(ctx, t), with a panic in h turned into its error: a task
// that panics (a poison work item) fails its delivery, as an error does,
// rather than end the worker, and the next worker to take it.
// The stack goes to log, the error stays one line for the run's results.
func handle(ctx context.Context, h Handler, t Task, log io.Writer) (results []byte, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("panicked: %v", r)
			fmt.Fprintf(log, "worker: task %s of run %s %v\n%s", t.ID, t.Run, err, debug.Stack())
			results = nil
		}
	}()
	return h(ctx, t)
}

// heartbeat tells the server every d that m is still being worked on.
func heartbeat(ctx context.Context, m jetstream.Msg, d time.Duration) {
	t := time.NewTicker(max(d, 10*time.Millisecond))
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			_ = m.InProgress()
		}
	}
}

// pauser holds a worker's fetches while its model server is unreachable,
// and probes the server with backoff until it answers again.
type pauser struct {
	cfg    WorkerConfig
	probes sync.WaitGroup
	// members is the worker's lease, given up while it is paused (nil: it
	// has none).
	members *members

	mu sync.Mutex
	// resumed is closed when the server answers again; nil while the
	// worker takes tasks.
	resumed chan struct{}
}

// paused reports whether the worker is paused now.
func (p *pauser) paused() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.resumed != nil
}

// wait returns true when the worker may take tasks, at once unless it is
// paused; false when ctx ends first.
func (p *pauser) wait(ctx context.Context) bool {
	p.mu.Lock()
	resumed := p.resumed
	p.mu.Unlock()
	if resumed == nil {
		return ctx.Err() == nil
	}
	select {
	case <-resumed:
		return true
	case <-ctx.Done():
		return false
	}
}

// pause stops the worker's fetches, unless they are stopped already, and
// starts probing its server; why is the task's error that found it
// unreachable.
func (p *pauser) pause(ctx context.Context, why error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.resumed != nil || ctx.Err() != nil {
		return
	}
	p.resumed = make(chan struct{})
	if p.members != nil {
		p.members.setJoined(false) // its conversations to the others
	}
	fmt.Fprintf(p.cfg.Log, "worker: paused: %s: %v; its tasks in hand go back to the queue, and it takes no more until its model server answers (probing with backoff)\n",
		p.cfg.Endpoint, why)
	p.probes.Go(func() { p.probe(ctx, p.resumed) })
}

// probe probes the server with backoff until it answers, then lets the
// worker take tasks again (closes resumed); it returns when ctx ends.
func (p *pauser) probe(ctx context.Context, resumed chan struct{}) {
	b := backoff.NewExponentialBackOff()
	b.InitialInterval, b.MaxInterval, b.MaxElapsedTime = time.Second, time.Minute, 0
	b.Reset()
	d := b.NextBackOff()
	for {
		t := time.NewTimer(d)
		select {
		case <-ctx.Done():
			t.Stop()
			return
		case <-t.C:
		}
		if p.cfg.Probe == nil {
			break
		}
		err := p.cfg.Probe(ctx)
		if ctx.Err() != nil {
			return
		}
		if err == nil {
			break
		}
		d = b.NextBackOff()
		fmt.Fprintf(p.cfg.Log, "worker: still paused: %s does not answer (%v); next probe in %v\n", p.cfg.Endpoint, err, d.Round(time.Millisecond))
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.resumed = nil
	close(resumed)
	if p.members != nil {
		p.members.setJoined(true)
	}
	fmt.Fprintf(p.cfg.Log, "worker: resumed: %s answers again; taking tasks\n", p.cfg.Endpoint)
}

// takeConversations takes the tasks of stream's conversations in the
// partitions m owns, as they change, up to cfg.Concurrency at once,
// until ctx is done: a loop per partition owned, stopped when it is not
// any more (a task it holds then is done all the same).
func (c *Conn) takeConversations(ctx context.Context, cancel context.CancelCauseFunc, cfg WorkerConfig, p *pauser, m *members, stream string) {
	slots := make(chan struct{}, cfg.Concurrency)
	var wg sync.WaitGroup
	defer wg.Wait()
	running := map[int]context.CancelFunc{}
	defer func() {
		for _, stop := range running {
			stop()
		}
	}()
	for {
		owned, changed := m.Owned()
		for part, stop := range running {
			if !slices.Contains(owned, part) {
				stop()
				delete(running, part)
			}
		}
		for _, part := range owned {
			if running[part] != nil {
				continue
			}
			pctx, stop := context.WithCancel(ctx)
			running[part] = stop
			wg.Go(func() { c.takePartition(pctx, ctx, cancel, cfg, p, stream, part, slots, &wg) })
		}
		select {
		case <-ctx.Done():
			return
		case <-changed:
		}
	}
}

// takePartition fetches the tasks of partition part of stream one at a
// time, until pctx is done (the partition another's, or the worker
// stopping), and does each in a slot of slots, with wctx, the worker's
// context: a task begun is done even if the partition moves meanwhile,
// and one that comes after it moved goes back to the queue at once, for
// its new owner.
func (c *Conn) takePartition(pctx, wctx context.Context, cancel context.CancelCauseFunc, cfg WorkerConfig, p *pauser, stream string, part int,
	slots chan struct{}, wg *sync.WaitGroup) {
	var cons jetstream.Consumer
	for pctx.Err() == nil {
		if cons == nil {
			var err error
			if cons, err = c.consumer(pctx, cfg, stream, partitionConsumer+strconv.Itoa(part), partitionFilter(stream, part)); err != nil {
				if pctx.Err() == nil {
					cancel(err)
				}
				return
			}
		}
		if !p.wait(pctx) {
			continue
		}
		// The fetch outlives the partition's loop (it ends with the worker
		// only): a fetch cut short may drop a task the server sent it,
		// which would then wait out its ack wait before it went to another.
		fctx, cancelFetch := context.WithTimeout(wctx, 5*time.Second)
		batch, err := cons.Fetch(1, jetstream.FetchContext(fctx))
		if err == nil {
			for msg := range batch.Messages() {
				if pctx.Err() != nil {
					_ = msg.Nak() // the partition another's now: to it at once
					continue
				}
				// Wait for a slot, telling the server the task is in hand.
				hctx, stop := context.WithCancel(wctx)
				go heartbeat(hctx, msg, cfg.AckWait/3)
				select {
				case slots <- struct{}{}:
					stop()
				case <-pctx.Done():
					stop()
					_ = msg.Nak()
					continue
				}
				wg.Go(func() {
					defer func() { <-slots }()
					if err := c.do(wctx, cfg, p, msg); err != nil {
						cancel(err)
					}
				})
			}
			if berr := batch.Error(); berr != nil && fctx.Err() == nil {
				err = berr
			}
		}
		cancelFetch()
		if err != nil && pctx.Err() == nil {
			// The server away (restarting), or the consumer gone with it:
			// wait a moment, then make sure of the consumer and go on.
			cons = nil
			select {
			case <-pctx.Done():
			case <-time.After(100 * time.Millisecond):
			}
		}
	}
}
