package queue_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/stretchr/testify/require"

	"github.com/assaylabs/assay/internal/bgtest"
	"github.com/assaylabs/assay/internal/queuetest"
	"github.com/assaylabs/assay/queue"
)

// open starts an embedded server on a temporary store and opens the
// queue on it; both end with the test.
func open(t *testing.T) (*queue.Server, *queue.Conn) {
	t.Helper()
	return queuetest.Open(t, queue.Options{})
}

// work runs a worker with cfg until the test stops it (the returned
// func, also called at cleanup), and returns its error.
func work(t *testing.T, c *queue.Conn, cfg queue.WorkerConfig) (stop func() error) {
	t.Helper()
	return bgtest.Go(t, func(ctx context.Context) error { return c.Work(ctx, cfg) })
}

// next waits for the next reply, failing the test after a deadline.
func next(t *testing.T, replies <-chan queue.Reply) queue.Reply {
	t.Helper()
	select {
	case r := <-replies:
		return r
	case <-time.After(30 * time.Second):
		t.Fatal("no reply within 30s")
		return queue.Reply{}
	}
}

func streamMsgs(t *testing.T, nc interface {
	Stream(context.Context, string) (jetstream.Stream, error)
}) uint64 {
	t.Helper()
	st, err := nc.Stream(t.Context(), queue.Stream)
	require.NoError(t, err)
	info, err := st.Info(t.Context())
	require.NoError(t, err)
	return info.State.Msgs
}

// A task whose reply is stored already (its worker stored it and died
// before acking; or it was published again) is acked by the next worker
// without being done, and a second reply to it is not stored: a late
// duplicate costs nothing.
func TestLateDuplicateCostsNothing(t *testing.T) {
	srv, c := open(t)
	ctx := t.Context()
	require.NoError(t, c.Publish(ctx, "run1", []string{"t1", "t2"}, [][]byte{[]byte("one"), []byte("two")}))
	// The same ids again, within the duplicate window: nothing more is stored.
	require.NoError(t, c.Publish(ctx, "run1", []string{"t1", "t2"}, [][]byte{[]byte("one"), []byte("two")}))
	nc, err := srv.Connect("check")
	require.NoError(t, err)
	defer nc.Close()
	js, err := jetstream.New(nc)
	require.NoError(t, err)
	require.Equal(t, uint64(2), streamMsgs(t, js))

	// t1's reply is there before any worker took it.
	created, err := c.Put(ctx, "run1", queue.Reply{Task: "t1", Results: []byte(`"early"`)})
	require.NoError(t, err)
	require.True(t, created)

	replies, err := c.Watch(ctx, "run1")
	require.NoError(t, err)
	var handled atomic.Int32
	stop := work(t, c, queue.WorkerConfig{Endpoint: "e", Concurrency: 2, AckWait: 5 * time.Second, Handle: func(_ context.Context, task queue.Task) ([]byte, error) {
		handled.Add(1)
		return []byte(`"` + string(task.Body) + `"`), nil
	}})
	got := map[string]string{}
	for len(got) < 2 {
		r := next(t, replies)
		got[r.Task] = string(r.Results)
	}
	require.Equal(t, map[string]string{"t1": `"early"`, "t2": `"two"`}, got)
	require.Eventually(t, func() bool { return streamMsgs(t, js) == 0 }, 30*time.Second, 10*time.Millisecond, "both tasks acked off the work queue")
	require.NoError(t, stop())
	require.Equal(t, int32(1), handled.Load(), "t1 was done although replied to")

	// A late reply to t1 is not stored.
	created, err = c.Put(ctx, "run1", queue.Reply{Task: "t1", Results: []byte(`"late"`)})
	require.NoError(t, err)
	require.False(t, created)
}

