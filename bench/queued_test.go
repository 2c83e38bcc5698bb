package bench_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/stretchr/testify/require"

	"github.com/assaylabs/assay/agent"
	"github.com/assaylabs/assay/bench"
	"github.com/assaylabs/assay/dispatch"
	"github.com/assaylabs/assay/eval"
	"github.com/assaylabs/assay/internal/bgtest"
	"github.com/assaylabs/assay/internal/llmtest"
	"github.com/assaylabs/assay/internal/queuetest"
	"github.com/assaylabs/assay/judging"
	"github.com/assaylabs/assay/metric"
	"github.com/assaylabs/assay/queue"
	"github.com/assaylabs/assay/run"
)

// fakeModel is an OpenAI-compatible fake that counts the replies it
// delivered whole (the ones paid for) and can hold one request until the
// test lets it go or its caller goes away.
type fakeModel struct {
	url     string
	replies atomic.Int64
	calls   atomic.Int64
	// now and peak are the requests being answered, and the most at once.
	now, peak atomic.Int64
	// holdAt, when set, is the request (from 1) held until release is
	// closed or its caller goes away; held is closed when it arrives.
	holdAt  int64
	held    chan struct{}
	release chan struct{}
	once    sync.Once
	// together, when set, holds every request until this many are being
	// answered at once (then reached is closed), its caller goes away or
	// the test ends.
	together atomic.Int64
	reached  chan struct{}
	reachOne sync.Once
}

func newFakeModel(t *testing.T, holdAt int64, opts ...llmtest.Option) *fakeModel {
	t.Helper()
	inner := llmtest.Start(append([]llmtest.Option{llmtest.Func(llmtest.JudgeReplies), llmtest.Quiet()}, opts...)...)
	f := &fakeModel{holdAt: holdAt, held: make(chan struct{}), release: make(chan struct{}), reached: make(chan struct{})}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := f.now.Add(1)
		defer f.now.Add(-1)
		for p := f.peak.Load(); n > p && !f.peak.CompareAndSwap(p, n); p = f.peak.Load() {
		}
		if k := f.together.Load(); k > 0 {
			if n >= k {
				f.reachOne.Do(func() { close(f.reached) })
			}
			select {
			case <-f.reached:
			case <-f.release: // the test ends
			case <-r.Context().Done():
				return
			}
		}
		if n := f.calls.Add(1); n == f.holdAt {
			close(f.held)
			select {
			case <-f.release:
			case <-r.Context().Done():
				return // the caller died: nothing delivered
			}
		}
		inner.Handler().ServeHTTP(w, r)
		if r.Context().Err() == nil {
			f.replies.Add(1)
		}
	}))
	f.url = srv.URL + "/v1"
	t.Cleanup(func() {
		f.letGo()
		srv.Close()
		inner.Close()
	})
	return f
}

// letGo releases the held request (once).
func (f *fakeModel) letGo() { f.once.Do(func() { close(f.release) }) }

// waitHeld waits until the held request arrived.
func (f *fakeModel) waitHeld(t *testing.T) {
	t.Helper()
	select {
	case <-f.held:
	case <-time.After(60 * time.Second):
		t.Fatal("the request to hold never came")
	}
}

func (f *fakeModel) env(key string) string {
	return map[string]string{"OPENAI_BASE_URL": f.url, "OPENAI_API_KEY": "test-key"}[key]
}

// queueData writes n RAG samples as JSON Lines; "bad" names the samples
// the failing metric fails on.
func queueData(t testing.TB, n int) string {
	t.Helper()
	var b strings.Builder
	for i := range n {
		line, err := json.Marshal(map[string]any{
			"id": fmt.Sprintf("s%02d", i), "question": fmt.Sprintf("What does study %d find about sleep?", i),
			"answer":   fmt.Sprintf("Study %d finds that sleep helps memory. Participants slept eight hours.", i),
			"contexts": []string{fmt.Sprintf("Study %d reports that sleep consolidates memory in adults.", i)},
		})
		require.NoError(t, err)
		b.Write(line)
		b.WriteByte('\n')
	}
	path := filepath.Join(t.TempDir(), "data.jsonl")
	require.NoError(t, os.WriteFile(path, []byte(b.String()), 0o644))
	return path
}

