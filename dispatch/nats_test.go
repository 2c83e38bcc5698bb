package dispatch_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/assaylabs/assay/dataset"
	"github.com/assaylabs/assay/dispatch"
	"github.com/assaylabs/assay/eval"
	"github.com/assaylabs/assay/internal/queuetest"
	"github.com/assaylabs/assay/queue"
	"github.com/assaylabs/assay/run"
)

func natsConfig() run.Config {
	return run.Config{RunID: "20261206T030000Z-0001", Model: "offline (approximate)", Metrics: []string{"a", "b", "c"},
		Prompts: map[string]string{"faithfulness.claims": "2"}, Settings: map[string]string{"--strict": "false"}}
}

// counted counts the judgements of u.
func counted(u dispatch.Unit, n *atomic.Int32) dispatch.Unit {
	return dispatch.Unit{Metrics: u.Metrics, Judge: func(ctx context.Context, s eval.Sample) ([]eval.Score, error) {
		n.Add(1)
		return u.Judge(ctx, s)
	}}
}

// TestNATSThroughAWorker: the items go out as tasks to an in-process
// worker handed its plan, and come back as their units' results; a
// coordinator started again on the same store publishes none twice and
// takes the replies stored already.
func TestNATSThroughAWorker(t *testing.T) {
	t.Parallel()
	cfg, dir := natsConfig(), t.TempDir()
	var judged atomic.Int32
	units := []dispatch.Unit{counted(lengthUnit("a"), &judged), counted(lengthUnit("b", "c"), &judged)}
	plan := func(got run.Config) ([]dispatch.Unit, run.Config, error) {
		return units, run.Config{Model: cfg.Model, Prompts: cfg.Prompts, Settings: cfg.Settings}, nil
	}
	n := &dispatch.NATS{Config: cfg, Dir: dir, Units: units, Workers: func(conn *queue.Conn) ([]queue.WorkerConfig, func(), error) {
		w := dispatch.NewWorker(conn, plan)
		return []queue.WorkerConfig{{Endpoint: "test", Concurrency: 2, AckWait: time.Minute, Handle: w.Handle}}, func() {}, nil
	}}
	x, y := rec("x", "four", 1), rec("y", "seven!!", 2)
	items := itemsOf(dispatch.Item{Record: x, Unit: 0}, dispatch.Item{Record: x, Unit: 1}, dispatch.Item{Record: y, Unit: 1})
	want := map[string][]float64{"x/0": {4}, "x/1": {4, 4.1}, "y/1": {7, 7.1}}
	for _, attempt := range []string{"first", "again"} {
		var d delivered
		require.NoError(t, n.Dispatch(t.Context(), items, d.deliver), attempt)
		assert.Equal(t, want, d.values, attempt)
		slices.Sort(d.done)
		assert.Equal(t, []string{"x", "y"}, d.done, attempt)
		assert.Equal(t, int32(3), judged.Load(), "%s: each task judged once", attempt)
	}
}

// TestWorkerRefusesOtherJudges: a worker whose judges differ from the
// run's refuses its tasks, naming the difference; one with the run's
// judges judges the task's unit.
func TestWorkerRefusesOtherJudges(t *testing.T) {
	t.Parallel()
	_, conn := queuetest.Open(t, queue.Options{})
	cfg := natsConfig()
	spec, err := json.Marshal(cfg)
	require.NoError(t, err)
	require.NoError(t, conn.PutSpec(t.Context(), cfg.RunID, spec))
	body, err := json.Marshal(map[string]any{"unit": 0, "metrics": []string{"a"}, "version": dispatch.JudgeVersion(cfg), "sample": eval.Sample{ID: "x", Answer: "four"}})
	require.NoError(t, err)
	task := queue.Task{Run: cfg.RunID, ID: "t1", Body: body}
	for name, tc := range map[string]struct {
		model   string
		results []run.Result
		refused string
	}{
		"the run's judges": {model: cfg.Model, results: []run.Result{{ID: "x", Metric: "a", Value: 4}}},
		"another model":    {model: "openai:gpt-x", refused: `this worker judges otherwise than the run: model is "offline (approximate)" for the run, "openai:gpt-x" here`},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			w := dispatch.NewWorker(conn, func(run.Config) ([]dispatch.Unit, run.Config, error) {
				return []dispatch.Unit{lengthUnit("a")}, run.Config{Model: tc.model, Prompts: cfg.Prompts, Settings: cfg.Settings}, nil
			})
			reply, err := w.Handle(t.Context(), task)
			if tc.refused != "" {
				require.ErrorIs(t, err, queue.ErrRefused)
				assert.ErrorContains(t, err, tc.refused)
				return
			}
			require.NoError(t, err)
			var got []run.Result
			require.NoError(t, json.Unmarshal(reply, &got))
			require.Len(t, got, 1)
			assert.Equal(t, tc.results[0].ID, got[0].ID)
			assert.Equal(t, tc.results[0].Metric, got[0].Metric)
			assert.InDelta(t, tc.results[0].Value, got[0].Value, 1e-9)
		})
	}
}