// A task whose every delivery fails is recorded as undelivered: by the
// worker on its last delivery when the handler failed it, and from the
// server's advisory when the workers died with it (no worker said a
// thing).
func TestDeliveriesRunOut(t *testing.T) {
	_, c := open(t)
	ctx := t.Context()
	rctx, stopRecord := context.WithCancel(ctx)
	recorded := make(chan error, 1)
	go func() { recorded <- c.RecordUndelivered(rctx, "run2") }()
	defer func() { stopRecord(); require.NoError(t, <-recorded) }()
	replies, err := c.Watch(ctx, "run2")
	require.NoError(t, err)

	// The handler fails every delivery.
	require.NoError(t, c.Publish(ctx, "run2", []string{"bad"}, [][]byte{[]byte("x")}))
	var tries atomic.Int32
	stop := work(t, c, queue.WorkerConfig{Endpoint: "e", Concurrency: 1, AckWait: 5 * time.Second, MaxDeliver: 3, Handle: func(context.Context, queue.Task) ([]byte, error) {
		tries.Add(1)
		return nil, errors.New("judge exploded")
	}})
	r := next(t, replies)
	require.Equal(t, queue.Reply{Task: "bad", Undelivered: 3, Err: "judge exploded"}, r)
	require.Equal(t, int32(3), tries.Load())
	require.NoError(t, stop())

	// Workers that die at the task: each killed while at it.
	require.NoError(t, c.Publish(ctx, "run2", []string{"doomed"}, [][]byte{[]byte("y")}))
	for i := range 2 {
		started := make(chan struct{})
		stop := work(t, c, queue.WorkerConfig{Endpoint: "e", Concurrency: 1, AckWait: 5 * time.Second, MaxDeliver: 2, Handle: func(ctx context.Context, _ queue.Task) ([]byte, error) {
			close(started)
			<-ctx.Done()
			return nil, ctx.Err()
		}})
		select {
		case <-started:
		case <-time.After(30 * time.Second):
			t.Fatalf("delivery %d never came", i+1)
		}
		require.NoError(t, stop())
	}
	// A third worker asks; the server says the deliveries ran out.
	var done atomic.Int32
	work(t, c, queue.WorkerConfig{Endpoint: "e", Concurrency: 1, AckWait: 5 * time.Second, MaxDeliver: 2, Handle: func(context.Context, queue.Task) ([]byte, error) {
		done.Add(1)
		return []byte(`"late"`), nil
	}})
	r = next(t, replies)
	require.Equal(t, "doomed", r.Task)
	require.Equal(t, 2, r.Undelivered)
	require.Contains(t, r.Err, "deliveries to workers ran out")
	require.Equal(t, int32(0), done.Load())
}

// A task whose handler panics (a poison work item) fails that delivery,
// as an error would: it is delivered again until its deliveries run out,
// then recorded as undelivered with the panic, and the worker lives on to
// do the next task.
func TestPanickingTaskIsAFailedDelivery(t *testing.T) {
	_, c := open(t)
	ctx := t.Context()
	replies, err := c.Watch(ctx, "run3")
	require.NoError(t, err)
	require.NoError(t, c.Publish(ctx, "run3", []string{"poison"}, [][]byte{[]byte("boom")}))
	var tries atomic.Int32
	work(t, c, queue.WorkerConfig{Endpoint: "e", Concurrency: 1, AckWait: 5 * time.Second, MaxDeliver: 2, Handle: func(_ context.Context, task queue.Task) ([]byte, error) {
		if string(task.Body) == "boom" {
			tries.Add(1)
			panic("judge blew up")
		}
		return []byte(`"fine"`), nil
	}})
	r := next(t, replies)
	require.Equal(t, "poison", r.Task)
	require.Equal(t, 2, r.Undelivered)
	require.Contains(t, r.Err, "panicked: judge blew up")
	require.Equal(t, int32(2), tries.Load())

	require.NoError(t, c.Publish(ctx, "run3", []string{"next"}, [][]byte{[]byte("ok")}))
	r = next(t, replies)
	require.Equal(t, queue.Reply{Task: "next", Results: []byte(`"fine"`)}, r)
}