// judgingFor is a model client of f with its cache in dir (shared by
// the coordinator and the workers of a test, as on one machine).
func judgingFor(dir string) judging.Config {
	j := judging.Default()
	j.LLM.Spec = "openai:fake-judge"
	j.LLM.CachePath = filepath.Join(dir, "llm-cache.db")
	j.LLM.Concurrency = 2
	j.LLM.CallTimeout = 20 * time.Second
	return j
}

// pairs reads results.jsonl: the number of lines of each pair.
func pairs(t *testing.T, dir string) map[run.Key]int {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, run.FileResults))
	require.NoError(t, err)
	out := map[run.Key]int{}
	for line := range strings.Lines(string(data)) {
		var r run.Result
		require.NoError(t, json.Unmarshal([]byte(line), &r))
		out[r.Key()]++
	}
	return out
}

// requireAllOnce checks that results.jsonl holds every pair of n samples
// and metrics exactly once, none defaulted.
func requireAllOnce(t *testing.T, dir string, n int, metrics ...string) {
	t.Helper()
	got := pairs(t, dir)
	require.Len(t, got, n*len(metrics), "pairs lost")
	for i := range n {
		for _, m := range metrics {
			k := run.Key{ID: fmt.Sprintf("s%02d", i), Metric: m}
			require.Equal(t, 1, got[k], "lines of %v", k)
		}
	}
	rf, err := run.ReadResults(filepath.Join(dir, run.FileResults))
	require.NoError(t, err)
	for _, r := range rf.Results {
		require.False(t, r.Defaulted, "%s %s defaulted: %s", r.ID, r.Metric, r.Error)
	}
}

// natsServer starts a NATS server on a loopback port with its store in
// dir; restart stops it and starts it again on the same port and store.
func natsServer(t *testing.T, dir string) (url string, restart func()) {
	t.Helper()
	var lc net.ListenConfig
	l, err := lc.Listen(t.Context(), "tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := l.Addr().String()
	require.NoError(t, l.Close())
	var mu sync.Mutex
	start := func() *queue.Server {
		srv, err := queue.StartServer(queue.ServerConfig{StoreDir: dir, Listen: addr})
		require.NoError(t, err)
		return srv
	}
	srv := start()
	t.Cleanup(func() {
		mu.Lock()
		defer mu.Unlock()
		srv.Close()
	})
	return "nats://" + addr, func() {
		mu.Lock()
		defer mu.Unlock()
		srv.Close()
		srv = start()
	}
}

// startWorker runs bench.Work until stop (also called at cleanup).
func startWorker(t *testing.T, job bench.WorkerJob) (stop func() error) {
	t.Helper()
	return bgtest.Go(t, func(ctx context.Context) error { return bench.Work(ctx, job) })
}

// execute runs a bench job in the background; wait returns its outcome.
func execute(ctx context.Context, job bench.Job) (wait func() (*bench.Outcome, error)) {
	type res struct {
		out *bench.Outcome
		err error
	}
	done := make(chan res, 1)
	go func() {
		out, err := bench.Execute(ctx, job)
		done <- res{out, err}
	}()
	return func() (*bench.Outcome, error) {
		select {
		case r := <-done:
			return r.out, r.err
		case <-time.After(2 * time.Minute):
			return nil, errors.New("the run did not end within 2 minutes")
		}
	}
}

const samples = 10

// faithfulness makes two calls a sample (claims, then verdicts).
const callsPerSample = 2

// A queued run with in-process workers writes what the in-process run
// writes: the same pairs, values and calls.
func TestQueuedMatchesInProcess(t *testing.T) {
	data := queueData(t, samples)
	values := map[string]map[run.Key]float64{}
	for _, tc := range []struct {
		name    string
		workers int
	}{{"in-process", 0}, {"queue, 1 worker", 1}, {"queue, 3 workers", 3}} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFakeModel(t, 0)
			dir := t.TempDir()
			out, err := bench.Execute(t.Context(), bench.Job{Data: data, Metrics: []string{"faithfulness", "context_precision"}, Out: filepath.Join(dir, "run"),
				NoStore: true, Env: f.env, Judging: judgingFor(dir), Queue: bench.Queue{Workers: tc.workers}})
			require.NoError(t, err)
			require.Empty(t, out.Failures)
			requireAllOnce(t, out.Dir, samples, "faithfulness", "context_precision")
			require.Equal(t, int64(samples*(callsPerSample+1)), f.replies.Load())
			rf, err := run.ReadResults(filepath.Join(out.Dir, run.FileResults))
			require.NoError(t, err)
			values[tc.name] = map[run.Key]float64{}
			for _, r := range rf.Results {
				values[tc.name][r.Key()] = r.Value
			}
			require.Equal(t, tc.workers > 0, dirExists(filepath.Join(out.Dir, dispatch.FileNATS)))
		})
	}
	require.Equal(t, values["in-process"], values["queue, 1 worker"])
	require.Equal(t, values["in-process"], values["queue, 3 workers"])
}

