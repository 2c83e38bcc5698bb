// Package queue carries a run's work items over NATS JetStream: a
// work-queue stream of tasks, one durable pull consumer that every worker
// shares whatever its model endpoint (each fetching only what it has room
// for), a key-value bucket of replies written create-if-absent, and the
// advisories of tasks whose deliveries ran out. It knows nothing of what a
// task judges: package bench puts its tasks and replies in it
// (bench.Execute's Job.Queue, bench.Work).
//
// A task's id (its Nats-Msg-Id, and its reply's key) is the caller's hash
// of what makes it that task, so a task published twice within
// Options.Duplicates is stored once, and a task delivered twice is
// replied to once: the second worker finds the reply and only acks.
//
// A task that names its reply's key (a service's: Outgoing.Key) goes on a
// stream of its own, Items, which Options.MaxItems bounds: a publish past
// the bound is refused (ErrFull) rather than kept, so a service can shed
// load, while a run's tasks, on Stream, are never refused.
//
// A task of a conversation (Outgoing.Conversation) is keyed by it: its
// subject names one of Partitions partitions, a hash of the
// conversation's id, and each partition is taken by one worker at a time
// (a consumer per partition, pulled by the worker that owns it), so every
// task of one conversation goes to one worker and its model server's
// prefix cache is reused. The workers share the partitions through their
// leases in Workers: a worker that stops (or is killed and its lease
// expires) has its partitions spread over the others, and its tasks in
// hand are delivered again, to them, once their ack wait runs out. Tasks
// of no conversation go to whichever worker has room, as before.
package queue

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/cenkalti/backoff/v4"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// The names a queue uses on its NATS server.
const (
	// Stream is the work-queue stream of runs' tasks, on subjects
	// assay.task.RUN, and assay.ctask.PARTITION.RUN for a conversation's.
	Stream = "ASSAY_TASKS"
	// Items is the work-queue stream of tasks that name their reply's
	// key (a service's), on subjects assay.item.RUN.KEY, and
	// assay.citem.PARTITION.RUN.KEY for a conversation's, bounded by
	// Options.MaxItems.
	Items = "ASSAY_ITEMS"
	// Advisories is the stream that keeps the server's advisories of
	// tasks whose deliveries ran out, so a coordinator that was down when
	// one was sent still records its pair as undelivered.
	Advisories = "ASSAY_UNDELIVERED"
	// Bucket is the key-value bucket of replies (r.RUN.TASK) and runs'
	// specifications (s.RUN).
	Bucket = "assay_results"
	// HeaderTask carries a task's id on its message.
	HeaderTask = "Assay-Task"
	// HeaderKey, on a task that has it, is the key of its reply in
	// Bucket instead of r.RUN.TASK: a service's tasks are looked up by
	// what they judge (a trace and a metric), not by a run.
	HeaderKey = "Assay-Key"

	subjectPrefix = "assay.task."
	itemPrefix    = "assay.item."
	// convPrefix and convItemPrefix begin the subjects of conversations'
	// tasks, each followed by the partition.
	convPrefix     = "assay.ctask."
	convItemPrefix = "assay.citem."
	// maxDeliveries is the subject prefix of the server's advisories of
	// messages whose deliveries ran out.
	maxDeliveries = "$JS.EVENT.ADVISORY.CONSUMER.MAX_DELIVERIES"
)

// Options are a queue's stream settings.
type Options struct {
	// Duplicates is how long a task's id is remembered to drop a second
	// publish of it; 0 is 1 hour.
	Duplicates time.Duration
	// MaxAge drops tasks and advisories no one took for this long; 0 is
	// 7 days.
	MaxAge time.Duration
	// MaxItems bounds the keyed tasks (Items) waiting or being done, on
	// every client of the server: a publish past it is refused, ErrFull.
	// The publisher of such tasks (a service) sets it; 0 leaves the bound
	// a server has as it is (a worker's or a coordinator's Open) and
	// makes a new stream unbounded.
	MaxItems int64
	// Lease is the TTL of the workers' leases (bucket Workers) when this
	// Open makes the bucket; 0 is DefaultLease. A bucket made earlier
	// keeps its own.
	Lease time.Duration
}