// Workers of two model endpoints share the one consumer: each task is
// done exactly once, both take tasks, and neither has more at once than
// its Concurrency.
func TestEndpointsShareTheQueue(t *testing.T) {
	srv, c := open(t)
	ctx := t.Context()
	nc, err := srv.Connect("check")
	require.NoError(t, err)
	defer nc.Close()
	js, err := jetstream.New(nc)
	require.NoError(t, err)

	type endpoint struct {
		name            string
		concurrency     int
		done, now, peak atomic.Int32
	}
	eps := []*endpoint{{name: "judge at http://a:8000/v1", concurrency: 2}, {name: "judge at http://b:8000/v1", concurrency: 4}}
	var mu sync.Mutex
	doneBy := map[string]int{}
	for _, ep := range eps {
		work(t, c, queue.WorkerConfig{Endpoint: ep.name, Concurrency: ep.concurrency, AckWait: 5 * time.Second, Handle: func(_ context.Context, task queue.Task) ([]byte, error) {
			n := ep.now.Add(1)
			defer ep.now.Add(-1)
			for p := ep.peak.Load(); n > p && !ep.peak.CompareAndSwap(p, n); p = ep.peak.Load() {
			}
			ep.done.Add(1)
			mu.Lock()
			doneBy[task.ID]++
			mu.Unlock()
			return []byte(`"ok"`), nil
		}})
	}
	// Both workers are waiting on the consumer before any task is there,
	// so the first tasks go to both.
	queuetest.WaitWorkers(t, js, 2)

	const n = 40
	ids, bodies := make([]string, n), make([][]byte, n)
	for i := range n {
		ids[i], bodies[i] = fmt.Sprintf("t%02d", i), []byte("x")
	}
	replies, err := c.Watch(ctx, "run1")
	require.NoError(t, err)
	require.NoError(t, c.Publish(ctx, "run1", ids, bodies))
	got := map[string]bool{}
	for range n {
		got[next(t, replies).Task] = true
	}
	require.Len(t, got, n)
	mu.Lock()
	defer mu.Unlock()
	for _, id := range ids {
		require.Equal(t, 1, doneBy[id], "task %s done", id)
	}
	for _, ep := range eps {
		require.Positive(t, ep.done.Load(), "tasks of %s", ep.name)
		require.LessOrEqual(t, int(ep.peak.Load()), ep.concurrency, "peak of %s", ep.name)
	}
	require.Equal(t, int32(n), eps[0].done.Load()+eps[1].done.Load())
}

// A consumer of an older assay (one per model endpoint) on the same
// subjects: the worker says what to do instead of taking tasks.
func TestOlderConsumerNamed(t *testing.T) {
	srv, c := open(t)
	nc, err := srv.Connect("check")
	require.NoError(t, err)
	defer nc.Close()
	js, err := jetstream.New(nc)
	require.NoError(t, err)
	_, err = js.CreateConsumer(t.Context(), queue.Stream, jetstream.ConsumerConfig{Durable: "assay-0123456789abcdef", AckPolicy: jetstream.AckExplicitPolicy, FilterSubject: "assay.task.>"})
	require.NoError(t, err)
	err = c.Work(t.Context(), queue.WorkerConfig{Endpoint: "b", Concurrency: 1, AckWait: time.Second, Handle: func(context.Context, queue.Task) ([]byte, error) { return nil, nil }})
	require.ErrorContains(t, err, "another consumer takes stream ASSAY_TASKS's tasks")
	require.ErrorContains(t, err, "nats consumer rm ASSAY_TASKS NAME")
}