// TestStalled: a dispatch with no worker ends after StallTimeout with a
// StalledError saying what waits and how to resume.
func TestStalled(t *testing.T) {
	t.Parallel()
	fire := make(chan time.Time, 1)
	fire <- time.Time{}
	n := &dispatch.NATS{Config: natsConfig(), Dir: t.TempDir(), Units: []dispatch.Unit{lengthUnit("b", "c")}, StallTimeout: time.Minute,
		After: func(time.Duration) <-chan time.Time { return fire }, Resume: "assay bench --resume --out runs/x"}
	var d delivered
	err := n.Dispatch(t.Context(), itemsOf(dispatch.Item{Record: rec("x", "", 1)}, dispatch.Item{Record: rec("y", "", 2)}), d.deliver)
	stalled, ok := errors.AsType[*dispatch.StalledError](err)
	require.True(t, ok, "got %v", err)
	assert.Equal(t, 2, stalled.Tasks)
	assert.Equal(t, 4, stalled.Pairs)
	assert.Equal(t, 2, stalled.Records)
	require.NotNil(t, stalled.Backlog)
	assert.False(t, stalled.Backlog.Joined)
	assert.Contains(t, err.Error(), "no worker has ever joined the queue")
	assert.Contains(t, err.Error(), "resume with: assay bench --resume --out runs/x")
	assert.Empty(t, d.values)
}

// TestStalledNamesRefusals: a remote worker that refuses the run (its
// judges are not the run's) says so in the queue, and the coordinator's
// stall names it and why, as the worker's own log does on its machine.
func TestStalledNamesRefusals(t *testing.T) {
	t.Parallel()
	cfg := natsConfig()
	fire := make(chan time.Time)
	other := func(run.Config) ([]dispatch.Unit, run.Config, error) {
		return []dispatch.Unit{lengthUnit("a")}, run.Config{Model: "openai:gpt-x", Prompts: cfg.Prompts, Settings: cfg.Settings}, nil
	}
	n := &dispatch.NATS{Config: cfg, Dir: t.TempDir(), Units: []dispatch.Unit{lengthUnit("a")}, StallTimeout: time.Minute,
		After: func(time.Duration) <-chan time.Time { return fire }, Resume: "assay bench --resume --out runs/x",
		Workers: func(conn *queue.Conn) ([]queue.WorkerConfig, func(), error) {
			// A worker of its own, as one on another machine is: its
			// refusal does not end the dispatch.
			w := dispatch.NewWorker(conn, other)
			go func() {
				err := conn.Work(t.Context(), queue.WorkerConfig{Endpoint: "gpu-b", Concurrency: 1, AckWait: time.Minute, Handle: w.Handle})
				assert.ErrorIs(t, err, queue.ErrRefused)
				fire <- time.Time{}
			}()
			return nil, func() {}, nil
		}}
	var d delivered
	err := n.Dispatch(t.Context(), itemsOf(dispatch.Item{Record: rec("x", "four", 1)}), d.deliver)
	stalled, ok := errors.AsType[*dispatch.StalledError](err)
	require.True(t, ok, "got %v", err)
	require.Len(t, stalled.Refusals, 1)
	assert.Equal(t, "gpu-b", stalled.Refusals[0].Endpoint)
	assert.Contains(t, err.Error(), `; the workers of gpu-b refused the run: run `+cfg.RunID+`: this worker judges otherwise than the run: model is "offline (approximate)" for the run, "openai:gpt-x" here`)
}

