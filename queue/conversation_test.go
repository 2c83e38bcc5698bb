package queue_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/stretchr/testify/require"

	"github.com/assaylabs/assay/internal/queuetest"
	"github.com/assaylabs/assay/queue"
)

// conversations are n conversation ids that fall in every partition, so
// that every worker owns some of them.
func conversations(t *testing.T) []string {
	t.Helper()
	seen := map[int]bool{}
	var out []string
	for i := 0; len(seen) < queue.Partitions; i++ {
		id := fmt.Sprintf("conv-%03d", i)
		if p := queue.Partition(id); !seen[p] {
			seen[p] = true
			out = append(out, id)
		}
		require.Less(t, i, 10000, "ids that fall in every partition")
	}
	return out
}

// conversationTasks are items tasks of each conversation, with bodies
// CONV/ITEM, and plain tasks of none, with bodies plain/N.
func conversationTasks(convs []string, items, plain int) []queue.Outgoing {
	var ts []queue.Outgoing
	for _, conv := range convs {
		for i := range items {
			ts = append(ts, queue.Outgoing{Run: "run1", ID: fmt.Sprintf("%s-%d", conv, i), Conversation: conv, Body: fmt.Appendf(nil, "%s/%d", conv, i)})
		}
	}
	for i := range plain {
		ts = append(ts, queue.Outgoing{Run: "run1", ID: fmt.Sprintf("plain-%d", i), Body: fmt.Appendf(nil, "plain/%d", i)})
	}
	return ts
}

// handled records which worker did which task.
type handled struct {
	mu sync.Mutex
	by map[string][]string // task body -> the workers that did it
}

func (h *handled) add(worker, body string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.by == nil {
		h.by = map[string][]string{}
	}
	h.by[body] = append(h.by[body], worker)
}

// byConversation is, for each conversation (the body's part before the
// slash), the workers that did its tasks, each once.
func (h *handled) byConversation() map[string]map[string]bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	out := map[string]map[string]bool{}
	for body, workers := range h.by {
		conv, _, _ := strings.Cut(body, "/")
		if out[conv] == nil {
			out[conv] = map[string]bool{}
		}
		for _, w := range workers {
			out[conv][w] = true
		}
	}
	return out
}

// waitShared waits until each log says the workers share the
// conversations as the test wants (all of them there).
func waitShared(t *testing.T, logs ...*queuetest.Log) {
	t.Helper()
	for _, l := range logs {
		l.Wait(t)
	}
}

// Three workers: every task of one conversation is done by one worker,
// each worker does some conversations, and the tasks of no conversation
// are spread over all three (each does one of the first three at once).
// Every task is done once.
func TestConversationGoesToOneWorker(t *testing.T) {
	_, c := queuetest.Open(t, queue.Options{Lease: 3 * time.Second})
	ctx := t.Context()
	names := []string{"w1", "w2", "w3"}
	var h handled
	var plainMu sync.Mutex
	plainIn := 0
	allIn := make(chan struct{})
	var logs []*queuetest.Log
	for _, name := range names {
		log := queuetest.NewLog("(3 worker(s) share them)")
		logs = append(logs, log)
		work(t, c, queue.WorkerConfig{Endpoint: name, Concurrency: 1, AckWait: 5 * time.Second, Log: log, Handle: func(ctx context.Context, task queue.Task) ([]byte, error) {
			if strings.HasPrefix(string(task.Body), "plain/") {
				// The first three wait for each other: one in each worker.
				plainMu.Lock()
				if plainIn++; plainIn == len(names) {
					close(allIn)
				}
				plainMu.Unlock()
				select {
				case <-allIn:
				case <-ctx.Done():
					return nil, ctx.Err()
				}
			}
			h.add(name, string(task.Body))
			return []byte(`"` + name + `"`), nil
		}})
	}
	waitShared(t, logs...)

	convs := conversations(t)
	tasks := conversationTasks(convs, 3, 9)
	replies, err := c.Watch(ctx, "run1")
	require.NoError(t, err)
	_, err = c.PublishTasks(ctx, tasks)
	require.NoError(t, err)
	got := map[string]bool{}
	for len(got) < len(tasks) {
		r := next(t, replies)
		require.Zero(t, r.Undelivered, r.Err)
		got[r.Task] = true
	}

	h.mu.Lock()
	for _, task := range tasks {
		require.Len(t, h.by[string(task.Body)], 1, "task %s done once", task.Body)
	}
	h.mu.Unlock()
	perWorker := map[string]int{}
	for conv, workers := range h.byConversation() {
		if conv == "plain" {
			continue
		}
		require.Len(t, workers, 1, "the workers of %s", conv)
		for w := range workers {
			perWorker[w]++
		}
	}
	plain := map[string]bool{}
	h.mu.Lock()
	for body, workers := range h.by {
		if strings.HasPrefix(body, "plain/") {
			plain[workers[0]] = true
		}
	}
	h.mu.Unlock()
	require.Len(t, plain, len(names), "tasks of no conversation done by every worker")
	require.Len(t, perWorker, len(names), "conversations done by every worker: %v", perWorker)
}