// ErrFull is a keyed task refused because Items holds Options.MaxItems
// tasks already.
var ErrFull = errors.New("queue: the items stream is full")

// Conn is a connection to a queue's streams and bucket.
type Conn struct {
	nc      *nats.Conn
	js      jetstream.JetStream
	kv      jetstream.KeyValue
	workers jetstream.KeyValue
	adv     jetstream.Stream
	// advisories, when set, reads Advisories instead of an ordered
	// consumer (a test's reader).
	advisories func(ctx context.Context) (jetstream.MessagesContext, error)

	mu sync.Mutex
	// reconnected is closed, and replaced, each time the connection is
	// made again (the server restarted): watchers start over.
	reconnected chan struct{}
}

// onReconnect wakes whoever waits on the connection coming back.
func (c *Conn) onReconnect(*nats.Conn) {
	c.mu.Lock()
	defer c.mu.Unlock()
	close(c.reconnected)
	c.reconnected = make(chan struct{})
}

func (c *Conn) reconnect() <-chan struct{} {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.reconnected
}

// Open makes the queue's streams and bucket on nc's server when they are
// not there yet (many workers and coordinators may open it at once).
func Open(ctx context.Context, nc *nats.Conn, o Options) (*Conn, error) {
	js, err := jetstream.New(nc)
	if err != nil {
		return nil, err
	}
	if o.Duplicates == 0 {
		o.Duplicates = time.Hour
	}
	if o.MaxAge == 0 {
		o.MaxAge = 7 * 24 * time.Hour
	}
	if o.Lease <= 0 {
		o.Lease = DefaultLease
	}
	c := &Conn{nc: nc, js: js, reconnected: make(chan struct{})}
	// After the handler nc has (a worker's DialRetry says it is back).
	prev := nc.Opts.ReconnectedCB
	nc.SetReconnectHandler(func(nc *nats.Conn) {
		if prev != nil {
			prev(nc)
		}
		c.onReconnect(nc)
	})
	err = retry(ctx, func() error {
		if nc.IsClosed() {
			return backoff.Permanent(fmt.Errorf("the connection to the NATS server closed: %w", cmp.Or(nc.LastError(), nats.ErrConnectionClosed)))
		}
		if _, err := js.CreateOrUpdateStream(ctx, jetstream.StreamConfig{
			Name: Stream, Subjects: []string{subjectPrefix + ">", convPrefix + ">"}, Retention: jetstream.WorkQueuePolicy,
			Storage: jetstream.FileStorage, Duplicates: o.Duplicates, MaxAge: o.MaxAge,
		}); err != nil {
			return fmt.Errorf("stream %s: %w", Stream, err)
		}
		if err := openItems(ctx, js, o); err != nil {
			return fmt.Errorf("stream %s: %w", Items, err)
		}
		adv, err := js.CreateOrUpdateStream(ctx, jetstream.StreamConfig{
			Name: Advisories, Subjects: []string{maxDeliveries + "." + Stream + ".*", maxDeliveries + "." + Items + ".*"},
			Storage: jetstream.FileStorage, MaxAge: o.MaxAge,
		})
		if err != nil {
			return fmt.Errorf("stream %s: %w", Advisories, err)
		}
		kv, err := js.CreateOrUpdateKeyValue(ctx, jetstream.KeyValueConfig{Bucket: Bucket, History: 1, Storage: jetstream.FileStorage})
		if err != nil {
			return fmt.Errorf("bucket %s: %w", Bucket, err)
		}
		workers, err := openWorkers(ctx, js, o.Lease)
		if err != nil {
			return fmt.Errorf("bucket %s: %w", Workers, err)
		}
		c.adv, c.kv, c.workers = adv, kv, workers
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("queue: %w", err)
	}
	return c, nil
}

// openItems makes Items, bounded as o says, or leaves its bound as it is
// when o sets none (adding the subjects of conversations' tasks to a
// stream an older assay made).
func openItems(ctx context.Context, js jetstream.JetStream, o Options) error {
	cfg := jetstream.StreamConfig{
		Name: Items, Subjects: []string{itemPrefix + ">", convItemPrefix + ">"}, Retention: jetstream.WorkQueuePolicy,
		Storage: jetstream.FileStorage, Duplicates: o.Duplicates, MaxAge: o.MaxAge, MaxMsgs: -1,
	}
	if o.MaxItems > 0 {
		cfg.MaxMsgs, cfg.Discard = o.MaxItems, jetstream.DiscardNew
		_, err := js.CreateOrUpdateStream(ctx, cfg)
		return err
	}
	st, err := js.Stream(ctx, Items)
	if errors.Is(err, jetstream.ErrStreamNotFound) {
		if _, err = js.CreateStream(ctx, cfg); errors.Is(err, jetstream.ErrStreamNameAlreadyInUse) {
			err = nil // another client made it meanwhile
		}
		return err
	}
	if err != nil {
		return err
	}
	have := st.CachedInfo().Config
	if slices.Contains(have.Subjects, convItemPrefix+">") {
		return nil
	}
	have.Subjects = append(have.Subjects, convItemPrefix+">")
	_, err = js.UpdateStream(ctx, have)
	return err
}

// Reply is what a task came to: its results (the caller's JSON), or that
// its deliveries ran out (Undelivered, the deliveries made, with the last
// error when a worker saw one).
type Reply struct {
	Task        string          `json:"task"`
	Results     json.RawMessage `json:"results,omitempty"`
	Undelivered int             `json:"undelivered,omitempty"`
	Err         string          `json:"error,omitempty"`
}

func resultKey(run, task string) string { return "r." + run + "." + task }

// replyKey is the key of a task's reply: key when the task names one,
// else r.RUN.TASK.
func replyKey(run, task, key string) string {
	if key != "" {
		return key
	}
	return resultKey(run, task)
}

// Refusal is a worker's word that it will not do a run's tasks (they
// would be judged otherwise than the run asks: another model, prompt
// version or setting, a metric it does not know), kept in the bucket for
// the run's coordinator to say when the run stalls.
type Refusal struct {
	// Endpoint is the refusing worker's model endpoint.
	Endpoint string `json:"endpoint"`
	Reason   string `json:"reason"`
}

// refusalKey is the key of the refusal of run by the workers of
// endpoint: one per endpoint, the latest kept.
func refusalKey(run, endpoint string) string {
	sum := sha256.Sum256([]byte(endpoint))
	return "x." + run + "." + hex.EncodeToString(sum[:8])
}

// refuse records that the workers of endpoint refuse run, for why.
func (c *Conn) refuse(ctx context.Context, run, endpoint string, why error) error {
	b, err := json.Marshal(Refusal{Endpoint: endpoint, Reason: why.Error()})
	if err != nil {
		return err
	}
	return retry(ctx, func() error {
		_, err := c.kv.Put(ctx, refusalKey(run, endpoint), b)
		return err
	})
}

// Refusals are the refusals of run's tasks that workers recorded, one
// per model endpoint, oldest first.
func (c *Conn) Refusals(ctx context.Context, run string) ([]Refusal, error) {
	es, err := c.Entries(ctx, "x."+run+".*")
	if err != nil {
		return nil, fmt.Errorf("queue: run %s's refusals: %w", run, err)
	}
	out := make([]Refusal, 0, len(es))
	for _, e := range es {
		var r Refusal
		if json.Unmarshal(e.Value, &r) == nil {
			out = append(out, r)
		}
	}
	return out, nil
}

// PutSpec stores run's specification (what a worker needs to judge its
// tasks), replacing any earlier one.
func (c *Conn) PutSpec(ctx context.Context, run string, spec []byte) error {
	return retry(ctx, func() error {
		_, err := c.kv.Put(ctx, "s."+run, spec)
		return err
	})
}

// Spec is run's specification as PutSpec stored it.
func (c *Conn) Spec(ctx context.Context, run string) ([]byte, error) {
	var out []byte
	err := retry(ctx, func() error {
		e, err := c.kv.Get(ctx, "s."+run)
		if errors.Is(err, jetstream.ErrKeyNotFound) {
			return backoff.Permanent(fmt.Errorf("run %s has no specification in bucket %s (its coordinator has not started it here)", run, Bucket))
		}
		if err != nil {
			return err
		}
		out = e.Value()
		return nil
	})
	return out, err
}

// Put stores r as the reply to run's task r.Task unless one is there
// already: created is false when another got there first (a duplicate
// delivery, a late worker), which costs nothing.
func (c *Conn) Put(ctx context.Context, run string, r Reply) (created bool, err error) {
	return c.put(ctx, resultKey(run, r.Task), r)
}

// put stores r under key unless a reply is there already.
func (c *Conn) put(ctx context.Context, key string, r Reply) (created bool, err error) {
	b, err := json.Marshal(r)
	if err != nil {
		return false, err
	}
	err = retry(ctx, func() error {
		_, err := c.kv.Create(ctx, key, b)
		switch {
		case errors.Is(err, jetstream.ErrKeyExists):
			return nil
		case err != nil:
			return err
		}
		created = true
		return nil
	})
	return created, err
}

// Has reports whether run's task has its reply.
func (c *Conn) Has(ctx context.Context, run, task string) (bool, error) {
	return c.has(ctx, resultKey(run, task))
}

func (c *Conn) has(ctx context.Context, key string) (bool, error) {
	var ok bool
	err := retry(ctx, func() error {
		_, err := c.kv.Get(ctx, key)
		switch {
		case errors.Is(err, jetstream.ErrKeyNotFound):
			ok = false
		case err != nil:
			return err
		default:
			ok = true
		}
		return nil
	})
	return ok, err
}

// Replied returns the ids of run's tasks that have their replies now.
func (c *Conn) Replied(ctx context.Context, run string) (map[string]bool, error) {
	out := map[string]bool{}
	err := retry(ctx, func() error {
		clear(out)
		l, err := c.kv.ListKeysFiltered(ctx, resultKey(run, "*"))
		if err != nil {
			return err
		}
		prefix := resultKey(run, "")
		for k := range l.Keys() {
			out[strings.TrimPrefix(k, prefix)] = true
		}
		return nil
	})
	return out, err
}

// Watch yields run's replies: those there now, then each as it is
// stored, until ctx is done. After the server restarts it starts over
// (the replies there then, and on): the caller drops those it has.
func (c *Conn) Watch(ctx context.Context, run string) (<-chan Reply, error) {
	entries, err := c.WatchKeys(ctx, resultKey(run, "*"))
	if err != nil {
		return nil, fmt.Errorf("queue: watching run %s's replies: %w", run, err)
	}
	out := make(chan Reply)
	go func() {
		defer close(out)
		for e := range entries {
			r := e.Reply()
			r.Task = strings.TrimPrefix(e.Key, resultKey(run, ""))
			select {
			case out <- r:
			case <-ctx.Done():
				return
			}
		}
	}()
	return out, nil
}

// Entry is a reply as the bucket holds it: its key, its value, when the
// server stored it and its revision, the sequence of the bucket's stream,
// the same order for every watcher.
type Entry struct {
	Key      string
	Value    []byte
	Created  time.Time
	Revision uint64
}

// Reply reads the entry's value as a Reply (one that does not read is a
// reply saying so).
func (e Entry) Reply() Reply {
	var r Reply
	if err := json.Unmarshal(e.Value, &r); err != nil {
		r = Reply{Err: fmt.Sprintf("reply %s: not a reply: %v", e.Key, err)}
	}
	return r
}

// WatchKeys yields the replies whose keys match filter (a NATS subject
// filter over keys: t.> say): those there now, then each as it is stored,
// in revision order, until ctx is done. Each key is written once
// (create-if-absent), so every watcher sees the same replies in the same
// order. After the server restarts it starts over: the caller drops the
// revisions it has.
func (c *Conn) WatchKeys(ctx context.Context, filter string) (<-chan Entry, error) {
	watch := func() (jetstream.KeyWatcher, <-chan struct{}, error) {
		var w jetstream.KeyWatcher
		again := c.reconnect()
		err := retry(ctx, func() error {
			var err error
			w, err = c.kv.Watch(ctx, filter)
			return err
		})
		return w, again, err
	}
	w, again, err := watch()
	if err != nil {
		return nil, err
	}
	out := make(chan Entry)
	go func() {
		defer close(out)
		defer func() { _ = w.Stop() }()
		for {
			select {
			case <-ctx.Done():
				return
			case <-again:
				_ = w.Stop()
				if w, again, err = watch(); err != nil {
					return // ctx done
				}
			case e, ok := <-w.Updates():
				if !ok {
					// Its subscription closed under it (its consumer not
					// made again after a restart, say): watch again, as a
					// caller waits on out until ctx is done.
					_ = w.Stop()
					if w, again, err = watch(); err != nil {
						return // ctx done
					}
					continue
				}
				if e == nil || e.Operation() != jetstream.KeyValuePut {
					continue // the end of the replies there were, or a purge
				}
				select {
				case out <- Entry{Key: e.Key(), Value: e.Value(), Created: e.Created(), Revision: e.Revision()}:
				case <-ctx.Done():
					return
				}
			}
		}
	}()
	return out, nil
}

// Entries are the replies whose keys match filter now, in revision order.
func (c *Conn) Entries(ctx context.Context, filter string) ([]Entry, error) {
	var out []Entry
	err := retry(ctx, func() error {
		out = out[:0]
		l, err := c.kv.ListKeysFiltered(ctx, filter)
		if err != nil {
			return err
		}
		for k := range l.Keys() {
			e, err := c.kv.Get(ctx, k)
			if errors.Is(err, jetstream.ErrKeyNotFound) {
				continue
			}
			if err != nil {
				return err
			}
			out = append(out, Entry{Key: e.Key(), Value: e.Value(), Created: e.Created(), Revision: e.Revision()})
		}
		return nil
	})
	slices.SortFunc(out, func(a, b Entry) int { return cmp.Compare(a.Revision, b.Revision) })
	return out, err
}

// Publish puts run's tasks on the stream, each body under its id, the
// message id that drops a second publish of it.
func (c *Conn) Publish(ctx context.Context, run string, ids []string, bodies [][]byte) error {
	ts := make([]Outgoing, len(ids))
	for i := range ids {
		ts[i] = Outgoing{Run: run, ID: ids[i], Body: bodies[i]}
	}
	_, err := c.PublishTasks(ctx, ts)
	return err
}

// Outgoing is a task to publish: its run (the subject, and the
// specification a worker judges it by), its id (the message id that
// drops a second publish of it), the key of its reply when not
// r.RUN.TASK (such a task goes on Items, its key in its subject), the
// conversation it is a task of, if any (all the tasks of one go to one
// worker: its partition is in the subject), and its body.
type Outgoing struct {
	Run, ID, Key string
	Conversation string
	Body         []byte
}

// PublishTasks puts the tasks on their streams and returns once the
// server has stored each (or ctx is done: then some may be stored, and a
// second publish of them is dropped). dup[i] says the server had ts[i]
// already (published again within Options.Duplicates). A keyed task
// refused because Items is full is not published again: the error then
// wraps ErrFull, and the others are stored (a second publish of them is
// dropped).
func (c *Conn) PublishTasks(ctx context.Context, ts []Outgoing) (dup []bool, err error) {
	dup = make([]bool, len(ts))
	full := 0
	futures := make([]jetstream.PubAckFuture, len(ts))
	for i, t := range ts {
		f, err := c.js.PublishMsgAsync(t.msg(), jetstream.WithMsgID(t.ID))
		if err != nil {
			futures[i] = nil // published again below, one at a time
			continue
		}
		futures[i] = f
	}
	for i, f := range futures {
		if f != nil {
			select {
			case ack := <-f.Ok():
				dup[i] = ack.Duplicate
				continue
			case perr := <-f.Err():
				if isFull(perr) {
					full++
					continue
				}
				// published again below
			case <-ctx.Done():
				return dup, ctx.Err()
			}
		}
		// Not stored (the server restarting, say): again, until it is.
		err := retry(ctx, func() error {
			ack, err := c.js.PublishMsg(ctx, ts[i].msg(), jetstream.WithMsgID(ts[i].ID))
			if isFull(err) {
				return backoff.Permanent(err)
			}
			if err == nil {
				dup[i] = ack.Duplicate
			}
			return err
		})
		if isFull(err) {
			full++
			continue
		}
		if err != nil {
			return dup, fmt.Errorf("queue: publishing task %s of run %s: %w", ts[i].ID, ts[i].Run, err)
		}
	}
	if full > 0 {
		return dup, fmt.Errorf("%w: %d of %d tasks refused", ErrFull, full, len(ts))
	}
	return dup, nil
}

// errStoreFailed is the JetStream error code of a message a stream did
// not store; its description says why.
const errStoreFailed jetstream.ErrorCode = 10077

// isFull reports whether err is a stream refusing a message for its
// bound (discard new).
func isFull(err error) bool {
	var api *jetstream.APIError
	return errors.As(err, &api) && api.ErrorCode == errStoreFailed &&
		(strings.Contains(api.Description, "maximum messages") || strings.Contains(api.Description, "maximum bytes"))
}

// ItemDepth is how many keyed tasks Items holds (waiting or being done:
// a task leaves the stream once its reply is stored), and its bound (0
// when it has none).
func (c *Conn) ItemDepth(ctx context.Context) (depth, bound int64, err error) {
	st, err := c.js.Stream(ctx, Items)
	if err != nil {
		return 0, 0, fmt.Errorf("queue: stream %s: %w", Items, err)
	}
	info, err := st.Info(ctx)
	if err != nil {
		return 0, 0, fmt.Errorf("queue: stream %s: %w", Items, err)
	}
	return int64(info.State.Msgs), max(info.Config.MaxMsgs, 0), nil
}

// Backlog is the state of runs' tasks (Stream) at the workers'
// consumers (the shared one, and those of conversations' partitions):
// tasks no worker has taken yet, tasks handed out and not done (acked)
// yet, the workers taking tasks now, and the fetches of workers waiting
// for a task.
type Backlog struct {
	// Joined is false when no worker ever bound to the queue (no
	// consumer yet).
	Joined bool
	// Waiting are the tasks no worker has taken yet.
	Waiting int
	// Unacked are the tasks handed out and not done yet: in a worker's
	// hands, or given back (a refusal, a failed delivery, a worker
	// stopped or paused) and waiting to be delivered again. JetStream
	// counts both alike (NumAckPending), so this is no count of the
	// tasks being judged: with no worker taking tasks (Workers 0) none
	// of them is.
	Unacked int
	// Workers are the workers that hold a lease in bucket Workers now:
	// those taking tasks (a worker stopped, paused or refused holds none;
	// one killed keeps its lease until it expires).
	Workers int
	// Idle are the fetches of workers waiting for a task.
	Idle int
}

// Backlog is the state of runs' tasks at the workers' consumers now.
func (c *Conn) Backlog(ctx context.Context) (Backlog, error) {
	st, err := c.js.Stream(ctx, Stream)
	if err != nil {
		return Backlog{}, fmt.Errorf("queue: stream %s: %w", Stream, err)
	}
	var b Backlog
	l := st.ListConsumers(ctx)
	for info := range l.Info() {
		if info.Name != Consumer && !strings.HasPrefix(info.Name, partitionConsumer) {
			continue
		}
		b.Joined = true
		b.Waiting += int(info.NumPending)
		b.Unacked += info.NumAckPending
		b.Idle += info.NumWaiting
	}
	if err := l.Err(); err != nil {
		return Backlog{}, fmt.Errorf("queue: the consumers of %s: %w", Stream, err)
	}
	if !b.Joined {
		info, err := st.Info(ctx)
		if err != nil {
			return Backlog{}, fmt.Errorf("queue: stream %s: %w", Stream, err)
		}
		b.Waiting = int(info.State.Msgs)
	}
	keys, err := c.workers.ListKeysFiltered(ctx, memberPrefix+"*")
	if err != nil {
		return Backlog{}, fmt.Errorf("queue: bucket %s: %w", Workers, err)
	}
	for range keys.Keys() {
		b.Workers++
	}
	return b, nil
}

// Waiting is a keyed task not replied to yet: waiting, or being done.
type Waiting struct {
	Run, ID, Key string
	Body         []byte
}

// WaitingItems are the keyed tasks on Items, waiting or being done, whose
// reply keys match filter (a subject filter over keys: t.ABC.* say). A
// task replied to leaves the stream after its reply is stored, so a
// caller that reads these first and then the replies misses none.
func (c *Conn) WaitingItems(ctx context.Context, filter string) ([]Waiting, error) {
	st, err := c.js.Stream(ctx, Items)
	if err != nil {
		return nil, fmt.Errorf("queue: stream %s: %w", Items, err)
	}
	subjects := map[string]uint64{}
	for _, f := range []string{itemPrefix + "*." + filter, convItemPrefix + "*.*." + filter} {
		info, err := st.Info(ctx, jetstream.WithSubjectFilter(f))
		if err != nil {
			return nil, fmt.Errorf("queue: stream %s: %w", Items, err)
		}
		maps.Copy(subjects, info.State.Subjects)
	}
	var out []Waiting
	for _, subj := range slices.Sorted(maps.Keys(subjects)) {
		m, err := st.GetLastMsgForSubject(ctx, subj)
		if errors.Is(err, jetstream.ErrMsgNotFound) {
			continue // replied to meanwhile
		}
		if err != nil {
			return nil, fmt.Errorf("queue: stream %s: %w", Items, err)
		}
		run, key, _ := parseSubject(subj)
		out = append(out, Waiting{Run: run, ID: m.Header.Get(HeaderTask), Key: cmp.Or(m.Header.Get(HeaderKey), key), Body: m.Data})
	}
	slices.SortFunc(out, func(a, b Waiting) int { return cmp.Or(cmp.Compare(a.Run, b.Run), cmp.Compare(a.Key, b.Key)) })
	return out, nil
}

// Claim stores value under key in Bucket unless a value is there
// already, and reports whether this call stored it: of several clients
// that claim one key, exactly one is told true (the one to act, once).
func (c *Conn) Claim(ctx context.Context, key string, value []byte) (mine bool, err error) {
	err = retry(ctx, func() error {
		_, err := c.kv.Create(ctx, key, value)
		switch {
		case errors.Is(err, jetstream.ErrKeyExists):
			mine = false
		case err != nil:
			return err
		default:
			mine = true
		}
		return nil
	})
	return mine, err
}

func (t Outgoing) msg() *nats.Msg {
	subj := subjectPrefix + t.Run
	part := strconv.Itoa(Partition(t.Conversation))
	switch {
	case t.Key != "" && t.Conversation != "":
		subj = convItemPrefix + part + "." + t.Run + "." + t.Key
	case t.Key != "":
		subj = itemPrefix + t.Run + "." + t.Key
	case t.Conversation != "":
		subj = convPrefix + part + "." + t.Run
	}
	m := nats.NewMsg(subj)
	m.Header.Set(HeaderTask, t.ID)
	if t.Key != "" {
		m.Header.Set(HeaderKey, t.Key)
	}
	m.Data = t.Body
	return m
}

// RecordUndelivered stores, until ctx is done, the reply of each task of
// run whose deliveries ran out (Reply.Undelivered), where Watch yields it
// like any other: the server's advisories, kept in the Advisories stream
// however long the coordinator was away, name each by its sequence in
// Stream, where the task still is. Once its reply is stored the task is
// taken off Stream, so a resume can publish it again.
func (c *Conn) RecordUndelivered(ctx context.Context, run string) error {
	return c.RecordUndeliveredOf(ctx, func(r string) bool { return r == run })
}

// RecordUndeliveredOf is RecordUndelivered for the tasks of every run
// that match says is the caller's (a service's runs, say), each reply
// stored under its task's key. Several callers may record the same runs:
// the first reply stored is kept.
func (c *Conn) RecordUndeliveredOf(ctx context.Context, match func(run string) bool) error {
	read := c.advisories
	if read == nil {
		read = c.readAdvisories
	}
	var it jetstream.MessagesContext
	err := retry(ctx, func() error {
		var err error
		it, err = read(ctx)
		return err
	})
	if err != nil {
		if ctx.Err() != nil {
			return nil // ended before it read: as it ends while reading
		}
		return fmt.Errorf("queue: reading %s: %w", Advisories, err)
	}
	stop := context.AfterFunc(ctx, it.Stop)
	defer stop()
	defer it.Stop()
	for {
		// Next is bound to ctx itself: Stop alone does not end it when it
		// comes while the ordered consumer is made again after the server
		// restarted (Stop stops the consumer being replaced, Next goes on
		// with the new one and waits for ever, and the run with it).
		m, err := it.Next(jetstream.NextContext(ctx))
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			return fmt.Errorf("queue: reading %s: %w", Advisories, err)
		}
		var a struct {
			Stream     string `json:"stream"`
			StreamSeq  uint64 `json:"stream_seq"`
			Deliveries int    `json:"deliveries"`
		}
		if json.Unmarshal(m.Data(), &a) != nil || (a.Stream != Stream && a.Stream != Items) {
			continue
		}
		st, err := c.js.Stream(ctx, a.Stream)
		if err != nil {
			continue
		}
		tm, err := st.GetMsg(ctx, a.StreamSeq)
		if err != nil {
			continue // recorded and taken off already
		}
		run, _, ok := parseSubject(tm.Subject)
		if !ok || !match(run) {
			continue // another run's
		}
		r := Reply{Task: tm.Header.Get(HeaderTask), Undelivered: a.Deliveries,
			Err: fmt.Sprintf("its %d deliveries to workers ran out without a reply", a.Deliveries)}
		if _, err := c.put(ctx, replyKey(run, r.Task, tm.Header.Get(HeaderKey)), r); err != nil {
			if ctx.Err() != nil {
				return nil
			}
			return err
		}
		_ = st.DeleteMsg(ctx, a.StreamSeq) // gone already is as good
	}
}