// A task that names its reply's key (a service's) is replied to under
// that key, in revision order for every watcher; a second publish of it
// is reported a duplicate; and its pair, when its deliveries run out
// (the handler failing, or the workers dying with it), is recorded as
// undelivered under that key by RecordUndeliveredOf.
func TestKeyedTasks(t *testing.T) {
	_, c := open(t)
	ctx := t.Context()
	rctx, stopRecord := context.WithCancel(ctx)
	recorded := make(chan error, 1)
	go func() {
		recorded <- c.RecordUndeliveredOf(rctx, func(run string) bool { return run == "svc" })
	}()
	defer func() { stopRecord(); require.NoError(t, <-recorded) }()
	entries, err := c.WatchKeys(ctx, "k.>")
	require.NoError(t, err)
	nextEntry := func() queue.Entry {
		t.Helper()
		select {
		case e := <-entries:
			return e
		case <-time.After(30 * time.Second):
			t.Fatal("no entry within 30s")
			return queue.Entry{}
		}
	}

	tasks := []queue.Outgoing{{Run: "svc", ID: "i1", Key: "k.one", Body: []byte("one")}, {Run: "svc", ID: "i2", Key: "k.two", Body: []byte("fail")}}
	dup, err := c.PublishTasks(ctx, tasks)
	require.NoError(t, err)
	require.Equal(t, []bool{false, false}, dup)
	dup, err = c.PublishTasks(ctx, tasks[:1])
	require.NoError(t, err)
	require.Equal(t, []bool{true}, dup)

	stop := work(t, c, queue.WorkerConfig{Endpoint: "e", Concurrency: 2, AckWait: 5 * time.Second, MaxDeliver: 2, Handle: func(_ context.Context, task queue.Task) ([]byte, error) {
		if string(task.Body) == "fail" {
			return nil, errors.New("judge exploded")
		}
		return []byte(`"` + task.Key + `"`), nil
	}})
	got := map[string]queue.Reply{}
	var revs []uint64
	var order []string
	for len(got) < 2 {
		e := nextEntry()
		got[e.Key] = e.Reply()
		revs = append(revs, e.Revision)
		order = append(order, e.Key)
	}
	require.Less(t, revs[0], revs[1])
	require.Equal(t, queue.Reply{Task: "i1", Results: []byte(`"k.one"`)}, got["k.one"])
	require.Equal(t, queue.Reply{Task: "i2", Undelivered: 2, Err: "judge exploded"}, got["k.two"])
	require.NoError(t, stop())

	// Workers that die at a task: the server's advisory records it.
	require.NoError(t, c.Publish(ctx, "other", []string{"x"}, [][]byte{[]byte("not ours")}))
	_, err = c.PublishTasks(ctx, []queue.Outgoing{{Run: "svc", ID: "i3", Key: "k.three", Body: []byte("doomed")}})
	require.NoError(t, err)
	for i := range 2 {
		started := make(chan struct{})
		var once sync.Once
		stop := work(t, c, queue.WorkerConfig{Endpoint: "e", Concurrency: 1, AckWait: 5 * time.Second, MaxDeliver: 2, Handle: func(ctx context.Context, task queue.Task) ([]byte, error) {
			if string(task.Body) == "doomed" {
				once.Do(func() { close(started) })
				<-ctx.Done()
				return nil, ctx.Err()
			}
			return []byte(`"done"`), nil
		}})
		select {
		case <-started:
		case <-time.After(30 * time.Second):
			t.Fatalf("delivery %d never came", i+1)
		}
		require.NoError(t, stop())
	}
	work(t, c, queue.WorkerConfig{Endpoint: "e", Concurrency: 1, AckWait: 5 * time.Second, MaxDeliver: 2, Handle: func(context.Context, queue.Task) ([]byte, error) {
		return []byte(`"late"`), nil
	}})
	e := nextEntry()
	require.Equal(t, "k.three", e.Key)
	r := e.Reply()
	require.Equal(t, 2, r.Undelivered)
	require.Contains(t, r.Err, "deliveries to workers ran out")

	all, err := c.Entries(ctx, "k.>")
	require.NoError(t, err)
	var keys []string
	for _, e := range all {
		keys = append(keys, e.Key)
	}
	require.Equal(t, append(order, "k.three"), keys, "in revision order, as the watcher saw them")
}