// A worker killed while it holds conversations' tasks (its connection cut,
// so it acks nothing and keeps its lease until it expires): the other
// takes its partitions over once the lease expires, and does every task
// of every conversation, the killed one's in hand among them, each once;
// nothing is lost or undelivered.
func TestKilledWorkersConversationsTakenOver(t *testing.T) {
	srv, c := queuetest.Open(t, queue.Options{Lease: time.Second})
	ctx := t.Context()
	held := make(chan string, queue.Partitions)
	logA, logB := queuetest.NewLog("(2 worker(s) share them)"), queuetest.NewLog("(2 worker(s) share them)")
	ncA, err := srv.Connect("a")
	require.NoError(t, err)
	t.Cleanup(ncA.Close)
	connA, err := queue.Open(ctx, ncA, queue.Options{})
	require.NoError(t, err)
	stopA := work(t, connA, queue.WorkerConfig{Endpoint: "a", Concurrency: 1, AckWait: 2 * time.Second, Log: logA, Handle: func(ctx context.Context, task queue.Task) ([]byte, error) {
		held <- string(task.Body)
		<-ctx.Done() // at it when killed
		return nil, ctx.Err()
	}})
	var h handled
	work(t, c, queue.WorkerConfig{Endpoint: "b", Concurrency: 2, AckWait: 2 * time.Second, Log: logB, Handle: func(_ context.Context, task queue.Task) ([]byte, error) {
		h.add("b", string(task.Body))
		return []byte(`"b"`), nil
	}})
	waitShared(t, logA, logB)

	tasks := conversationTasks(conversations(t), 3, 0)
	replies, err := c.Watch(ctx, "run1")
	require.NoError(t, err)
	_, err = c.PublishTasks(ctx, tasks)
	require.NoError(t, err)
	var inHand string
	select {
	case inHand = <-held:
	case <-time.After(queuetest.Deadline):
		t.Fatal("the worker to kill never took a task")
	}
	ncA.Close() // killed: no ack, no word, its lease left to expire
	require.NoError(t, stopA())

	got := map[string]queue.Reply{}
	for len(got) < len(tasks) {
		r := next(t, replies)
		got[r.Task] = r
	}
	for _, task := range tasks {
		r := got[task.ID]
		require.Zero(t, r.Undelivered, "task %s: %s", task.ID, r.Err)
		require.JSONEq(t, `"b"`, string(r.Results), "task %s", task.ID)
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, task := range tasks {
		require.Len(t, h.by[string(task.Body)], 1, "task %s done once", task.Body)
	}
	require.Equal(t, []string{"b"}, h.by[inHand], "the task the killed worker held")
}

// Conversations' tasks go on subjects of their partition, others' as
// before, and the backlog counts both.
func TestConversationSubjects(t *testing.T) {
	srv, c := open(t)
	ctx := t.Context()
	tasks := []queue.Outgoing{
		{Run: "run1", ID: "a", Conversation: "c1", Body: []byte("a")},
		{Run: "run1", ID: "b", Body: []byte("b")},
		{Run: "svc", ID: "k", Key: "t.x.m", Conversation: "c1", Body: []byte("k")},
	}
	_, err := c.PublishTasks(ctx, tasks)
	require.NoError(t, err)
	j := js(t, srv)
	subjects := func(stream string) []string {
		st, err := j.Stream(ctx, stream)
		require.NoError(t, err)
		info, err := st.Info(ctx, jetstream.WithSubjectFilter(">"))
		require.NoError(t, err)
		var out []string
		for s := range info.State.Subjects {
			out = append(out, s)
		}
		return out
	}
	p := fmt.Sprint(queue.Partition("c1"))
	require.ElementsMatch(t, []string{"assay.ctask." + p + ".run1", "assay.task.run1"}, subjects(queue.Stream))
	require.Equal(t, []string{"assay.citem." + p + ".svc.t.x.m"}, subjects(queue.Items))
	waiting, err := c.WaitingItems(ctx, "t.x.*")
	require.NoError(t, err)
	require.Equal(t, []queue.Waiting{{Run: "svc", ID: "k", Key: "t.x.m", Body: []byte("k")}}, waiting)
	bl, err := c.Backlog(ctx)
	require.NoError(t, err)
	require.Equal(t, queue.Backlog{Waiting: 2}, bl)
}

// A worker whose model server does not answer gives its conversations up
// while it is paused: the worker with a server does all their tasks,
// none undelivered.
func TestPausedWorkerGivesConversationsUp(t *testing.T) {
	_, c := queuetest.Open(t, queue.Options{Lease: 3 * time.Second})
	ctx := t.Context()
	deadLog, aliveLog := queuetest.NewLog("(2 worker(s) share them)"), queuetest.NewLog("(2 worker(s) share them)")
	work(t, c, queue.WorkerConfig{Endpoint: "dead", Concurrency: 1, AckWait: 5 * time.Second, Log: deadLog,
		Handle: func(context.Context, queue.Task) ([]byte, error) {
			return nil, fmt.Errorf("judge: %w", queue.ErrUnavailable)
		},
		Probe: func(context.Context) error { return fmt.Errorf("connection refused") }})
	var h handled
	work(t, c, queue.WorkerConfig{Endpoint: "alive", Concurrency: 2, AckWait: 5 * time.Second, Log: aliveLog, Handle: func(_ context.Context, task queue.Task) ([]byte, error) {
		h.add("alive", string(task.Body))
		return []byte(`"alive"`), nil
	}})
	waitShared(t, deadLog, aliveLog)

	tasks := conversationTasks(conversations(t), 2, 0)
	replies, err := c.Watch(ctx, "run1")
	require.NoError(t, err)
	_, err = c.PublishTasks(ctx, tasks)
	require.NoError(t, err)
	got := map[string]queue.Reply{}
	for len(got) < len(tasks) {
		r := next(t, replies)
		got[r.Task] = r
	}
	for _, task := range tasks {
		r := got[task.ID]
		require.Zero(t, r.Undelivered, "task %s: %s", task.ID, r.Err)
		require.JSONEq(t, `"alive"`, string(r.Results), "task %s", task.ID)
	}
	require.Contains(t, deadLog.String(), "worker: dead takes no conversation's tasks; the other 1 worker(s) share them")
}