func dirExists(path string) bool {
	st, err := os.Stat(path)
	return err == nil && st.IsDir()
}

// A worker killed in the middle of a model call: its task goes to
// another worker, which finds the call before it in the cache. Nothing is
// lost, nothing written twice, no reply paid twice.
func TestQueueWorkerKilledMidCall(t *testing.T) {
	f := newFakeModel(t, 5)
	dir := t.TempDir()
	url, _ := natsServer(t, filepath.Join(dir, "nats"))
	data := queueData(t, samples)
	q := bench.Queue{URL: url, AckWait: 30 * time.Second}
	wait := execute(t.Context(), bench.Job{Data: data, Metrics: []string{"faithfulness"}, Out: filepath.Join(dir, "run"), NoStore: true, Env: f.env, Judging: judgingFor(dir), Queue: q})
	w := bench.WorkerJob{URL: url, Judging: judgingFor(dir), Env: f.env, Concurrency: 1, Queue: q}
	stopA := startWorker(t, w)
	f.waitHeld(t)
	require.NoError(t, stopA()) // killed mid-call: the held request's caller goes away
	startWorker(t, w)
	out, err := wait()
	require.NoError(t, err)
	require.Empty(t, out.Failures)
	requireAllOnce(t, out.Dir, samples, "faithfulness")
	require.Equal(t, int64(samples*callsPerSample), f.replies.Load(), "replies paid")
	require.Equal(t, int64(samples*callsPerSample+1), f.calls.Load(), "the killed call is the one extra request")
}

// The coordinator killed mid-run while a worker goes on: the worker's
// replies wait in the bucket, and --resume takes results.jsonl and the
// bucket and publishes only what neither has.
func TestQueueCoordinatorKilledAndResumed(t *testing.T) {
	f := newFakeModel(t, 7)
	dir := t.TempDir()
	url, _ := natsServer(t, filepath.Join(dir, "nats"))
	data := queueData(t, samples)
	q := bench.Queue{URL: url}
	job := bench.Job{Data: data, Metrics: []string{"faithfulness"}, Out: filepath.Join(dir, "run"), NoStore: true, Env: f.env, Judging: judgingFor(dir), Queue: q}
	ctx, kill := context.WithCancel(t.Context())
	wait := execute(ctx, job)
	startWorker(t, bench.WorkerJob{URL: url, Judging: judgingFor(dir), Env: f.env, Concurrency: 1, Queue: q})
	f.waitHeld(t) // three samples in
	kill()
	out, err := wait()
	require.NoError(t, err)
	require.Len(t, out.Failures, 1)
	require.Equal(t, judging.FailInterrupted, out.Failures[0].Kind)
	before := len(pairs(t, out.Dir))
	require.Less(t, before, samples)
	f.letGo() // the worker goes on with no coordinator

	job.Resume = true
	out, err = execute(t.Context(), job)()
	require.NoError(t, err)
	require.Empty(t, out.Failures)
	requireAllOnce(t, out.Dir, samples, "faithfulness")
	require.Equal(t, int64(samples*callsPerSample), f.replies.Load(), "replies paid")
	require.Equal(t, int64(samples*callsPerSample), f.calls.Load(), "requests")
}