// Keyed tasks wait on a stream bounded by MaxItems: a publish past the
// bound is refused, ErrFull, the tasks before it stored; a client that
// opens the queue without a bound (a worker) leaves it as it is; runs'
// tasks are not bounded by it. The tasks waiting are read back by key
// until their replies are stored, and the stream's room comes back.
func TestItemsBounded(t *testing.T) {
	ctx := t.Context()
	srv, c := queuetest.Open(t, queue.Options{MaxItems: 3})
	wnc, err := srv.Connect("worker")
	require.NoError(t, err)
	t.Cleanup(wnc.Close)
	w, err := queue.Open(ctx, wnc, queue.Options{})
	require.NoError(t, err)

	task := func(id string) queue.Outgoing {
		return queue.Outgoing{Run: "svc", ID: id, Key: "k." + id + ".m", Body: []byte(id)}
	}
	dup, err := c.PublishTasks(ctx, []queue.Outgoing{task("a"), task("b")})
	require.NoError(t, err)
	require.Equal(t, []bool{false, false}, dup)
	dup, err = c.PublishTasks(ctx, []queue.Outgoing{task("c"), task("d")})
	require.ErrorIs(t, err, queue.ErrFull)
	require.ErrorContains(t, err, "1 of 2 tasks refused")
	require.Equal(t, []bool{false, false}, dup)
	depth, bound, err := w.ItemDepth(ctx)
	require.NoError(t, err)
	require.Equal(t, [2]int64{3, 3}, [2]int64{depth, bound})
	// Runs' tasks are another stream's.
	require.NoError(t, c.Publish(ctx, "run1", []string{"x", "y", "z", "zz"}, [][]byte{{1}, {2}, {3}, {4}}))
	require.Equal(t, uint64(4), streamMsgs(t, js(t, srv)))

	waiting, err := w.WaitingItems(ctx, "k.*.m")
	require.NoError(t, err)
	require.Equal(t, []queue.Waiting{
		{Run: "svc", ID: "a", Key: "k.a.m", Body: []byte("a")},
		{Run: "svc", ID: "b", Key: "k.b.m", Body: []byte("b")},
		{Run: "svc", ID: "c", Key: "k.c.m", Body: []byte("c")},
	}, waiting)
	waiting, err = w.WaitingItems(ctx, "k.b.*")
	require.NoError(t, err)
	require.Len(t, waiting, 1)

	replies, err := w.WatchKeys(ctx, "k.>")
	require.NoError(t, err)
	work(t, w, queue.WorkerConfig{Endpoint: "e", Concurrency: 2, AckWait: 5 * time.Second, Handle: func(_ context.Context, task queue.Task) ([]byte, error) {
		return []byte(`"` + task.Key + `"`), nil
	}})
	done := map[string]bool{}
	for len(done) < 3 {
		select {
		case e := <-replies:
			done[e.Key] = true
		case <-time.After(30 * time.Second):
			t.Fatal("no reply within 30s")
		}
	}
	require.Eventually(t, func() bool {
		depth, _, err := c.ItemDepth(ctx)
		return err == nil && depth == 0
	}, 30*time.Second, 5*time.Millisecond, "the replied tasks leave the stream")
	waiting, err = w.WaitingItems(ctx, "k.*.m")
	require.NoError(t, err)
	require.Empty(t, waiting)
	dup, err = c.PublishTasks(ctx, []queue.Outgoing{task("c"), task("d")})
	require.NoError(t, err, "room again")
	require.Equal(t, []bool{true, false}, dup, "c was stored the first time")
}

func js(t *testing.T, srv *queue.Server) jetstream.JetStream {
	t.Helper()
	nc, err := srv.Connect("check")
	require.NoError(t, err)
	t.Cleanup(nc.Close)
	j, err := jetstream.New(nc)
	require.NoError(t, err)
	return j
}

// Of clients that claim one key at once, exactly one is told it is
// theirs, and a claim made later finds it taken.
func TestClaimOnce(t *testing.T) {
	srv, _ := open(t)
	const clients = 4
	conns := make([]*queue.Conn, clients)
	for i := range conns {
		nc, err := srv.Connect("claimer")
		require.NoError(t, err)
		t.Cleanup(nc.Close)
		conns[i], err = queue.Open(t.Context(), nc, queue.Options{})
		require.NoError(t, err)
	}
	for _, key := range []string{"alert.7.open.m", "alert.8.open.m"} {
		var won atomic.Int32
		var wg sync.WaitGroup
		for _, c := range conns {
			wg.Go(func() {
				mine, err := c.Claim(t.Context(), key, []byte("event"))
				if err != nil {
					t.Error(err)
				}
				if mine {
					won.Add(1)
				}
			})
		}
		wg.Wait()
		require.Equal(t, int32(1), won.Load(), key)
		mine, err := conns[0].Claim(t.Context(), key, []byte("again"))
		require.NoError(t, err)
		require.False(t, mine)
	}
}