// TestNATSKeysConversations: the tasks of a sample that is a conversation,
// or a turn of one (its metadata's conversation_id), go on the subject of
// the conversation's partition, so that one worker takes them all; the
// others' on the run's subject, for any worker.
func TestNATSKeysConversations(t *testing.T) {
	t.Parallel()
	fire := make(chan time.Time, 1)
	fire <- time.Time{}
	cfg, dir := natsConfig(), t.TempDir()
	n := &dispatch.NATS{Config: cfg, Dir: dir, Units: []dispatch.Unit{lengthUnit("a"), lengthUnit("b")}, StallTimeout: time.Minute,
		After: func(time.Duration) <-chan time.Time { return fire }}
	chat := dataset.Record{ID: "chat-1", Line: 1, Sample: eval.Sample{ID: "chat-1", Messages: []eval.Message{{Role: eval.RoleUser, Content: "hi"}}}}
	turn := dataset.Record{ID: "turn-2", Line: 2, Sample: eval.Sample{ID: "turn-2", Answer: "yes", Metadata: map[string]any{"conversation_id": "session-9"}}}
	var d delivered
	err := n.Dispatch(t.Context(), itemsOf(dispatch.Item{Record: chat, Unit: 0}, dispatch.Item{Record: chat, Unit: 1},
		dispatch.Item{Record: turn, Unit: 0}, dispatch.Item{Record: rec("plain", "x", 3), Unit: 0}), d.deliver)
	_, stalled := errors.AsType[*dispatch.StalledError](err)
	require.True(t, stalled, "got %v", err)

	srv, err := queue.StartServer(queue.ServerConfig{StoreDir: filepath.Join(dir, dispatch.FileNATS)})
	require.NoError(t, err)
	defer srv.Close()
	nc, err := srv.Connect("check")
	require.NoError(t, err)
	defer nc.Close()
	js, err := jetstream.New(nc)
	require.NoError(t, err)
	st, err := js.Stream(t.Context(), queue.Stream)
	require.NoError(t, err)
	info, err := st.Info(t.Context(), jetstream.WithSubjectFilter(">"))
	require.NoError(t, err)
	want := map[string]uint64{"assay.task." + cfg.RunID: 1}
	want[fmt.Sprintf("assay.ctask.%d.%s", queue.Partition("chat-1"), cfg.RunID)] += 2
	want[fmt.Sprintf("assay.ctask.%d.%s", queue.Partition("session-9"), cfg.RunID)]++
	assert.Equal(t, want, info.State.Subjects)
}

// TestConversation: what keys a sample's tasks.
func TestConversation(t *testing.T) {
	t.Parallel()
	for name, tc := range map[string]struct {
		sample eval.Sample
		want   string
	}{
		"messages":                     {eval.Sample{ID: "c1", Messages: []eval.Message{{Role: eval.RoleUser, Content: "hi"}}}, "c1"},
		"expected calls alone":         {eval.Sample{ID: "c2", ExpectedToolCalls: []eval.ExpectedToolCall{{Name: "search"}}}, "c2"},
		"a turn of a session":          {eval.Sample{ID: "t7", Answer: "x", Metadata: map[string]any{"conversation_id": "s1"}}, "s1"},
		"the session wins over the id": {eval.Sample{ID: "t8", Messages: []eval.Message{{Role: eval.RoleUser}}, Metadata: map[string]any{"conversation_id": "s1"}}, "s1"},
		"an id that is not text":       {eval.Sample{ID: "t9", Answer: "x", Metadata: map[string]any{"conversation_id": 12}}, ""},
		"a RAG answer":                 {eval.Sample{ID: "r1", Query: "q", Answer: "a"}, ""},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tc.want, dispatch.Conversation(tc.sample))
		})
	}
}

// TestStalledSaysWhetherWorkersTakeTasks: the stall's figures are the
// queue's own (tasks handed out and not done, given back ones among them,
// and the workers taking tasks), and the hint that no worker takes tasks
// goes by the workers, not by the tasks handed out: a worker that refused
// and stopped leaves its tasks unacked, held by no one.
func TestStalledSaysWhetherWorkersTakeTasks(t *testing.T) {
	t.Parallel()
	const noWorker = "; no worker is taking tasks now: are the workers running, and their model servers up?"
	tests := map[string]struct {
		backlog queue.Backlog
		figures string
		hint    bool
	}{
		"tasks given back, no worker": {
			backlog: queue.Backlog{Joined: true, Unacked: 3},
			figures: "the queue holds 0 task(s) no worker has taken and 3 handed out and not done (in a worker's hands, or given back to be delivered again), 0 worker(s) taking tasks, 0 worker fetch(es) waiting",
			hint:    true,
		},
		"a worker at its tasks": {
			backlog: queue.Backlog{Joined: true, Waiting: 2, Unacked: 3, Workers: 1},
			figures: "the queue holds 2 task(s) no worker has taken and 3 handed out and not done (in a worker's hands, or given back to be delivered again), 1 worker(s) taking tasks, 0 worker fetch(es) waiting",
		},
		"nothing handed out, no worker": {
			backlog: queue.Backlog{Joined: true, Waiting: 2},
			figures: "the queue holds 2 task(s) no worker has taken and 0 handed out and not done (in a worker's hands, or given back to be delivered again), 0 worker(s) taking tasks, 0 worker fetch(es) waiting",
			hint:    true,
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			e := &dispatch.StalledError{Timeout: time.Minute, Tasks: 5, Pairs: 5, Records: 5, Backlog: &tc.backlog, Resume: "assay bench --resume --out runs/x"}
			msg := e.Error()
			assert.Contains(t, msg, "; "+tc.figures)
			if tc.hint {
				assert.Contains(t, msg, noWorker)
			} else {
				assert.NotContains(t, msg, noWorker)
			}
		})
	}
}