// The NATS server restarted on its store in the middle of a run: the
// coordinator and the worker reconnect, and the run ends whole.
func TestQueueServerRestarted(t *testing.T) {
	f := newFakeModel(t, 9)
	dir := t.TempDir()
	url, restart := natsServer(t, filepath.Join(dir, "nats"))
	data := queueData(t, samples)
	q := bench.Queue{URL: url}
	wait := execute(t.Context(), bench.Job{Data: data, Metrics: []string{"faithfulness"}, Out: filepath.Join(dir, "run"), NoStore: true, Env: f.env, Judging: judgingFor(dir), Queue: q})
	startWorker(t, bench.WorkerJob{URL: url, Judging: judgingFor(dir), Env: f.env, Concurrency: 2, Queue: q})
	f.waitHeld(t)
	restart()
	f.letGo()
	out, err := wait()
	require.NoError(t, err)
	require.Empty(t, out.Failures)
	requireAllOnce(t, out.Dir, samples, "faithfulness")
	require.Equal(t, int64(samples*callsPerSample), f.replies.Load(), "replies paid")
}

// A pair whose every delivery fails is undelivered: counted in the
// summary, said, and a failure of the run (exit 3); the other pairs are
// judged, and a resume judges it again.
func TestQueueDeliveriesExhausted(t *testing.T) {
	reg := agent.Builtins().Clone()
	var fail atomic.Bool
	fail.Store(true)
	require.NoError(t, reg.Add(metric.Entry{Name: "fragile", Kind: metric.KindHeuristic, Dataset: true,
		Build: func(metric.Model) eval.Scorer { return fragile{fail: &fail} }}))
	dir := t.TempDir()
	data := queueData(t, 4)
	j := judging.Default()
	j.LLM.Spec = "offline"
	job := bench.Job{Data: data, Metrics: []string{"fragile"}, Registry: reg, Out: filepath.Join(dir, "run"), NoStore: true, Judging: j,
		Queue: bench.Queue{Workers: 2, MaxDeliver: 3}}
	out, err := bench.Execute(t.Context(), job)
	require.NoError(t, err)
	require.Equal(t, 1, out.Summary.Undelivered)
	require.Equal(t, 1, out.Summary.Metrics[0].Undelivered)
	require.Len(t, out.Undelivered, 1)
	u := out.Undelivered[0]
	require.Equal(t, run.Key{ID: "s02", Metric: "fragile"}, u.Key())
	require.Equal(t, 3, u.Undelivered)
	require.Contains(t, u.Error, "sample s02 cannot be judged")
	require.True(t, u.Defaulted)
	infra := out.Failures.Infra()
	require.NotNil(t, infra)
	require.Equal(t, judging.FailUndelivered, infra.Kind)
	var log strings.Builder
	require.NoError(t, out.Write(&strings.Builder{}, &log))
	require.Contains(t, log.String(), "bench: undelivered: sample s02, fragile, after 3 deliveries: undelivered: sample s02 cannot be judged")

	fail.Store(false)
	job.Resume = true
	out, err = bench.Execute(t.Context(), job)
	require.NoError(t, err)
	require.Empty(t, out.Failures)
	require.Equal(t, 0, out.Summary.Undelivered)
	require.Equal(t, 1, out.Redo)
	got := pairs(t, out.Dir)
	require.Equal(t, 2, got[run.Key{ID: "s02", Metric: "fragile"}], "the undelivered line, then its judgement")
	require.Len(t, got, 4)
}

// fragile is a metric whose scorer fails sample s02 while fail is set:
// an error, not a judge's neutral default.
type fragile struct{ fail *atomic.Bool }

func (f fragile) Score(_ context.Context, s eval.Sample) (eval.Score, error) {
	if s.ID == "s02" && f.fail.Load() {
		return eval.Score{}, fmt.Errorf("sample %s cannot be judged", s.ID)
	}
	n, _ := strconv.Atoi(strings.TrimPrefix(s.ID, "s"))
	return eval.Score{Metric: "fragile", Value: float64(n) / 10, Method: "fragile"}, nil
}

