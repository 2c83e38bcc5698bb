package queue

import (
	"context"
	"errors"
	"fmt"
	"io"
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
	// of each stream: runs' tasks (Stream) and keyed ones (Items). Its
	// model client's own limit bounds the calls they make together.
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
	// Log receives what the worker did that a person should know.
	Log io.Writer
}

// Consumer is the durable pull consumer of Stream, and of Items, that
// every worker binds to, whatever its model endpoint: a work-queue stream
// takes one consumer per subject, and a pull consumer lets each worker
// take only what it has room for.
const Consumer = "assay-workers"

// Work takes tasks from the streams (Stream and Items) and does them with
// cfg.Handle, up to cfg.Concurrency of each at once, until ctx is done
// (nil then) or a task is refused (that error). Each task's reply is
// stored before its message is acked, and a task whose reply is there
// already (a duplicate delivery) is acked without doing it.
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
	var conss []jetstream.Consumer
	for _, stream := range []string{Stream, Items} {
		cons, err := c.consumer(ctx, cfg, stream)
		if err != nil {
			return err
		}
		conss = append(conss, cons)
	}
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	var loops sync.WaitGroup
	for _, cons := range conss {
		loops.Go(func() { c.take(ctx, cancel, cfg, cons) })
	}
	loops.Wait()
	if err := context.Cause(ctx); err != nil && !errors.Is(err, context.Canceled) && !errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	return nil
}

// take fetches cons's tasks and does them, up to cfg.Concurrency at once,
// until ctx is done; a task's error (a refusal) cancels ctx with it.
func (c *Conn) take(ctx context.Context, cancel context.CancelCauseFunc, cfg WorkerConfig, cons jetstream.Consumer) {
	slots := make(chan struct{}, cfg.Concurrency)
	var wg sync.WaitGroup
	defer wg.Wait()
	for ctx.Err() == nil {
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
					if err := c.do(ctx, cfg, m); err != nil {
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

// consumer is the workers' shared durable consumer of stream, made or
// updated as cfg asks.
func (c *Conn) consumer(ctx context.Context, cfg WorkerConfig, stream string) (jetstream.Consumer, error) {
	filter := subjectPrefix + ">"
	if stream == Items {
		filter = itemPrefix + ">"
	}
	want := jetstream.ConsumerConfig{
		Durable: Consumer, Description: "assay workers, of every model endpoint", AckPolicy: jetstream.AckExplicitPolicy,
		AckWait: cfg.AckWait, MaxDeliver: cfg.MaxDeliver, FilterSubject: filter, MaxAckPending: cfg.MaxInFlight,
	}
	var cons jetstream.Consumer
	err := retry(ctx, func() error {
		have, err := c.js.Consumer(ctx, stream, Consumer)
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
		return nil, fmt.Errorf("queue: consumer %s of %s: %w", Consumer, stream, err)
	}
	return cons, nil
}

// do does one task: it skips one replied to already, heartbeats while the
// handler works, stores the reply, then acks. Its error stops the worker.
func (c *Conn) do(ctx context.Context, cfg WorkerConfig, m jetstream.Msg) error {
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
	hctx, stop := context.WithCancel(ctx)
	go heartbeat(hctx, m, cfg.AckWait/3)
	results, err := cfg.Handle(ctx, t)
	stop()
	switch {
	case ctx.Err() != nil:
		_ = m.Nak() // to another worker at once
		return nil
	case errors.Is(err, ErrRefused):
		_ = m.Nak()
		return err
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