// TestRefusalCostsNoDelivery: a worker that refuses a run (its judges are
// not the run's), started again and again as a restart policy does,
// refuses from the run's specification before it takes any task, so the
// run's tasks keep their deliveries, and a worker with the run's judges
// judges them afterwards, on their first delivery.
func TestRefusalCostsNoDelivery(t *testing.T) {
	t.Parallel()
	_, conn := queuetest.Open(t, queue.Options{})
	ctx := t.Context()
	cfg := natsConfig()
	spec, err := json.Marshal(cfg)
	require.NoError(t, err)
	require.NoError(t, conn.PutSpec(ctx, cfg.RunID, spec))
	body, err := json.Marshal(map[string]any{"unit": 0, "metrics": []string{"a"}, "version": dispatch.JudgeVersion(cfg), "sample": eval.Sample{ID: "x", Answer: "four"}})
	require.NoError(t, err)
	rctx, stopRecord := context.WithCancel(ctx)
	recorded := make(chan error, 1)
	go func() { recorded <- conn.RecordUndelivered(rctx, cfg.RunID) }()
	defer func() { stopRecord(); require.NoError(t, <-recorded) }()
	replies, err := conn.Watch(ctx, cfg.RunID)
	require.NoError(t, err)
	_, err = conn.PublishTasks(ctx, []queue.Outgoing{{Run: cfg.RunID, ID: "t1", Body: body}})
	require.NoError(t, err)

	workerOf := func(model string, deliveries *atomic.Int32) queue.WorkerConfig {
		w := dispatch.NewWorker(conn, func(run.Config) ([]dispatch.Unit, run.Config, error) {
			return []dispatch.Unit{lengthUnit("a")}, run.Config{Model: model, Prompts: cfg.Prompts, Settings: cfg.Settings}, nil
		})
		handle := func(ctx context.Context, task queue.Task) ([]byte, error) {
			deliveries.Store(int32(task.Delivery))
			return w.Handle(ctx, task)
		}
		return queue.WorkerConfig{Endpoint: model, Concurrency: 4, AckWait: time.Minute, MaxDeliver: 2, Handle: handle, Accept: w.Accept}
	}
	var badSaw, goodSaw atomic.Int32
	for i := range 3 {
		refused := make(chan error, 1)
		go func() { refused <- conn.Work(ctx, workerOf("openai:gpt-x", &badSaw)) }()
		select {
		case err := <-refused:
			require.ErrorIs(t, err, queue.ErrRefused, "start %d", i+1)
			assert.ErrorContains(t, err, `model is "offline (approximate)" for the run, "openai:gpt-x" here`)
		case <-time.After(30 * time.Second):
			t.Fatalf("start %d: the worker never refused the run (the task ran out of deliveries?)", i+1)
		}
	}
	assert.Zero(t, badSaw.Load(), "the refusing worker took a task")
	refusals, err := conn.Refusals(ctx, cfg.RunID)
	require.NoError(t, err)
	require.Len(t, refusals, 1)
	assert.Equal(t, "openai:gpt-x", refusals[0].Endpoint)

	wctx, stopGood := context.WithCancel(ctx)
	good := make(chan error, 1)
	go func() { good <- conn.Work(wctx, workerOf(cfg.Model, &goodSaw)) }()
	defer func() { stopGood(); require.NoError(t, <-good) }()
	select {
	case r := <-replies:
		require.Zero(t, r.Undelivered, r.Err)
		var got []run.Result
		require.NoError(t, json.Unmarshal(r.Results, &got))
		require.Len(t, got, 1)
		assert.Equal(t, "a", got[0].Metric)
		assert.InDelta(t, 4, got[0].Value, 1e-9)
	case <-time.After(30 * time.Second):
		t.Fatal("no reply within 30s")
	}
	assert.Equal(t, int32(1), goodSaw.Load(), "the good worker's delivery of the task")
}