// Two model servers of the same model, one worker each (--concurrency 2
// and 4), serve one run's queue: every pair is judged once, both servers
// get work, neither gets more requests at once than its worker's
// --concurrency, and together they answer the requests a plain run makes.
func TestQueueTwoModelServers(t *testing.T) {
	metrics := []string{"faithfulness", "context_precision"}
	data := queueData(t, samples)
	dir := t.TempDir()

	plainModel := newFakeModel(t, 0)
	plain, err := bench.Execute(t.Context(), bench.Job{Data: data, Metrics: metrics, Out: filepath.Join(dir, "plain"), NoStore: true,
		Env: plainModel.env, Judging: judgingFor(filepath.Join(dir, "plain-cache"))})
	require.NoError(t, err)
	require.Empty(t, plain.Failures)

	url, _ := natsServer(t, filepath.Join(dir, "nats"))
	q := bench.Queue{URL: url}
	servers := []struct {
		name        string
		concurrency int
		model       *fakeModel
	}{
		{"A", 2, newFakeModel(t, 0, llmtest.Latency(5*time.Millisecond))},
		{"B", 4, newFakeModel(t, 0, llmtest.Latency(5*time.Millisecond))},
	}
	for _, s := range servers {
		j := judgingFor(filepath.Join(dir, "machine-"+s.name)) // a cache of its own, as on its own machine
		j.LLM.Concurrency = s.concurrency
		startWorker(t, bench.WorkerJob{URL: url, Judging: j, Env: s.model.env, Queue: q})
	}
	waitWorkers(t, url, len(servers))

	coordinator := newFakeModel(t, 0)
	out, err := execute(t.Context(), bench.Job{Data: data, Metrics: metrics, Out: filepath.Join(dir, "run"), NoStore: true,
		Env: coordinator.env, Judging: judgingFor(filepath.Join(dir, "coordinator")), Queue: q})()
	require.NoError(t, err)
	require.Empty(t, out.Failures)
	requireAllOnce(t, out.Dir, samples, metrics...)
	require.Equal(t, pairValues(t, plain.Dir), pairValues(t, out.Dir))

	var total int64
	for _, s := range servers {
		got := s.model.calls.Load()
		t.Logf("server %s: %d requests, %d at most at once (its worker's --concurrency %d)", s.name, got, s.model.peak.Load(), s.concurrency)
		require.Positive(t, got, "requests to server %s", s.name)
		require.LessOrEqual(t, s.model.peak.Load(), int64(s.concurrency), "requests at once to server %s", s.name)
		total += got
	}
	require.Equal(t, plainModel.calls.Load(), total, "requests of A and B, against a plain run's")
	require.Equal(t, int64(0), coordinator.calls.Load(), "the coordinator judges nothing itself")
}

// waitWorkers waits until n workers wait on the queue's shared consumer
// of runs' tasks (queuetest.WaitWorkers), connecting to it at url.
func waitWorkers(t *testing.T, url string, n int) {
	t.Helper()
	nc, err := nats.Connect(url)
	require.NoError(t, err)
	defer nc.Close()
	js, err := jetstream.New(nc)
	require.NoError(t, err)
	queuetest.WaitWorkers(t, js, n)
}

// pairValues reads results.jsonl: each pair's value.
func pairValues(t *testing.T, dir string) map[run.Key]float64 {
	t.Helper()
	rf, err := run.ReadResults(filepath.Join(dir, run.FileResults))
	require.NoError(t, err)
	out := map[run.Key]float64{}
	for _, r := range rf.Results {
		out[r.Key()] = r.Value
	}
	return out
}

// Each in-process worker has its own --concurrency, as a remote worker
// has: two workers at --concurrency 1 have two calls in flight at once
// (the fake model answers none until two are), and never more.
func TestInProcessWorkersOwnConcurrency(t *testing.T) {
	f := newFakeModel(t, 0)
	f.together.Store(2)
	dir := t.TempDir()
	j := judgingFor(dir)
	j.LLM.Concurrency = 1
	// No attempt times out while held: a retry would be a second call.
	j.LLM.CallTimeout, j.LLM.MaxRetryTime = 10*time.Minute, 10*time.Minute
	wait := execute(t.Context(), bench.Job{Data: queueData(t, samples), Metrics: []string{"faithfulness"}, Out: filepath.Join(dir, "run"), NoStore: true,
		Env: f.env, Judging: j, Queue: bench.Queue{Workers: 2}})
	select {
	case <-f.reached:
	case <-time.After(30 * time.Second):
		t.Fatalf("never 2 calls in flight at once: at most %d", f.peak.Load())
	}
	out, err := wait()
	require.NoError(t, err)
	require.Empty(t, out.Failures)
	requireAllOnce(t, out.Dir, samples, "faithfulness")
	require.Equal(t, int64(2), f.peak.Load(), "calls in flight at most: 2 workers x --concurrency 1")
}