// readAdvisories reads Advisories from its start, with an ordered
// consumer made again when the server restarts.
func (c *Conn) readAdvisories(ctx context.Context) (jetstream.MessagesContext, error) {
	cons, err := c.js.OrderedConsumer(ctx, Advisories, jetstream.OrderedConsumerConfig{})
	if err != nil {
		return nil, err
	}
	return cons.Messages()
}

// parseSubject reads a task's subject: its run, and the key of its reply
// when it names one (a task on Items).
func parseSubject(subj string) (run, key string, ok bool) {
	// A conversation's task: its partition, then what a task of no
	// conversation has.
	for conv, plain := range map[string]string{convPrefix: subjectPrefix, convItemPrefix: itemPrefix} {
		if rest, isConv := strings.CutPrefix(subj, conv); isConv {
			part, rest, _ := strings.Cut(rest, ".")
			if p, err := strconv.Atoi(part); err != nil || p < 0 || p >= Partitions {
				return "", "", false
			}
			subj = plain + rest
			break
		}
	}
	if rest, isItem := strings.CutPrefix(subj, itemPrefix); isItem {
		run, key, ok = strings.Cut(rest, ".")
		return run, key, ok && run != "" && key != ""
	}
	run, ok = strings.CutPrefix(subj, subjectPrefix)
	return run, "", ok && run != "" && !strings.Contains(run, ".")
}

// retry runs op until it succeeds, returns a backoff.Permanent error, or
// ctx is done: the server restarting or a leader being elected is waited
// out.
func retry(ctx context.Context, op func() error) error {
	b := backoff.NewExponentialBackOff()
	b.InitialInterval, b.MaxInterval, b.MaxElapsedTime = 50*time.Millisecond, 2*time.Second, 0
	return backoff.Retry(op, backoff.WithContext(b, ctx))
}