// A worker whose model server does not answer (ErrUnavailable) gives its
// tasks in hand back and takes no more, while a worker with a server
// does them all: none is undelivered, though each may be delivered only
// twice, and the first worker tried no more tasks than it held at once.
func TestUnreachableWorkerPauses(t *testing.T) {
	_, c := open(t)
	ctx := t.Context()
	ids := []string{"t1", "t2", "t3", "t4", "t5", "t6"}
	bodies := make([][]byte, len(ids))
	for i, id := range ids {
		bodies[i] = []byte(id)
	}
	replies, err := c.Watch(ctx, "r")
	require.NoError(t, err)
	require.NoError(t, c.Publish(ctx, "r", ids, bodies))

	deadLog := queuetest.NewLog("worker: paused: dead at http://127.0.0.1:1/v1")
	var tried, probed atomic.Int32
	work(t, c, queue.WorkerConfig{Endpoint: "dead at http://127.0.0.1:1/v1", Concurrency: 2, AckWait: 5 * time.Second, MaxDeliver: 2, Log: deadLog,
		Handle: func(context.Context, queue.Task) ([]byte, error) {
			tried.Add(1)
			return nil, fmt.Errorf("faithfulness: %w: dial tcp 127.0.0.1:1: connect: connection refused", queue.ErrUnavailable)
		},
		Probe: func(context.Context) error {
			probed.Add(1)
			return errors.New("connection refused")
		}})
	deadLog.Wait(t)
	var done atomic.Int32
	work(t, c, queue.WorkerConfig{Endpoint: "alive", Concurrency: 2, AckWait: 5 * time.Second, MaxDeliver: 2, Handle: func(_ context.Context, task queue.Task) ([]byte, error) {
		done.Add(1)
		return []byte(`"` + string(task.Body) + `"`), nil
	}})
	got := map[string]queue.Reply{}
	for len(got) < len(ids) {
		r := next(t, replies)
		got[r.Task] = r
	}
	for _, id := range ids {
		require.Zero(t, got[id].Undelivered, "task %s: %s", id, got[id].Err)
		require.JSONEq(t, `"`+id+`"`, string(got[id].Results), "task %s", id)
	}
	require.Equal(t, int32(len(ids)), done.Load(), "every task done by the worker with a server")
	require.LessOrEqual(t, tried.Load(), int32(2), "tasks the paused worker tried: those it held at once")
	require.Contains(t, deadLog.String(), "given back to the queue (delivery 1 of 2)")
}

// A paused worker probes its server and, once it answers, takes tasks
// again: the tasks it gave back are done, by it, none undelivered.
func TestPausedWorkerResumes(t *testing.T) {
	_, c := open(t)
	ctx := t.Context()
	replies, err := c.Watch(ctx, "r")
	require.NoError(t, err)
	require.NoError(t, c.Publish(ctx, "r", []string{"a", "b", "c"}, [][]byte{[]byte("a"), []byte("b"), []byte("c")}))
	var down atomic.Bool
	down.Store(true)
	log := queuetest.NewLog("worker: paused: e: ")
	var tried atomic.Int32
	work(t, c, queue.WorkerConfig{Endpoint: "e", Concurrency: 1, AckWait: 5 * time.Second, Log: log,
		Handle: func(_ context.Context, task queue.Task) ([]byte, error) {
			tried.Add(1)
			if down.Load() {
				return nil, fmt.Errorf("judge: %w", queue.ErrUnavailable)
			}
			return []byte(`"` + string(task.Body) + `"`), nil
		},
		Probe: func(context.Context) error {
			if down.Load() {
				return errors.New("connection refused")
			}
			return nil
		}})
	log.Wait(t)
	require.Equal(t, int32(1), tried.Load(), "the paused worker tried only the task it held")
	down.Store(false)
	got := map[string]string{}
	for len(got) < 3 {
		r := next(t, replies)
		require.Zero(t, r.Undelivered, r.Err)
		got[r.Task] = string(r.Results)
	}
	require.Equal(t, map[string]string{"a": `"a"`, "b": `"b"`, "c": `"c"`}, got)
	require.Contains(t, log.String(), "worker: resumed: e answers again; taking tasks")
}