// A queued run that gets no reply for --stall-timeout (no worker here)
// ends as an interrupted run (exit 3), saying what it lacks, that no
// worker joined, and the command that resumes it; that command, with a
// worker running, judges every pair.
func TestQueueStalls(t *testing.T) {
	f := newFakeModel(t, 0)
	dir := t.TempDir()
	url, _ := natsServer(t, filepath.Join(dir, "nats"))
	data := queueData(t, 4)
	out := filepath.Join(dir, "run")
	fire, armed := make(chan time.Time), make(chan time.Duration, 16)
	q := bench.Queue{URL: url, StallTimeout: time.Minute, After: func(d time.Duration) <-chan time.Time {
		armed <- d
		return fire
	}}
	job := bench.Job{Data: data, Metrics: []string{"faithfulness"}, Out: out, NoStore: true, Env: f.env, Judging: judgingFor(dir), Queue: q,
		Command: []string{"assay", "bench", "--metric", "faithfulness", "--queue", url, "--out", out, data}}
	wait := execute(t.Context(), job)
	select {
	case d := <-armed:
		require.Equal(t, time.Minute, d)
	case <-time.After(60 * time.Second):
		t.Fatal("the run never waited for a reply")
	}
	fire <- time.Now() // a minute without a reply
	res, err := wait()
	require.NoError(t, err)
	infra := res.Failures.Infra()
	require.NotNil(t, infra)
	require.Equal(t, judging.FailInterrupted, infra.Kind)
	require.Equal(t, "no reply from the queue's workers for 1m0s (--stall-timeout): 4 task(s) without one, 4 pair(s) of 4 record(s); "+
		"the queue holds 4 task(s) no worker has taken and 0 handed out and not done (in a worker's hands, or given back to be delivered again), "+
		"0 worker(s) taking tasks, 0 worker fetch(es) waiting; "+
		"no worker has ever joined the queue: start one (assay worker NATS_URL); "+
		"resume with: assay bench --metric faithfulness --queue "+url+" "+data+" --resume --out "+out, infra.Err.Error())
	require.Empty(t, pairs(t, out))

	startWorker(t, bench.WorkerJob{URL: url, Judging: judgingFor(dir), Env: f.env, Queue: bench.Queue{URL: url}})
	// Bound before the resume opens the queue: nats-server races a
	// consumer made while its stream is updated (a race the detector sees
	// in the server's own filestore).
	waitWorkers(t, url, 1)
	job.Resume, job.Queue.StallTimeout = true, 0
	res, err = execute(t.Context(), job)()
	require.NoError(t, err)
	require.Empty(t, res.Failures)
	requireAllOnce(t, out, 4, "faithfulness")
}

// The command that resumes a run: the run's own, its --resume and --out
// replaced, quoted for a shell.
func TestResumeCommand(t *testing.T) {
	tests := map[string]struct {
		command []string
		dir     string
		want    string
	}{
		"plain": {[]string{"assay", "bench", "--metric", "faithfulness", "--workers", "2", "data.jsonl"}, "assay-runs/r1",
			"assay bench --metric faithfulness --workers 2 data.jsonl --resume --out assay-runs/r1"},
		"resumed, --out given": {[]string{"assay", "bench", "--resume", "--out", "runs/x", "--metric=faithfulness", "d.jsonl"}, "runs/x",
			"assay bench --metric=faithfulness d.jsonl --resume --out runs/x"},
		"--out=DIR": {[]string{"./assay", "bench", "--out=runs/x", "d.jsonl"}, "runs/x", "./assay bench d.jsonl --resume --out runs/x"},
		"quoted": {[]string{"assay", "bench", "--gate", "context_quality.mean>=0.65", "my data.jsonl"}, "it's here",
			`assay bench --gate 'context_quality.mean>=0.65' 'my data.jsonl' --resume --out 'it'\''s here'`},
		"no command": {nil, "runs/x", "assay bench --resume --out runs/x with the run's DATA and flags"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) { require.Equal(t, tc.want, bench.ResumeCommand(tc.command, tc.dir)) })
	}
}

