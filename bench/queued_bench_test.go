package bench_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/assaylabs/assay/bench"
	"github.com/assaylabs/assay/internal/bgtest"
	"github.com/assaylabs/assay/internal/llmtest"
	"github.com/assaylabs/assay/judging"
	"github.com/assaylabs/assay/queue"
)

// Scaling: a model server of fixed capacity (queueCap requests at once,
// each answered after queueLatency; the others wait their turn), judged
// by workers of queueWorkerCalls calls in flight each. Throughput grows
// with workers until they fill the server's capacity, then stays.
const (
	queueSamples     = 200 // faithfulness: 400 calls
	queueLatency     = 50 * time.Millisecond
	queueCap         = 8
	queueWorkerCalls = 4
)

// cappedModel is a fake model server that answers at most capacity
// requests at once, each after latency.
func cappedModel(b *testing.B, capacity int, latency time.Duration) func(string) string {
	inner := llmtest.Start(llmtest.Func(llmtest.JudgeReplies), llmtest.Latency(latency), llmtest.Quiet())
	slots := make(chan struct{}, capacity)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case slots <- struct{}{}:
		case <-r.Context().Done():
			return
		}
		defer func() { <-slots }()
		inner.Handler().ServeHTTP(w, r)
	}))
	b.Cleanup(func() {
		srv.Close()
		inner.Close()
	})
	url := srv.URL + "/v1"
	return func(k string) string {
		return map[string]string{"OPENAI_BASE_URL": url, "OPENAI_API_KEY": "k"}[k]
	}
}

// benchJudging is a worker's model client: queueWorkerCalls calls in
// flight, no cache (every iteration calls the server).
func benchJudging() judging.Config {
	j := judging.Default()
	j.LLM.Spec, j.LLM.NoCache, j.LLM.Concurrency = "openai:fake-judge", true, queueWorkerCalls
	return j
}

// BenchmarkQueue judges queueSamples samples with faithfulness against a
// server of capacity queueCap: plain bench in one process, then through
// the queue with 1 in-process worker (the queue's own cost), and with 1,
// 2 and 4 remote workers (bench.Work) on an embedded NATS server. It
// reports calls per second.
func BenchmarkQueue(b *testing.B) {
	data := queueData(b, queueSamples)
	cases := []struct {
		name    string
		workers int // remote workers; 0 with inproc
		inproc  int
	}{
		{"plain", 0, 0},
		{"inprocess-1", 0, 1},
		{"remote-1", 1, 0},
		{"remote-2", 2, 0},
		{"remote-4", 4, 0},
	}
	for _, tc := range cases {
		b.Run(tc.name, func(b *testing.B) {
			env := cappedModel(b, queueCap, queueLatency)
			var total time.Duration
			for b.Loop() {
				dir := b.TempDir()
				job := bench.Job{Data: data, Metrics: []string{"faithfulness"}, Out: filepath.Join(dir, "run"), NoStore: true, Quiet: true, Env: env, Judging: benchJudging(),
					Queue: bench.Queue{Workers: tc.inproc}}
				var stop []func()
				if tc.workers > 0 {
					url := natsServerB(b, filepath.Join(dir, "nats"))
					job.Queue.URL = url
					for range tc.workers {
						halt := bgtest.Go(b, func(ctx context.Context) error {
							return bench.Work(ctx, bench.WorkerJob{URL: url, Judging: benchJudging(), Env: env, MaxInFlight: 1000})
						})
						stop = append(stop, func() {
							if err := halt(); err != nil {
								b.Error(err)
							}
						})
					}
				}
				start := time.Now()
				out, err := bench.Execute(context.Background(), job)
				total += time.Since(start)
				for _, s := range stop {
					s()
				}
				if err != nil {
					b.Fatal(err)
				}
				if len(out.Failures) > 0 || out.Summary.Metrics[0].Scored != queueSamples {
					b.Fatalf("failures %v, scored %d", out.Failures, out.Summary.Metrics[0].Scored)
				}
			}
			calls := float64(queueSamples * callsPerSample * b.N)
			b.ReportMetric(calls/total.Seconds(), "calls/s")
			b.ReportMetric(0, "ns/op")
		})
	}
}

// natsServerB starts a NATS server on a free loopback port with its
// store in dir, stopped when the benchmark ends.
func natsServerB(b *testing.B, dir string) string {
	srv, err := queue.StartServer(queue.ServerConfig{StoreDir: dir, Listen: "127.0.0.1:-1"})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(srv.Close)
	return srv.URL()
}

// BenchmarkQueueServers judges queueSamples samples through the queue
// with one worker per model server, each server of capacity
// queueWorkerCalls (what its worker sends at once): one server, then two
// serving the same run (workers of two endpoints sharing the consumer).
// It reports calls per second.
func BenchmarkQueueServers(b *testing.B) {
	data := queueData(b, queueSamples)
	for _, servers := range []int{1, 2} {
		b.Run(strconv.Itoa(servers), func(b *testing.B) {
			envs := make([]func(string) string, servers)
			for i := range envs {
				envs[i] = cappedModel(b, queueWorkerCalls, queueLatency)
			}
			var total time.Duration
			for b.Loop() {
				dir := b.TempDir()
				url := natsServerB(b, filepath.Join(dir, "nats"))
				var stop []func()
				for _, env := range envs {
					halt := bgtest.Go(b, func(ctx context.Context) error {
						return bench.Work(ctx, bench.WorkerJob{URL: url, Judging: benchJudging(), Env: env})
					})
					stop = append(stop, func() {
						if err := halt(); err != nil {
							b.Error(err)
						}
					})
				}
				start := time.Now()
				out, err := bench.Execute(context.Background(), bench.Job{Data: data, Metrics: []string{"faithfulness"}, Out: filepath.Join(dir, "run"),
					NoStore: true, Quiet: true, Env: envs[0], Judging: benchJudging(), Queue: bench.Queue{URL: url}})
				total += time.Since(start)
				for _, s := range stop {
					s()
				}
				if err != nil {
					b.Fatal(err)
				}
				if len(out.Failures) > 0 || out.Summary.Metrics[0].Scored != queueSamples {
					b.Fatalf("failures %v, scored %d", out.Failures, out.Summary.Metrics[0].Scored)
				}
			}
			b.ReportMetric(float64(queueSamples*callsPerSample*b.N)/total.Seconds(), "calls/s")
			b.ReportMetric(0, "ns/op")
		})
	}
}