// closedPort is a loopback address nothing listens on.
func closedPort(t *testing.T) string {
	t.Helper()
	var lc net.ListenConfig
	l, err := lc.Listen(t.Context(), "tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := l.Addr().String()
	require.NoError(t, l.Close())
	return addr
}

// A worker whose model server is down takes a task, finds the server
// unreachable, gives the task back and pauses, saying so; a worker with
// a server judges every pair: no default, none undelivered.
func TestQueueWorkerModelDown(t *testing.T) {
	dir := t.TempDir()
	url, _ := natsServer(t, filepath.Join(dir, "nats"))
	q := bench.Queue{URL: url, MaxDeliver: 2}
	deadURL := "http://" + closedPort(t) + "/v1"
	dead := judgingFor(filepath.Join(dir, "dead"))
	dead.LLM.MaxRetryTime = 300 * time.Millisecond
	deadLog := queuetest.NewLog("worker: paused: llm:openai:fake-judge at " + deadURL)
	startWorker(t, bench.WorkerJob{URL: url, Judging: dead, Log: deadLog, Queue: q,
		Env: func(k string) string { return map[string]string{"OPENAI_BASE_URL": deadURL, "OPENAI_API_KEY": "k"}[k] }})
	waitWorkers(t, url, 1)

	data := queueData(t, samples)
	coordinator := newFakeModel(t, 0)
	wait := execute(t.Context(), bench.Job{Data: data, Metrics: []string{"faithfulness"}, Out: filepath.Join(dir, "run"), NoStore: true,
		Env: coordinator.env, Judging: judgingFor(filepath.Join(dir, "coordinator")), Queue: q})
	deadLog.Wait(t) // it took tasks, and paused
	alive := newFakeModel(t, 0)
	startWorker(t, bench.WorkerJob{URL: url, Judging: judgingFor(filepath.Join(dir, "alive")), Env: alive.env, Queue: q})
	out, err := wait()
	require.NoError(t, err)
	require.Empty(t, out.Failures)
	requireAllOnce(t, out.Dir, samples, "faithfulness")
	require.Zero(t, out.Summary.Undelivered)
	require.Equal(t, int64(samples*callsPerSample), alive.calls.Load(), "every call made by the worker with a server")
	require.Contains(t, deadLog.String(), "given back to the queue (delivery 1 of 2)")
	require.Contains(t, deadLog.String(), queue.ErrUnavailable.Error())
}

// A worker started before its NATS server listens does not exit: it says
// it tries again, connects once the server is up, and judges the run.
func TestWorkerStartedBeforeServer(t *testing.T) {
	f := newFakeModel(t, 0)
	dir := t.TempDir()
	addr := closedPort(t)
	url := "nats://" + addr
	log := queuetest.NewLog("worker: the NATS server at " + url + " does not answer")
	startWorker(t, bench.WorkerJob{URL: url, Judging: judgingFor(dir), Env: f.env, Log: log})
	log.Wait(t)
	srv, err := queue.StartServer(queue.ServerConfig{StoreDir: filepath.Join(dir, "nats"), Listen: addr})
	require.NoError(t, err)
	t.Cleanup(srv.Close)
	waitWorkers(t, url, 1) // connected and bound
	out, err := execute(t.Context(), bench.Job{Data: queueData(t, 4), Metrics: []string{"faithfulness"}, Out: filepath.Join(dir, "run"), NoStore: true,
		Env: f.env, Judging: judgingFor(dir), Queue: bench.Queue{URL: url}})()
	require.NoError(t, err)
	require.Empty(t, out.Failures)
	requireAllOnce(t, out.Dir, 4, "faithfulness")
	require.Contains(t, log.String(), "trying again with backoff (250ms doubling to 5s)")
	require.Contains(t, log.String(), "worker: connected to the NATS server at "+url)
}
